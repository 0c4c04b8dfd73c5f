"""The first admin of a real install (``manage.py first_admin``): made once,
with a password the validators accept, able to sign in to Django admin;
refused, with the reason in Indonesian and nothing saved, otherwise."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

pytestmark = pytest.mark.django_db


def first_admin(*args: str, password: str | None = None) -> str:
    out = io.StringIO()
    stdin = io.StringIO("" if password is None else password + "\n")
    call_command("first_admin", *args, *(["--password-stdin"] if password is not None else []), stdin=stdin, stdout=out)
    return out.getvalue()


def test_the_first_admin_is_made_and_signs_in_to_admin(client: Client):
    said = first_admin("kepala", "--email", "kepala@contoh.id", password="sandi-yang-panjang")
    admin = User.objects.get(username="kepala")
    assert admin.is_superuser and admin.is_staff and admin.is_active and admin.email == "kepala@contoh.id"
    assert "Admin pertama dibuat: kepala" in said and "/admin/" in said
    signed_in = client.post("/admin/login/?next=/admin/", {"username": "kepala", "password": "sandi-yang-panjang"})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_a_second_first_admin_is_refused_and_nothing_is_saved():
    first_admin("kepala", password="sandi-yang-panjang")
    with pytest.raises(CommandError, match="Sudah ada admin \\(kepala\\)"):
        first_admin("wakil", password="sandi-yang-panjang")
    assert not User.objects.filter(username="wakil").exists()


def test_a_password_the_validators_refuse_saves_nothing():
    with pytest.raises(CommandError, match="Kata sandi ditolak"):
        first_admin("kepala", password="pendek")
    assert not User.objects.filter(username="kepala").exists()


def test_an_existing_user_is_not_made_admin_by_the_command(make_user):
    make_user("editor")
    with pytest.raises(CommandError, match="sudah ada"):
        first_admin("editor", password="sandi-yang-panjang")
    assert not User.objects.get(username="editor").is_superuser


def test_without_a_terminal_the_command_asks_for_password_stdin():
    """A script's stdin is no terminal: the command says how rather than
    waiting on a prompt nobody sees."""
    with pytest.raises(CommandError, match="--password-stdin"):
        first_admin("kepala")
    with pytest.raises(CommandError, match="Tidak ada kata sandi"):
        first_admin("kepala", password="")
    assert not User.objects.filter(username="kepala").exists()
