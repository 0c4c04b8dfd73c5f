"""python manage.py issue_token USER — a bearer token for /api/ scripts."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from review.models import ApiToken
from review.tokens import token_issue


class Command(BaseCommand):
    help = (
        "Terbitkan token API untuk pengguna (dipakai sebagai 'Authorization: Bearer <token>' "
        "di /api/search dan /api/ask). Token hanya ditampilkan sekali; yang disimpan hanya "
        "sidiknya. --list menampilkan token pengguna, --revoke PREFIX mencabutnya."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("user", help="nama pengguna pemilik token")
        parser.add_argument("--name", default="skrip", help="untuk apa token ini (bawaan 'skrip')")
        parser.add_argument("--list", action="store_true", help="daftar token pengguna ini")
        parser.add_argument("--revoke", metavar="PREFIX", help="cabut token yang berawalan PREFIX")

    def handle(self, *args: object, **options: object) -> None:
        try:
            user = get_user_model().objects.get(username=options["user"])
        except get_user_model().DoesNotExist:
            raise CommandError(f"pengguna {options['user']!r} tidak ada") from None
        if options["list"]:
            for token in ApiToken.objects.filter(user=user):
                state = "dicabut" if token.revoked else "aktif"
                used = token.last_used_at.isoformat(timespec="seconds") if token.last_used_at else "belum dipakai"
                self.stdout.write(f"{token.prefix}…  {token.name}  {state}  {used}")
            return
        if options["revoke"]:
            n = ApiToken.objects.filter(user=user, prefix__startswith=options["revoke"], revoked=False).update(
                revoked=True
            )
            if not n:
                raise CommandError(f"tidak ada token aktif berawalan {options['revoke']!r}")
            self.stdout.write(f"{n} token dicabut.")
            return
        _, plain = token_issue(user=user, name=options["name"])
        self.stderr.write("Simpan token ini sekarang; ia tidak akan ditampilkan lagi.")
        self.stdout.write(plain)
