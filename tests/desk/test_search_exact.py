"""The search desk's floor never hides what the editor typed, found
verbatim, and its figures never contradict its own bar."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from retrieval.search import search, visible_chunk_counts
from review.desk.search_floor import (
    best_similarity,
    exact_words,
    figures,
    floor_check,
    holds_verbatim,
    identifier,
    whole_in_vocabulary,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive(make_revision):
    make_revision(
        "# Penghapusan data\n\nKunci enkripsi dihancurkan (crypto-shredding) sehingga salinan cadangan tak terbaca.",
        key="S1",
        title="Kebijakan retensi",
        public=True,
    )
    make_revision(
        "# Galat\n\nKode ERR_SYNC_CONFLICT muncul saat dua perangkat mengubah file yang sama.",
        key="S2",
        title="Kode galat",
        public=True,
    )
    for n in range(3, 8):
        make_revision(
            f"# Catatan {n}\n\nPanduan umum penyimpanan berkas dan sinkronisasi perangkat nomor {n}.",
            key=f"S{n}",
            title=f"Catatan {n}",
            public=True,
        )
    make_revision("# Belanja\n\nHarga sayur di pasar naik.", key="S8", title="Catatan belanja", public=True)
    # Hidden from the reader: it must neither be shown nor count.
    make_revision(
        "# Rahasia\n\nMemo crypto-shredding internal; crypto-shredding tim hukum.",
        key="H1",
        title="Memo hukum",
        groups=("hukum",),
    )


def test_identifiers_are_words_only_code_is_written_in():
    assert identifier("ERR_SYNC_CONFLICT") and identifier("CVE-2026-1234") and identifier("foo.bar=baz")
    assert identifier("v2") and identifier("/tmp/nginx.key")
    assert not identifier("crypto-shredding") and not identifier("kata-kata") and not identifier("2016")


def test_verbatim_means_the_whole_word_as_typed():
    class H:
        heading_path = "Panduan"
        text = "Jalankan nginx.key-rotate lalu ERR_SYNC_CONFLICT_2 dan crypto-shredding."

    assert holds_verbatim(H, "crypto-shredding") and holds_verbatim(H, "CRYPTO-shredding")
    assert not holds_verbatim(H, "ERR_SYNC_CONFLICT")  # a longer identifier
    assert not holds_verbatim(H, "nginx")  # part of a path-like word
    assert not holds_verbatim(H, "crypto")


def test_figures_read_lower_than_the_floor_with_as_many_digits_as_needed():
    assert figures(0.8396, 0.84) == ("0,8396", "0,8400")
    assert figures(0.83951, 0.84) == ("0,8395", "0,8400")
    assert figures(0.71, 0.84) == ("0,71", "0,84")
    assert figures(0.8399999999, 0.84) == ("", "0,84")  # "sama dengan ambang"
    assert figures(0.95, 0.999) == ("0,950", "0,999")  # the floor is never rounded up to 1,00
    for best in (0.835, 0.8399, 0.83999, 0.839999):
        shown, bar = figures(best, 0.84)
        assert float(shown.replace(",", ".")) < float(bar.replace(",", "."))


def test_rare_words_are_counted_over_what_the_reader_may_see(archive, make_user):
    reader = make_user("pembaca")
    counts = visible_chunk_counts(["crypto-shredding", "perangkat", "sinkronisasi"], reader, cap=10)
    # S1 only: H1's two mentions are hidden from this reader.
    assert counts["crypto-shredding"] == 1
    assert counts["sinkronisasi"] == 5
    lawyer = make_user("hukum1", "hukum")
    assert visible_chunk_counts(["crypto-shredding"], lawyer, cap=10)["crypto-shredding"] == 2
    # Capped: a common word costs at most cap postings read.
    assert visible_chunk_counts(["sinkronisasi"], reader, cap=2)["sinkronisasi"] == 2
    words = exact_words("apa itu crypto-shredding dan sinkronisasi", reader, as_typed=False)
    assert words == ["crypto-shredding"]  # sinkronisasi is in five chunks: not rare
    # As typed, the whole question comes first (found verbatim it is shown too).
    assert exact_words("apa itu crypto-shredding dan sinkronisasi?", reader) == [
        "apa itu crypto-shredding dan sinkronisasi",
        "crypto-shredding",
    ]
    # An everyday word is never "a rare term", however few chunks hold it.
    assert visible_chunk_counts(["pasar"], reader, cap=10)["pasar"] == 1
    assert exact_words("siapa pasar", reader, as_typed=False) == []
    assert whole_in_vocabulary("siapa") and whole_in_vocabulary("sistem")
    assert not whole_in_vocabulary("crypto-shredding") and not whole_in_vocabulary("idempotensi")


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_an_exact_match_is_shown_whatever_the_floor(client, archive, make_user, settings, mode):
    settings.NALARKU_SEARCH_FLOOR = 0.999  # nothing matches "well"
    client.force_login(make_user("pembaca"))
    page = client.get("/cari/", {"q": "crypto-shredding", "mode": mode}).content.decode()
    assert "S1:r1:p" in page and "persis seperti diketik" in page
    assert "H1:" not in page and "Memo hukum" not in page
    assert "Hasil lain tidak cukup relevan" in page and "tampilkan semua" in page
    # The figures agree with the bar: the best reads lower than the floor.
    best, bar = re.search(r"kemiripannya ([\d,]+), di bawah ambang ([\d,]+)", page).groups()
    assert float(best.replace(",", ".")) < float(bar.replace(",", ".")) == 0.999
    # ... and they are the figures of the results not shown, never the exact match's own.
    reader = User.objects.get(username="pembaca")
    rest = [
        h for h in search("crypto-shredding", reader, k=10, mode=mode).results if not h.evidence_id.startswith("S1:")
    ]
    assert best == figures(best_similarity(rest), 0.999)[0]

    # The exact match first, then what the floor hides; the same as an htmx partial.
    assert page.index("S1:r1:p") < page.index("Hasil lain tidak cukup relevan")
    partial = client.get("/cari/", {"q": "crypto-shredding", "mode": mode}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and "S1:r1:p" in partial and "di bawah ambang 0,999" in partial
    page = client.get("/cari/", {"q": "ERR_SYNC_CONFLICT", "mode": mode}).content.decode()
    assert "S2:r1:p" in page and "<q>ERR_SYNC_CONFLICT</q>" in page


def test_everyday_words_of_a_longer_query_under_the_floor_still_show_nothing(client, archive, make_user, settings):
    settings.NALARKU_SEARCH_FLOOR = 0.999
    client.force_login(make_user("pembaca"))
    # Each word stands in five chunks, the phrase as typed in none ("Panduan umum penyimpanan berkas").
    page = client.get("/cari/", {"q": "panduan penyimpanan berkas", "mode": "hybrid"}).content.decode()
    assert "Tidak ada hasil yang cukup relevan" in page and 'class="hit' not in page
    page = client.get("/cari/", {"q": "panduan penyimpanan berkas", "mode": "hybrid", "semua": "1"}).content.decode()
    assert 'class="hit' in page


def test_what_the_editor_typed_found_verbatim_is_shown_even_an_everyday_word(client, archive, make_user, settings):
    """Issue 51 item 5: "generally", "instructions", "langganan" each stood in
    one chunk and the floor hid them. The query as typed — a common word or a
    phrase — found verbatim is shown, except in a semantic search chosen."""
    settings.NALARKU_SEARCH_FLOOR = 0.999
    client.force_login(make_user("pembaca"))
    for query in ("pasar", "Harga sayur", "“harga sayur di pasar”"):
        page = client.get("/cari/", {"q": query, "mode": "hybrid"}).content.decode()
        assert "S8:r1:p" in page and "persis seperti diketik" in page, query
        assert "S1:r1:p" not in page, query  # the rest stays under the floor
    page = client.get("/cari/", {"q": "pasar", "mode": "vector"}).content.decode()
    assert "Tidak ada hasil yang cukup relevan" in page and 'class="hit' not in page


def test_the_floor_applies_as_before_when_the_best_hit_matches_well(archive, make_user):
    reader = make_user("pembaca")
    response = search("crypto-shredding", reader, k=10)
    best = max(h.semantic_score or 0 for h in response.results)
    assert floor_check(response, response.results, reader=reader, floor=best) is None
    weak = floor_check(response, response.results, reader=reader, floor=best + 0.01)
    assert [h.document for h in weak.exact] == ["S1"] and weak.words == ["crypto-shredding"]
