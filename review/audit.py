"""The audit log: who changed what, and when, for the two kinds of change an
editorial archive must be able to account for — review decisions on claims,
and permission changes (who may read which document, who is in which group,
who is staff, which API tokens exist).

Entries are django-auditlog ``LogEntry`` rows, read-only in Django admin
(*Auditlog › Log entries*), stamped with the request's user by
``AuditlogMiddleware``; changes made by commands and workers have no actor.
"""

from __future__ import annotations

from auditlog.receivers import log_create
from auditlog.registry import auditlog
from django.contrib.auth.models import Group, User
from django.db.models.signals import post_save


def register() -> None:
    from retrieval.models import Document

    from .models import ApiToken, Claim

    auditlog.register(User, include_fields=["is_active", "is_staff", "is_superuser", "groups"],
                      m2m_fields={"groups"})
    auditlog.register(Group, include_fields=["name", "permissions"], m2m_fields={"permissions"})
    auditlog.register(Document, include_fields=["key", "public", "groups", "collection"], m2m_fields={"groups"})
    auditlog.register(ApiToken, include_fields=["user", "name", "revoked"])
    auditlog.register(Claim, include_fields=["review_status", "review_note", "reviewer"])
    # The answer pipeline creates claims by the handful; only an editor's
    # decision about one is an event worth an entry.
    post_save.disconnect(sender=Claim, dispatch_uid=auditlog._dispatch_uid(post_save, log_create))
