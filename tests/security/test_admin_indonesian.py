"""The admin in Indonesian (issue 21, item 9): section names, the audit
log's columns, values and change tables, django-axes' login records,
permission names and the group selector's help — no English left where
editors read it."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from auditlog.models import LogEntry
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from bs4 import BeautifulSoup
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.test import Client
from django.urls import reverse

from review.asking import question_ask

pytestmark = pytest.mark.django_db

# English the admin used to show, as whole words (case-sensitive).
ENGLISH = re.compile(
    r"\b(Audit log|Axes|Created|Resource|Action|Changes|changes?:|create|update|system|None|"
    r"Field|From|To|Correlation|Can (add|change|delete|view)|Choose|Remove|Locked Out|"
    r"Attempt Remaining|Attempted Access|Not set|User Agent|Path|Clean up)\b"
)


def visible(html: bytes) -> str:
    """The text of the page's content and navigation, as a reader sees it
    (scripts and styles left out)."""
    page = BeautifulSoup(html.decode(), "html.parser")
    for tag in page(["script", "style"]):
        tag.decompose()
    return " ".join(page.get_text(" ").split())


def english_in(html: bytes) -> list[str]:
    return sorted({m.group(0) for m in ENGLISH.finditer(visible(html))})


@pytest.fixture
def decided(make_revision, make_user):
    """An editor's review decision and a group's new permission, both logged."""
    make_revision(
        "# Sinar\n\nFitur Sinar tersedia untuk semua pelanggan sejak 2 Mei 2026.",
        key="A1",
        public=True,
        title="Dokumentasi Sinar",
    )
    editor = make_user("editor", "redaksi", reviewer=True)
    answer = question_ask(text="Apakah fitur Sinar tersedia untuk semua pelanggan?", user=editor).answer
    claim = answer.claims.first()
    client = Client()
    client.force_login(editor)
    client.post(reverse("claim-decide", args=[claim.pk]), {"status": "needs_review", "note": "tanggal?"})
    redaksi = Group.objects.get(name="redaksi")
    redaksi.permissions.add(Permission.objects.get(codename="view_document"))
    return {"claim": claim, "group": redaksi, "editor": editor}


def test_the_admin_index_names_every_section_in_indonesian(admin_client, decided):
    page = admin_client.get("/admin/")
    captions = [
        c.get_text(" ", strip=True)
        for c in BeautifulSoup(page.content.decode(), "html.parser").select("#content-main caption")
    ]
    assert "Log audit" in captions and "Percobaan masuk" in captions, captions
    assert english_in(page.content) == []


def test_the_audit_log_reads_in_indonesian(admin_client, decided):
    listing = admin_client.get("/admin/auditlog/logentry/")
    assert english_in(listing.content) == []
    table = BeautifulSoup(listing.content.decode(), "html.parser").select_one("#result_list")
    headers = [th.get_text(" ", strip=True) for th in table.select("thead th")]
    assert headers == ["Waktu", "Objek", "Aksi", "Perubahan", "Pengguna"]
    text = visible(listing.content)
    assert "diubah" in text and "dibuat" in text
    assert "3 perubahan: peninjau, catatan tinjauan, status tinjauan" in text
    assert "1 perubahan: hak akses" in text
    assert "sistem (perintah atau worker)" in text  # the permission was granted outside a request

    [decision] = LogEntry.objects.get_for_object(decided["claim"])
    detail = admin_client.get(f"/admin/auditlog/logentry/{decision.pk}/change/")
    assert detail.status_code == 200 and english_in(detail.content) == []
    rows = [
        [td.get_text(" ", strip=True) for td in tr.select("td")]
        for tr in BeautifulSoup(detail.content.decode(), "html.parser").select(".field-msg table tr")
    ]
    assert rows == [
        [],
        ["1", "Catatan tinjauan", "—", "tanggal?"],
        ["2", "Status tinjauan", "belum ditinjau", "perlu ditinjau"],
        ["3", "Peninjau", "—", "editor"],
    ]
    assert "Diubah: Fitur Sinar" in visible(detail.content)

    group_entries = LogEntry.objects.get_for_object(decided["group"])
    [granted] = [e for e in group_entries if "permissions" in e.changes_dict]
    detail = admin_client.get(f"/admin/auditlog/logentry/{granted.pk}/change/")
    assert english_in(detail.content) == []
    text = visible(detail.content)
    assert "Hak akses ditambahkan Arsip & pencarian | dokumen | Dapat melihat dokumen" in text


def test_permissions_are_named_in_indonesian(admin_client, decided):
    assert not Permission.objects.filter(name__startswith="Can ").exists()
    assert (
        Permission.objects.get(codename="add_logentry", content_type__app_label="auditlog").name
        == "Dapat menambah entri pencatatan"
    )
    assert Permission.objects.get(codename="change_user").name == "Dapat mengubah pengguna"
    assert Permission.objects.get(codename="delete_accessattempt").name == "Dapat menghapus upaya akses"
    # A permission with a name of its own keeps it.
    assert Permission.objects.get(codename="review_claim").name.startswith("Dapat meninjau klaim")

    page = admin_client.get(f"/admin/auth/group/{decided['group'].pk}/change/")
    options = [
        o.get_text(strip=True)
        for o in BeautifulSoup(page.content.decode(), "html.parser").select("select[name=permissions] option")
    ]
    assert "Arsip & pencarian | dokumen | Dapat melihat dokumen" in options
    assert "Percobaan masuk | upaya akses | Dapat melihat upaya akses" in options
    assert english_in(page.content) == []


def test_the_group_selector_explains_itself_in_indonesian(admin_client, decided):
    page = admin_client.get(f"/admin/auth/group/{decided['group'].pk}/change/")
    # The selector's words come from the admin's JavaScript catalog, a script
    # of this origin: the CSP lets it run, and the catalog is Indonesian …
    assert '<script src="/admin/jsi18n/">' in page.content.decode()
    assert "script-src 'self'" in page["Content-Security-Policy"]
    catalog = admin_client.get("/admin/jsi18n/").content.decode()
    assert '"Chosen %s": "%s terpilih"' in catalog
    # … but Django's Indonesian kept the buttons' English names in two sentences.
    assert 'tombol panah \\"Pilih\\"' in catalog and 'tombol panah \\"Keluarkan\\"' in catalog
    assert 'panah \\"Choose\\"' not in catalog and 'panah \\"Remove\\"' not in catalog
    assert '"Choose selected %s": "Pilih %s yang ditandai"' in catalog


def test_the_login_records_read_in_indonesian(admin_client):
    attempt = AccessAttempt.objects.create(
        username="tamu",
        ip_address="10.0.0.9",
        user_agent="uji",
        http_accept="*",
        path_info="/masuk/",
        get_data="",
        post_data="",
        failures_since_start=3,
    )
    AccessLog.objects.create(
        username="tamu", ip_address="10.0.0.9", user_agent="uji", http_accept="*", path_info="/masuk/"
    )
    AccessFailureLog.objects.create(
        username="tamu", ip_address="10.0.0.9", user_agent="uji", http_accept="*", path_info="/masuk/", locked_out=True
    )
    for url in (
        "/admin/axes/accessattempt/",
        f"/admin/axes/accessattempt/{attempt.pk}/change/",
        "/admin/axes/accesslog/",
        "/admin/axes/accessfailurelog/",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200 and english_in(response.content) == [], url
    listing = visible(admin_client.get("/admin/axes/accessattempt/").content)
    assert f"{settings.AXES_FAILURE_LIMIT - 3} percobaan tersisa" in listing
    assert "Bersihkan upaya akses yang kedaluwarsa" in listing and "Terkunci" in listing
    detail = visible(admin_client.get(f"/admin/axes/accessattempt/{attempt.pk}/change/").content)
    assert "Upaya akses tamu dari 10.0.0.9" in detail
    failures = admin_client.get("/admin/axes/accessfailurelog/")
    assert "Agen pengguna" in visible(failures.content) and "Jalur" in visible(failures.content)


def po_entries(path: Path) -> list[dict[str, str]]:
    """The entries of a simple .po file, each as its keywords (msgid,
    msgid_plural, msgstr or msgstr[0]) and their strings; no header."""
    entries, current, key = [], {}, None
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = line.strip()
        if line.startswith('"'):
            current[key] += ast.literal_eval(line)
            continue
        if not line or line.startswith(("#", "msgid ")):
            if current.get("msgid"):
                entries.append(current)
            if not line.startswith("#"):
                current = {}
            if not line.startswith("msgid "):
                continue
        key, _, quoted = line.partition(" ")
        current[key] = ast.literal_eval(quoted)
    return entries


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_committed_catalogs_are_compiled_from_their_po(domain):
    """Django reads the .mo only: one left behind its .po would quietly keep
    the old words."""
    folder = Path(settings.LOCALE_PATHS[0]) / "id" / "LC_MESSAGES"
    entries = po_entries(folder / f"{domain}.po")
    assert len(entries) > 5
    with (folder / f"{domain}.mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    for entry in entries:
        if "msgid_plural" in entry:
            assert catalog.ngettext(entry["msgid"], entry["msgid_plural"], 1) == entry["msgstr[0]"], entry
        else:
            assert catalog.gettext(entry["msgid"]) == entry["msgstr"], entry
