from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from retrieval.admin import ByDocument, ReaderScoped

from .models import Answer, ApiToken, Claim, ClaimEvidence, EvidenceLookup, Question
from .reviewing import answers_visible_to, claims_visible_to
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
        return ["user", "name"] if obj is None else ["user", "name", "prefix", "created_at", "last_used_at",
                                                    "revoked"]

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        return () if obj is None else ("user", *self.readonly_fields)

    def save_model(self, request: HttpRequest, obj: ApiToken, form, change: bool) -> None:  # noqa: ANN001
        if change:
            super().save_model(request, obj, form, change)
            return
        token, plain = token_issue(user=obj.user, name=obj.name)
        obj.pk, obj.prefix, obj.digest = token.pk, token.prefix, token.digest
        messages.warning(request, f"Token baru untuk {obj.user}: {plain} — salin sekarang, "
                                  "token ini tidak akan ditampilkan lagi.")

    @admin.action(description="Cabut token terpilih")
    def revoke(self, request: HttpRequest, queryset) -> None:  # noqa: ANN001
        n = queryset.update(revoked=True)
        self.message_user(request, f"{n} token dicabut.")


class ClaimEvidenceInline(ByDocument, admin.TabularInline):
    model = ClaimEvidence
    extra = 0
    fields = ("evidence_id", "rank", "semantic_score", "rrf_score", "rerank_score", "superseded", "conflict",
              "via_graph")
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
    readonly_fields = ("question", "generator", "retrieval", "timings_ms", "degraded", "contract", "raw_output",
                       "created_at")
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
    list_display = ("id", "editor", "claim", "shown_at", "opened_at", "decided_at", "duration_ms", "outcome")
    list_filter = ("outcome", "editor")
    readonly_fields = ("editor", "claim", "shown_at", "opened_at", "decided_at", "duration_ms", "outcome")

    def scope(self, queryset: QuerySet, user: AbstractBaseUser) -> QuerySet:
        return queryset.filter(claim__in=claims_visible_to(user))


from . import admin_axes  # noqa: E402, F401  (login unlocking, Axes › Upaya akses)
