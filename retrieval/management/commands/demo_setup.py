"""python manage.py demo_setup — demo groups, users and archive (idempotent)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, Permission, User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from tqdm import tqdm

from retrieval.chunking import CHUNKER_VERSION
from retrieval.ingestion import revision_index
from retrieval.models import Revision, RevisionStatus

DEMO_DIR = Path(settings.BASE_DIR) / "demo"


class Command(BaseCommand):
    help = (
        "Buat grup dan pengguna demo (demo/users.json) dan masukkan arsip demo "
        "(demo/archive.jsonl) lalu indeks di proses ini. Aman dijalankan berulang."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--print-logins", action="store_true", help="hanya cetak login demo")
        parser.add_argument("--users-only", action="store_true", help="jangan memasukkan arsip")

    def handle(self, *args: object, **options: object) -> None:
        spec = json.loads((DEMO_DIR / "users.json").read_text(encoding="utf-8"))
        if options["print_logins"]:
            for user in spec["users"]:
                groups = ", ".join(user["groups"]) or "tanpa grup"
                reviews = any(spec.get("group_permissions", {}).get(g) for g in user["groups"])
                role = " (admin)" if user.get("is_superuser") else " (peninjau)" if reviews else " (hanya baca)"
                self.stdout.write(f"    {user['username']:<10} {user['password']:<14} {groups}{role}")
            return
        for name in spec["groups"]:
            Group.objects.get_or_create(name=name)
        for name, codes in spec.get("group_permissions", {}).items():
            group = Group.objects.get(name=name)
            for code in codes:
                app, codename = code.split(".")
                group.permissions.add(Permission.objects.get(content_type__app_label=app, codename=codename))
        for entry in spec["users"]:
            user, _ = User.objects.get_or_create(username=entry["username"])
            user.set_password(entry["password"])
            user.is_staff = entry.get("is_staff", False)
            user.is_superuser = entry.get("is_superuser", False)
            user.save()
            user.groups.set(Group.objects.filter(name__in=entry["groups"]))
        self.stdout.write(f"Pengguna demo: {', '.join(u['username'] for u in spec['users'])}")
        if not options["users_only"]:
            call_command("ingest", manifest=DEMO_DIR / "archive.jsonl", sync=True, stdout=self.stdout)
            # An archive indexed by an older chunker is re-chunked in place
            # (each revision keeps serving until its new chunks are in).
            stale = (
                Revision.objects.filter(status__in=[RevisionStatus.ACTIVE, RevisionStatus.SUPERSEDED])
                .exclude(chunker_version=CHUNKER_VERSION)
                .values_list("pk", flat=True)
            )
            for revision_id in tqdm(list(stale), desc="mengindeks ulang", unit="revisi", disable=not stale):
                revision_index(revision_id=revision_id, force=True)
