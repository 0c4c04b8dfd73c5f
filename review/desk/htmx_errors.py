"""What an htmx request gets when it may not go on: a short answer the page
can say in place, never a whole page swapped into a claim's row.

Without this, an ended session turns every htmx action into a redirect that
the browser follows silently, and the login page (with its own header) lands
where the claim was; a 403 lands the "Tidak diizinkan" page there. Here:

- a redirect to the login page becomes **401** with ``X-Nalarku-Login``, the
  login address that returns to the page the editor was on;
- a refused permission (``PermissionDenied``) becomes **403** with its one-line
  reason as plain text, and so does a CSRF failure (the session changed in
  another tab), which also carries ``X-Nalarku-Login``.

``static/js/nalarku.js`` has the one handler that says these in the claim's
alert line (or the page's banner) and swaps nothing. Requests that are not
htmx keep Django's pages.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme

SESSION_ENDED = "Sesi berakhir — masuk lagi. Perubahan ini belum disimpan."
NOT_ALLOWED = "Tidak diizinkan. Perubahan ini tidak disimpan."
SESSION_CHANGED = (
    "Sesi Anda berubah (masuk atau keluar di tab lain). Muat ulang halaman lalu coba lagi; "
    "perubahan ini belum disimpan."
)


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _plain(message: str, status: int) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


def _return_path(request: HttpRequest) -> str:
    """The page the editor was on (htmx's ``HX-Current-URL``), when it is on
    this site; otherwise the home page. Only a path goes into ``next``."""
    current = getattr(request, "htmx", None)
    path = current.current_url_abs_path if current else None
    return path or resolve_url("home")


class HtmxFailureMiddleware:
    """Place after django_htmx's middleware (it reads ``request.htmx``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.login_path = urlsplit(resolve_url(settings.LOGIN_URL)).path

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not _is_htmx(request) or response.status_code not in (301, 302):
            return response
        if urlsplit(response.get("Location", "")).path != self.login_path:
            return response
        ended = _plain(SESSION_ENDED, 401)
        ended["X-Nalarku-Login"] = f"{self.login_path}?{urlencode({'next': _return_path(request)})}"
        return ended

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if _is_htmx(request) and isinstance(exception, PermissionDenied):
            return _plain(str(exception) or NOT_ALLOWED, 403)
        return None


def _login_again(request: HttpRequest) -> str:
    """The login page, returning to the page the form was sent from: htmx's
    ``HX-Current-URL``, else the Referer when it is this site's, else home."""
    if _is_htmx(request):
        back = _return_path(request)
    else:
        referer = request.headers.get("Referer", "")
        allowed = url_has_allowed_host_and_scheme(referer, {request.get_host()}, require_https=request.is_secure())
        back = (urlsplit(referer).path or resolve_url("home")) if referer and allowed else resolve_url("home")
    return f"{urlsplit(resolve_url(settings.LOGIN_URL)).path}?{urlencode({'next': back})}"


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: the usual page, or one line for htmx; both
    with the way to sign in again (the session may have ended in another
    tab), as the 401 of an ended session has."""
    login = _login_again(request)
    if _is_htmx(request):
        changed = _plain(SESSION_CHANGED, 403)
        changed["X-Nalarku-Login"] = login
        return changed
    return render(request, "403.html", {"exception": SESSION_CHANGED, "login_url": login}, status=403)
