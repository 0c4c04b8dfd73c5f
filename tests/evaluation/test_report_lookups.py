"""The report's lookup time (issue 44 item 2): it says what is measured as
/waktu/ does, and counts only the records the desk's page measured — a
decision made without it (the API) has an empty duration, "not measured"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from review.asking import question_ask
from review.evaluation.report import build_report
from review.models import ClaimReview, EvidenceLookup

pytestmark = pytest.mark.django_db


def test_the_report_counts_measured_lookups_only(make_revision, make_user):
    make_revision("# Kuota\n\nKuota unggah harian 20 berkas per akun.", key="Q1", public=True)
    looker, by_api = make_user("peninjau", reviewer=True), make_user("lewat-api", reviewer=True)
    claim = question_ask(text="Berapa kuota unggah harian?", user=looker).answer.claims.first()
    now = timezone.now()
    for editor, duration in ((looker, 4_000), (by_api, None)):
        EvidenceLookup.objects.update_or_create(
            editor=editor,
            claim=claim,
            defaults={
                "shown_at": now - timedelta(minutes=5),
                "decided_at": now,
                "duration_ms": duration,
                "looked_ms": duration or 0,
                "outcome": ClaimReview.SUPPORTED,
            },
        )
    [section] = [s for s in build_report().sections if s.title == "Waktu mencari bukti"]
    assert "tab yang sedang dibuka" in section.text and "lewat API" in section.text
    by_editor = section.tables[0]
    assert by_editor.header[:4] == ["editor", "klaim", "median s", "p90 s"]
    assert by_editor.rows == [["peninjau", "1", "4,0", "4,0", "1", "0"]]
    assert "lewat-api" not in str(section.tables)
