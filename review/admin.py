from __future__ import annotations

from auditlog.admin import LogEntryAdmin as AuditlogEntryAdmin
from auditlog.models import LogEntry
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db.models import Field, Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst

from retrieval.admin import ByDocument, ReaderScoped

from .models import Answer, ApiToken, Claim, ClaimEvidence, EvidenceLookup, Question
from .reviewing import answers_visible_to, claims_visible_to, lookups_visible_to
from .tokens import token_issue


class ByVisibleClaims(ReaderScoped):
    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(pk__in=claims_visible_to(user).values("pk"))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Issuing a token is adding one: the token is shown once, in a message."""

    list_display = ("prefix", "user", "name", "created_at", "last_used_at", "revoked")
    list_filter = ("revoked",)
    search_fields = ("user__username", "name", "prefix")
    readonly_fields = ("prefix", "created_at", "last_used_at")
    autocomplete_fields = ("user",)
    actions = ("revoke",)

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> list[str]:
        return ["user", "name"] if obj is None else ["user", "name", "prefix", "created_at", "last_used_at", "revoked"]

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        return () if obj is None else ("user", *self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: ApiToken, form, change: bool) -> None:  # noqa: ANN001
        if change:
            super().save_model(request, obj, form, change)
            return
        token, plain = token_issue(user=obj.user, name=obj.name)
        obj.pk, obj.prefix, obj.digest = token.pk, token.prefix, token.digest
        messages.warning(
            request, f"Token baru untuk {obj.user}: {plain} — salin sekarang, token ini tidak akan ditampilkan lagi."
        )

    @admin.action(description="Cabut token terpilih")
    def revoke(self, request: HttpRequest, queryset) -> None:  # noqa: ANN001
        n = queryset.update(revoked=True)
        self.message_user(request, f"{n} token dicabut.")


class ClaimEvidenceInline(ByDocument, admin.TabularInline):
    model = ClaimEvidence
    extra = 0
    fields = (
        "evidence_id",
        "rank",
        "semantic_score",
        "rrf_score",
        "rerank_score",
        "superseded",
        "conflict",
        "via_graph",
    )
    readonly_fields = fields
    can_delete = False


class ClaimInline(ByVisibleClaims, admin.TabularInline):
    model = Claim
    extra = 0
    fields = ("position", "text", "flags", "review_status", "reviewer", "review_note")
    readonly_fields = ("position", "text", "flags")
    show_change_link = True


@admin.register(Question)
class QuestionAdmin(ReaderScoped, admin.ModelAdmin):
    list_display = ("id", "text", "asked_by", "asked_at", "as_of", "category", "state")
    list_filter = ("state", "category")
    search_fields = ("text", "asked_by__username")
    date_hierarchy = "asked_at"

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(Q(asked_by=user) | Q(answers__in=answers_visible_to(user))).distinct()


@admin.register(Answer)
class AnswerAdmin(ReaderScoped, admin.ModelAdmin):
    list_display = ("id", "question", "status", "generator", "created_at")
    list_filter = ("status", "generator")
    search_fields = ("question__text",)
    readonly_fields = (
        "question",
        "generator",
        "retrieval",
        "timings_ms",
        "degraded",
        "contract",
        "raw_output",
        "created_at",
    )
    inlines = [ClaimInline]

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(pk__in=answers_visible_to(user).values("pk"))

    def get_fields(self, request: HttpRequest, obj: Answer | None = None) -> list[str]:
        fields = list(super().get_fields(request, obj))
        if request.user.is_superuser:
            return fields
        # The stored contract and raw model output may quote evidence the
        # staff member's groups cannot read; the editor's page shows what they may.
        return [f for f in fields if f not in ("contract", "raw_output", "retrieval")]


@admin.register(Claim)
class ClaimAdmin(ByVisibleClaims, admin.ModelAdmin):
    list_display = ("id", "answer", "text", "review_status", "reviewer", "reviewed_at")
    list_filter = ("review_status",)
    search_fields = ("text", "review_note")
    readonly_fields = ("answer", "position", "text", "flags")
    inlines = [ClaimEvidenceInline]


@admin.register(EvidenceLookup)
class EvidenceLookupAdmin(ReaderScoped, admin.ModelAdmin):
    # The desk's page measured these (review/lookups.py): shown, kept for audit, never edited.
    FIELDS = (
        "editor",
        "claim",
        "outcome",
        "shown_at",
        "seen_at",
        "opened_at",
        "decided_at",
        "looked_ms",
        "duration_ms",
    )
    list_display = ("id", *FIELDS)
    list_filter = ("outcome", "editor")
    readonly_fields = FIELDS

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(pk__in=lookups_visible_to(user).values("pk"))


# --- The audit log and the login records, in Indonesian ---------------------
# django-auditlog's admin writes part of its text without gettext ("1 change:
# review_status", "system", a value "None", the m2m operation "add"), and
# django-axes names its rows in English ("Attempted Access: …"). What gettext
# can reach is translated in locale/; the rest here.

EMPTY = "—"
M2M_OPERATIONS = {"add": "ditambahkan", "delete": "dikeluarkan"}
TRUTH = {"True": "ya", "False": "tidak"}


def when(moment) -> str:  # noqa: ANN001
    return date_format(timezone.localtime(moment), "DATETIME_FORMAT") if moment else EMPTY


def audited_field(entry: LogEntry, name: str) -> Field | None:
    model = entry.content_type.model_class()
    try:
        return model._meta.get_field(name) if model else None
    except FieldDoesNotExist:
        return None


def field_label(entry: LogEntry, name: str) -> str:
    field = audited_field(entry, name)
    return str(field.verbose_name) if field is not None and hasattr(field, "verbose_name") else name


def is_m2m(change: object) -> bool:
    return isinstance(change, dict) and change.get("type") == "m2m"


def change_value(entry: LogEntry, name: str, value: object) -> str:
    """One recorded value as an editor reads it: a choice by its label, a
    yes/no, a related row by its name, nothing as "—" (auditlog records
    a missing value as the text "None")."""
    if value is None or value in ("None", ""):
        return EMPTY
    value = str(value)
    field = audited_field(entry, name)
    if field is None:
        return value
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if field.get_internal_type() == "BooleanField":
        return TRUTH.get(value, value)
    if field.many_to_one or field.one_to_one:
        model = field.related_model
        try:
            found = model._base_manager.filter(pk=model._meta.pk.to_python(value)).first()
        except (ValidationError, ValueError, TypeError):  # recorded before the key's type changed
            return value
        return str(found) if found is not None else f"{value} (sudah dihapus)"
    return value


class AuditEntryAdmin(AuditlogEntryAdmin):
    """auditlog's read-only admin with every column, value and table in
    Indonesian; the same entries, filters and permissions."""

    list_display = ["created", "resource_url", "action", "msg_short", "user_url"]
    list_filter = ["action", ("content_type", admin.RelatedOnlyFieldListFilter)]
    readonly_fields = ["created", "resource_url", "action", "user_url", "msg", "remote_addr"]
    fieldsets = [
        (None, {"fields": ["created", "user_url", "remote_addr", "resource_url"]}),
        ("Perubahan", {"fields": ["action", "msg"]}),
    ]

    @admin.display(description="waktu", ordering="timestamp")
    def created(self, obj: LogEntry) -> str:
        return when(obj.timestamp)

    @admin.display(description="pengguna")
    def user_url(self, obj: LogEntry) -> str:
        return super().user_url(obj) if obj.actor else "sistem (perintah atau worker)"

    @admin.display(description="objek")
    def resource_url(self, obj: LogEntry) -> str:
        return super().resource_url(obj)

    @admin.display(description="perubahan")
    def msg_short(self, obj: LogEntry) -> str:
        if obj.action in (LogEntry.Action.DELETE, LogEntry.Action.ACCESS):
            return ""
        fields = ", ".join(field_label(obj, name) for name in obj.changes_dict)
        return f"{len(obj.changes_dict)} perubahan: {fields}" if fields else ""

    @admin.display(description="perubahan")
    def msg(self, obj: LogEntry) -> SafeString | str:
        changes = sorted(obj.changes_dict.items())
        plain = [(n, c) for n, c in changes if not is_m2m(c)]
        related = [(n, c) for n, c in changes if is_m2m(c)]
        tables = []
        if plain:
            rows = format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        i,
                        capfirst(field_label(obj, name)),
                        change_value(obj, name, values[0]),
                        change_value(obj, name, values[1]),
                    )
                    for i, (name, values) in enumerate(plain, 1)
                ),
            )
            tables.append(
                format_html("<table><tr><th>#</th><th>Bidang</th><th>Dari</th><th>Menjadi</th></tr>{}</table>", rows)
            )
        if related:
            rows = format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        i,
                        capfirst(field_label(obj, name)),
                        M2M_OPERATIONS.get(change["operation"], change["operation"]),
                        format_html_join(mark_safe("<br>"), "{}", ((o,) for o in change["objects"])),
                    )
                    for i, (name, change) in enumerate(related, 1)
                ),
            )
            tables.append(
                format_html("<table><tr><th>#</th><th>Relasi</th><th>Aksi</th><th>Objek</th></tr>{}</table>", rows)
            )
        return format_html_join("", "{}", ((t,) for t in tables)) if tables else EMPTY


admin.site.unregister(LogEntry)  # auditlog's own (registered when auditlog.admin was imported above)
admin.site.register(LogEntry, AuditEntryAdmin)


# axes' models name themselves in English, and the admin shows that name as a
# page's title and in its breadcrumbs; the models are the library's, so their
# names are replaced here rather than through a subclass (a proxy model would
# move the pages and the permissions).
def _attempt_name(attempt: AccessAttempt) -> str:
    return f"Upaya akses {attempt.username or EMPTY} dari {attempt.ip_address or EMPTY}, {when(attempt.attempt_time)}"


def _failure_name(failure: AccessFailureLog) -> str:
    locked = " (terkunci)" if failure.locked_out else ""
    return (
        f"Login gagal {failure.username or EMPTY}{locked} dari {failure.ip_address or EMPTY}, "
        f"{when(failure.attempt_time)}"
    )


def _access_log_name(entry: AccessLog) -> str:
    return f"Log akses {entry.username or EMPTY}, {when(entry.attempt_time)}"


AccessAttempt.__str__ = _attempt_name
AccessFailureLog.__str__ = _failure_name
AccessLog.__str__ = _access_log_name


from . import admin_axes  # noqa: E402, F401  (login unlocking, Axes › Upaya akses)
