"""The audit log: who changed what, and when, for the two kinds of change an
editorial archive must be able to account for — review decisions on claims,
and permission changes (who may read which document, who is in which group,
who is staff, which API tokens exist).

Entries are django-auditlog ``LogEntry`` rows, read-only in Django admin
(*Log audit › Entri pencatatan*, in Indonesian: review/admin.py), stamped
with the request's user by ``AuditlogMiddleware``; changes made by commands
and workers have no actor.

Also here, for the same admin pages: the app config that names django-axes'
login records in Indonesian (INSTALLED_APPS lists it), and the Indonesian
names of Django's default permissions. This module is imported while the
app registry is still loading: models are imported inside the functions.
"""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig
from django.apps import apps as global_apps
from django.conf import settings
from django.contrib.auth import get_permission_codename
from django.db import DEFAULT_DB_ALIAS
from django.db.models.signals import post_migrate, post_save
from django.utils import translation


class AxesConfig(AxesAppConfig):
    """django-axes with an Indonesian name in the admin (its own config has
    none, so the admin showed the app label, "Axes"); the rest of its admin
    is Indonesian through axes' own catalog and ours (locale/)."""

    verbose_name = "Percobaan masuk"


def register() -> None:
    from auditlog.receivers import log_create
    from auditlog.registry import auditlog
    from django.contrib.auth.models import Group, User

    from retrieval.models import Document

    from .models import ApiToken, Claim

    auditlog.register(User, include_fields=["is_active", "is_staff", "is_superuser", "groups"], m2m_fields={"groups"})
    auditlog.register(Group, include_fields=["name", "permissions"], m2m_fields={"permissions"})
    auditlog.register(Document, include_fields=["key", "public", "groups", "collection"], m2m_fields={"groups"})
    auditlog.register(ApiToken, include_fields=["user", "name", "revoked"])
    auditlog.register(Claim, include_fields=["review_status", "review_note", "reviewer"])
    # The answer pipeline creates claims by the handful; only an editor's
    # decision about one is an event worth an entry.
    post_save.disconnect(sender=Claim, dispatch_uid=auditlog._dispatch_uid(post_save, log_create))
    # Connected after django.contrib.auth's create_permissions (auth's ready()
    # runs first), so it renames the permissions that migrate just created.
    post_migrate.connect(permission_names_in_indonesian, dispatch_uid="nalarku_permission_names")


# Django's default permissions, as verbs: "Can add log entry" becomes
# "Dapat menambah entri pencatatan".
PERMISSION_VERBS = {"add": "menambah", "change": "mengubah", "delete": "menghapus", "view": "melihat"}


def permission_name(action: str, verbose_name: str) -> str:
    return f"Dapat {PERMISSION_VERBS[action]} {verbose_name}"[:255]


def permission_names_in_indonesian(
    sender,
    app_config,
    using: str = DEFAULT_DB_ALIAS,  # noqa: ANN001
    apps=global_apps,
    **kwargs: object,
) -> None:  # noqa: ANN001
    """Django stores a default permission's name once, in English, when
    migrate creates it ("Can add log entry"), and shows that stored name
    wherever a permission is listed: the group and user forms, and the audit
    log's record of a permission granted. Stored names are rewritten here, in
    the site's language, with the model's Indonesian name; custom permissions
    (``review.review_claim``) keep the names their models give them."""
    if not app_config.models_module:
        return
    try:
        Permission = apps.get_model("auth", "Permission")
        ContentType = apps.get_model("contenttypes", "ContentType")
    except LookupError:  # auth or contenttypes not migrated yet
        return
    with translation.override(settings.LANGUAGE_CODE):
        for model in app_config.get_models():
            opts = model._meta
            content_type = ContentType.objects.db_manager(using).get_for_model(model, for_concrete_model=False)
            for action in opts.default_permissions:
                if action not in PERMISSION_VERBS:
                    continue
                name = permission_name(action, str(opts.verbose_name))
                (
                    Permission.objects.using(using)
                    .filter(content_type=content_type, codename=get_permission_codename(action, opts))
                    .exclude(name=name)
                    .update(name=name)
                )
