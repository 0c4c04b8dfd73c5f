"""The fetch fields of a document in admin in plain Indonesian (issue 44
item 4): the HTTP header names (ETag, Last-Modified) only in the help text
under them, for the admin who knows them, never as the label."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from retrieval.models import Document

pytestmark = pytest.mark.django_db
HEADERS = re.compile(r"\bETag\b|Last-Modified")


def test_the_fetch_fields_are_labelled_in_plain_indonesian(admin_client, make_revision):
    revision = make_revision("# Kebijakan\n\nIsi kebijakan.", key="U1", url="https://contoh.id/kebijakan")
    Document.objects.filter(pk=revision.document_id).update(
        etag='"abc123"', last_modified="Wed, 02 Dec 2026 08:00:00 GMT", fetch_status="not_modified"
    )
    page = admin_client.get(f"/admin/retrieval/document/{revision.document_id}/change/")
    assert page.status_code == 200
    soup = BeautifulSoup(page.content.decode(), "html.parser")
    rows = {name: soup.select_one(f".field-{name}") for name in ("etag", "last_modified")}
    assert rows["etag"].label.get_text(strip=True).rstrip(":") == "Tanda versi server"
    assert rows["last_modified"].label.get_text(strip=True).rstrip(":") == "Terakhir diubah menurut server"
    assert '"abc123"' in rows["etag"].get_text() and "08:00:00 GMT" in rows["last_modified"].get_text()
    # The header names are in the help under each field, and nowhere else.
    helps = [row.select_one(".help").get_text(" ") for row in rows.values()]
    assert "ETag" in helps[0] and "Last-Modified" in helps[1]
    for help_text in soup.select(".help"):
        help_text.decompose()
    for script in soup(["script", "style"]):
        script.decompose()
    assert not HEADERS.search(soup.get_text(" ")), HEADERS.findall(soup.get_text(" "))
