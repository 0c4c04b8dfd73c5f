"""Signing in and out, Django's own views with what the desk adds: signing
out says so on the page it lands on (the login page), instead of leaving a
blank login form that looks as if nothing happened."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse

SIGNED_OUT = "Anda sudah keluar."


class LogoutView(auth_views.LogoutView):
    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        was_signed_in = request.user.is_authenticated
        response = super().post(request, *args, **kwargs)
        if was_signed_in:  # stored in the fresh session the login page reads
            messages.success(request, SIGNED_OUT)
        return response
