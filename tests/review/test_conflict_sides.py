"""Conflicts an editor can act on: the meaning of a code compared across
sources, both sides of a disagreement as claims, and a disagreement that
is the reason for doubt going to an editor instead of being refused."""

from __future__ import annotations

from datetime import date

import pytest

from review.answers.pipeline import question_ask

pytestmark = pytest.mark.django_db

CODES = """# Kode error perekam KR-220X

| Kode | Arti | Tindakan |
|---|---|---|
| KR-ERR-7 | Suhu baterai terlalu tinggi; perekaman dihentikan | Biarkan perangkat dingin 10 menit |
| KR-ERR-8 | Kartu memori tidak terbaca | Format ulang kartu |
"""


def ask(text: str, make_user):  # noqa: ANN001, ANN201
    from django.contrib.auth.models import User

    editor = User.objects.filter(username="editor").first() or make_user("editor")
    return question_ask(text=text, user=editor).contract


@pytest.fixture
def codes(make_revision):
    make_revision(CODES, key="K7", title="Kode error KR-220X", public=True, source_type="documentation",
                  document_date=date(2026, 4, 1))


def test_two_sources_that_define_a_code_differently_are_a_meaning_conflict_with_both_sides_claimed(
        codes, make_revision, make_user):
    make_revision("# Ulasan KR-220X\n\nSaat kami menguji, layar menampilkan KR-ERR-7, yang berarti kartu memori "
                  "sudah penuh dan harus dikosongkan.", key="U7", title="Ulasan KR-220X", public=True,
                  source_type="article", document_date=date(2026, 2, 1))
    contract = ask("KR-ERR-7 artinya apa?", make_user)
    [conflict] = [c for c in contract.conflicts if c.kind == "meaning"]
    assert {e.split(":")[0] for e in conflict.evidence_ids} == {"K7", "U7"}
    assert conflict.sides[0][0].startswith("K7")  # the newer side first
    assert "lebih baru" in conflict.note
    cited = {e.split(":")[0] for claim in contract.claims for e in claim.evidence_ids}
    assert {"K7", "U7"} <= cited
    assert contract.status == "needs_review"


def test_a_meaning_the_source_gives_as_the_past_one_is_no_conflict(codes, make_revision, make_user):
    make_revision("# Catatan perubahan\n\nSebelumnya KR-ERR-7 berarti kartu memori penuh; arti itu sudah diganti.",
                  key="N7", title="Catatan perubahan firmware", public=True, source_type="documentation",
                  document_date=date(2026, 4, 2))
    contract = ask("KR-ERR-7 artinya apa?", make_user)
    assert not [c for c in contract.conflicts if c.kind == "meaning"]


def test_a_number_conflict_shows_both_values_as_claims(make_revision, make_user):
    make_revision("# Spesifikasi KR-220X\n\n## Baterai\n\nWaktu pemutaran: hingga 30 jam dengan sekali pengisian daya",
                  key="S1", title="Spesifikasi KR-220X", public=True, source_type="spec",
                  document_date=date(2026, 2, 1))
    make_revision("# KR-220X diperbarui\n\nWaktu pemutaran: hingga 26 jam dengan sekali pengisian daya",
                  key="A3", title="Artikel KR-220X", public=True, source_type="article",
                  document_date=date(2026, 5, 20))
    contract = ask("Berapa jam waktu pemutaran KR-220X?", make_user)
    [conflict] = [c for c in contract.conflicts if c.kind == "number"]
    assert set(conflict.values.values()) == {"30 jam", "26 jam"}
    texts = " ".join(c.text for c in contract.claims)
    assert "30 jam" in texts and "26 jam" in texts
    other = next(c for c in contract.claims if "30 jam" in c.text)
    assert "conflict" in other.flags
    assert contract.status == "needs_review"


def test_a_refusal_goes_to_an_editor_only_when_sources_disagree_about_the_thing_asked():
    import numpy as np

    from review.answers.contract import Conflict
    from review.answers.pipeline import _doubt_is_a_conflict
    from review.answers.scorer import Scored, ScoredUnit
    from review.answers.units import Unit

    unit = ScoredUnit(hit=None, unit=Unit("Masa retensi trash 60 hari.", 0, 27, "sentence"), probability=0.1,
                      vector=np.zeros(3))
    conflict = Conflict(evidence_ids=["D21:r3:p4", "D11:r2:p8"], kind="number", note="…")
    about_it = Scored([unit], 0.1, "berapa", [])
    assert _doubt_is_a_conflict(about_it, [conflict])
    assert not _doubt_is_a_conflict(about_it, [])  # no disagreement: the refusal stands
    sibling = Scored([unit], 0.1, "berapa", [], protected_missing=["premium"])
    assert not _doubt_is_a_conflict(sibling, [conflict])  # "paket Premium": a near miss stays refused
    other_code = Scored([unit], 0.1, "berapa", [], absent_identifiers=["lgl-pol-008"])
    assert not _doubt_is_a_conflict(other_code, [conflict])
