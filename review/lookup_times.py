"""Evidence-lookup times as figures: median and p90 per editor and per
question category, from the lookups a viewer may see (``review.reviewing.lookups_visible_to``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import QuerySet

from review.models import EvidenceLookup


@dataclass(frozen=True)
class LookupStat:
    label: str
    count: int
    median_s: float
    p90_s: float
    supported: int
    needs_review: int


def lookup_stats(by: str, *, lookups: QuerySet[EvidenceLookup]) -> list[LookupStat]:
    """Decided ``lookups`` (those the viewer may see: ``lookups_visible_to``) that the desk's
    page measured, grouped by ``editor`` or ``category``, slowest p90 first."""
    field = {"editor": "editor__username", "category": "claim__answer__question__category"}[by]
    groups: dict[str, list[tuple[int, str]]] = {}
    for label, duration, outcome in lookups.filter(decided_at__isnull=False, duration_ms__isnull=False).values_list(
        field, "duration_ms", "outcome"
    ):  # an empty duration: decided without the page measuring
        groups.setdefault(label or "(tanpa kategori)", []).append((duration, outcome))
    stats = []
    for label, rows in groups.items():
        seconds = np.array([d for d, _ in rows], dtype=float) / 1000
        stats.append(
            LookupStat(
                label,
                len(rows),
                round(float(np.median(seconds)), 1),
                round(float(np.percentile(seconds, 90)), 1),
                sum(o == "supported" for _, o in rows),
                sum(o == "needs_review" for _, o in rows),
            )
        )
    return sorted(stats, key=lambda s: (-s.p90_s, s.label))
