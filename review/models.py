"""Questions, answers, claims and evidence lookups (built in the answers issue)."""
