"""Signing in and out says what happened: "Anda sudah keluar" after
signing out, the username kept after a failed login, and a request refused
because the session changed (signed in again in another tab) gives the way
to sign in again, as an ended session's 401 does."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def test_signing_out_says_so_on_the_login_page(client, make_user):
    client.force_login(make_user("editor"))
    response = client.post(reverse("logout"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("login")
    html = response.content.decode()
    assert "Anda sudah keluar." in html and 'role="status"' in html
    # Said once: a reload of the login page is a plain login page again.
    assert "Anda sudah keluar." not in client.get(reverse("login")).content.decode()
    # Not said to someone who was not signed in.
    assert "Anda sudah keluar." not in client.post(reverse("logout"), follow=True).content.decode()


def test_signing_out_of_the_admin_says_so_too(client, make_user):
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    response = client.post(reverse("admin:logout"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("login")
    assert "Anda sudah keluar." in response.content.decode()
    assert client.get(reverse("admin:index")).status_code == 302  # signed out indeed


def test_a_failed_login_keeps_the_username_and_focuses_the_password(client, make_user):
    make_user("editor")
    html = client.post(reverse("login"), {"username": "editor", "password": "salah"}).content.decode()
    assert "Nama pengguna atau kata sandi salah" in html
    assert 'name="username" value="editor"' in html
    assert 'type="password" autocomplete="current-password" required autofocus' in html
    # Escaped, as any value on a page.
    html = client.post(reverse("login"), {"username": '"><b>x', "password": "salah"}).content.decode()
    assert 'value="&quot;&gt;&lt;b&gt;x"' in html and "<b>x" not in html
    # A fresh login page is empty, with the username focused.
    fresh = client.get(reverse("login")).content.decode()
    assert 'name="username" value="" autocomplete="username" required autofocus' in fresh


def _stale(make_user) -> tuple[Client, str]:  # noqa: ANN001
    """A tab holding the CSRF token of a page shown before the session
    signed in again elsewhere (signing in rotates the token)."""
    tab = Client(enforce_csrf_checks=True)
    user = make_user("editor")
    tab.force_login(user)
    tab.get(reverse("home"))  # the page whose form holds the token
    token = tab.cookies["csrftoken"].value
    # Another tab of the same browser signs in again.
    tab.post(reverse("login"), {"username": "editor", "password": "rahasia-uji", "csrfmiddlewaretoken": token})
    assert tab.cookies["csrftoken"].value != token
    return tab, token


def test_a_changed_session_refusal_links_to_the_login(make_user):
    tab, stale_token = _stale(make_user)
    here = reverse("history")
    # A plain form (the topbar's "Keluar"): the 403 page, with "Masuk lagi" back to where it was sent from.
    page = tab.post(reverse("logout"), {"csrfmiddlewaretoken": stale_token}, HTTP_REFERER=f"http://testserver{here}")
    html = page.content.decode()
    assert page.status_code == 403 and "Sesi Anda berubah" in html
    assert f'<a href="{reverse("login")}?next=%2Friwayat%2F">Masuk lagi</a>' in html
    # Another site's Referer never becomes the way back.
    page = tab.post(reverse("logout"), {"csrfmiddlewaretoken": stale_token}, HTTP_REFERER="https://jahat.example/x/")
    assert f'{reverse("login")}?next=%2F"' in page.content.decode()
    # htmx: one line, and the login address in the header, as the 401 has.
    response = tab.post(
        reverse("ask"),
        {"question": "x"},
        HTTP_X_CSRFTOKEN=stale_token,
        HTTP_HX_CURRENT_URL=f"http://testserver{here}",
        **HX,
    )
    assert response.status_code == 403 and response["Content-Type"].startswith("text/plain")
    assert response.content.decode().startswith("Sesi Anda berubah")
    assert response["X-Nalarku-Login"] == f"{reverse('login')}?next=%2Friwayat%2F"
