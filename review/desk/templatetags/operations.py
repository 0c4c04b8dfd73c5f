"""What operators read in the admin: the read replicas' replay lag."""

from __future__ import annotations

from django import template
from django.conf import settings

from nalarku_site.replicas import replica_lags

register = template.Library()


@register.inclusion_tag("admin/_replicas.html")
def replica_status() -> dict:
    limit = settings.NALARKU_REPLICA["max_lag_seconds"]
    rows = [
        {
            "alias": alias,
            "host": settings.DATABASES[alias].get("HOST", ""),
            "port": settings.DATABASES[alias].get("PORT", ""),
            "lag": lag,
            "serving": lag is not None and lag <= limit,
        }
        for alias, lag in replica_lags().items()
    ]
    return {"replicas": rows, "limit": limit}
