from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest

from .models import ApiToken
from .tokens import token_issue


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
