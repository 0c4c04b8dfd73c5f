"""python manage.py first_admin USERNAME — the first admin of a real install.

Django's ``createsuperuser`` would do, but it makes a superuser at any time
and asks in English; this one makes only the first (every later admin is
made in Django admin by one who already is, and so is recorded in the audit
log), asks in Indonesian, checks the password against the configured
validators, and says what to do next. For a script, the password comes from
standard input (``--password-stdin``), never from an argument that the
process list and the shell's history would keep.
"""

from __future__ import annotations

import getpass
import sys

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Buat admin pertama (superuser) sebuah instalasi. Kata sandi ditanyakan dua kali, "
        "atau dibaca dari stdin dengan --password-stdin. Ditolak bila sudah ada admin."
    )
    stealth_options = ("stdin",)  # a stream in place of sys.stdin (tests), as createsuperuser takes

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help="nama pengguna admin")
        parser.add_argument("--email", default="", help="alamat surel admin (opsional)")
        parser.add_argument(
            "--password-stdin", action="store_true", help="baca kata sandi dari baris pertama stdin (untuk skrip)"
        )

    def handle(self, *args: object, **options: object) -> None:
        username = str(options["username"]).strip()
        stdin = options.get("stdin") or sys.stdin
        _refuse_a_second_first_admin(username)
        user = User(username=username, email=str(options["email"]), is_staff=True, is_superuser=True)
        password = _password_from_stdin(stdin) if options["password_stdin"] else _password_asked(stdin)
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise CommandError("Kata sandi ditolak: " + " ".join(exc.messages)) from exc
        user.set_password(password)
        user.save()
        self.stdout.write(
            self.style.SUCCESS(f"Admin pertama dibuat: {username}.")
            + "\nMasuk di /admin/ dengan nama dan kata sandi itu. Selanjutnya: buat grup redaksi dan beri"
            "\nhak 'Dapat meninjau klaim', lalu buat akun editor (docs/admins.md)."
        )


def _refuse_a_second_first_admin(username: str) -> None:
    if not username:
        raise CommandError("Nama pengguna tidak boleh kosong.")
    admins = list(User.objects.filter(is_superuser=True).values_list("username", flat=True)[:3])
    if admins:
        raise CommandError(
            f"Sudah ada admin ({', '.join(admins)}). Admin berikutnya dibuat oleh admin itu di "
            "/admin/ › Pengguna, supaya tercatat di log audit."
        )
    if User.objects.filter(username=username).exists():
        raise CommandError(f"Pengguna '{username}' sudah ada; pilih nama lain untuk admin pertama.")


def _password_from_stdin(stdin) -> str:  # noqa: ANN001 — a text stream
    password = stdin.readline().rstrip("\r\n")
    if not password:
        raise CommandError("Tidak ada kata sandi di stdin.")
    return password


def _password_asked(stdin) -> str:  # noqa: ANN001 — a text stream
    # getpass would read a script's stdin without a word; say how instead.
    if not stdin.isatty():
        raise CommandError("Tidak ada terminal untuk menanyakan kata sandi: pakai --password-stdin.")
    password = getpass.getpass("Kata sandi: ")
    if password != getpass.getpass("Kata sandi (ulangi): "):
        raise CommandError("Kedua kata sandi tidak sama; tidak ada yang disimpan.")
    return password
