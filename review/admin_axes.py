"""Unlocking logins from the Django admin (Axes › Upaya akses).

axes' own admin offers only "Clean up expired attempts" and Django's
generic delete of the selected rows; a row is one account from one address
and browser, so deleting it may leave the same account locked by its other
rows. These two actions clear everything that locks what the admin means:
the accounts of the selected rows (every address), or their addresses
(every account). Imported from the end of review/admin.py."""

from __future__ import annotations

from axes.admin import AccessAttemptAdmin  # registers axes' admin, replaced below
from axes.models import AccessAttempt
from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest


class LoginAttemptAdmin(AccessAttemptAdmin):
    actions = [*AccessAttemptAdmin.actions, "unlock_accounts", "unlock_addresses"]

    @admin.action(description="Buka kunci akun terpilih", permissions=["delete"])
    def unlock_accounts(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._unlock(request, "username", set(queryset.values_list("username", flat=True)), "akun")

    @admin.action(description="Buka kunci alamat terpilih (semua akun dari alamat itu)", permissions=["delete"])
    def unlock_addresses(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._unlock(request, "ip_address", set(queryset.values_list("ip_address", flat=True)), "alamat")

    def _unlock(self, request: HttpRequest, field: str, values: set, label: str) -> None:
        which = Q(**{f"{field}__in": values - {None}})
        if None in values:  # no username posted, or no address (a unix socket)
            which |= Q(**{f"{field}__isnull": True})
        count = AccessAttempt.objects.filter(which).delete()[1].get(AccessAttempt._meta.label, 0)
        names = ", ".join(sorted(str(v) if v is not None else "(kosong)" for v in values))
        self.message_user(
            request, f"Kunci {label} {names} dibuka: {count} catatan percobaan gagal dihapus.", messages.SUCCESS
        )


if admin.site.is_registered(AccessAttempt):
    admin.site.unregister(AccessAttempt)
admin.site.register(AccessAttempt, LoginAttemptAdmin)
