"""Source types as the rest of the code reads them: each key's Indonesian
label and authority rank, from the table admins manage
(``retrieval.models.SourceType``).

Read on every answer and on every evidence badge, so the table (a handful of
rows) is cached per process for a short while; a change saved in this
process clears the cache at once, other processes see it within ``TTL``.
"""

from __future__ import annotations

import time

from django.db.models.signals import post_delete, post_save

from .models import SourceType

TTL = 30.0  # seconds
_cache: dict[str, object] = {"at": float("-inf"), "rows": {}}


def _rows() -> dict[str, tuple[str, int]]:
    now = time.monotonic()
    if now - _cache["at"] > TTL:
        _cache["rows"] = {
            k: (label, rank) for k, label, rank in SourceType.objects.values_list("key", "label", "authority")
        }
        _cache["at"] = now
    return _cache["rows"]  # type: ignore[return-value]


def label(key: str) -> str:
    """The label editors read; the key itself for a type the table lacks."""
    return _rows().get(key, (key, 0))[0]


def authority(key: str) -> int:
    """1 is the most authoritative; a type the table lacks ranks below all."""
    rows = _rows()
    if key in rows:
        return rows[key][1]
    return max((rank for _, rank in rows.values()), default=0) + 1


def clear(**_: object) -> None:
    _cache["at"] = float("-inf")


post_save.connect(clear, sender=SourceType, dispatch_uid="source_types_clear_on_save")
post_delete.connect(clear, sender=SourceType, dispatch_uid="source_types_clear_on_delete")
