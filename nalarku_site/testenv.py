"""pytest plugin loaded with ``-p`` before Django settings are imported.

Keeps a test run away from the demo's data: its own embedded PostgreSQL data
directory and its own Redis database, unless the caller chose otherwise.
"""

import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("NALARKU_DATA_DIR", str(_ROOT / "var" / "test"))
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")
