"""The reader (answering/reader/) on its committed artefact, through
ONNX Runtime: a question over a small archive answered with the span that
holds the answer, a near miss refused, and the scorer's answer (said to
be degraded) when the reader cannot load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from answering.generators import generator_from_config
from answering.reader.model import Reader, ReaderUnavailable
from answering.reader.windows import passage_of
from review.asking import question_ask
from tests.review.test_answer_engine import LEAVE, archive  # noqa: F401 - the fixture: a spec, a leave policy, a review

ROOT = Path(__file__).resolve().parents[2]


def ask(text: str, user, generator: str = "reader"):  # noqa: ANN001, ANN201
    return question_ask(text=text, user=user, generator=generator_from_config(generator))


@pytest.fixture
def editor(make_user):  # noqa: ANN001, ANN201
    return make_user("editor")


def test_the_reader_finds_the_span_in_its_passage():
    reader = Reader(Path(settings.NALARKU_READER["artefact"]))
    passage, _ = passage_of(
        "Spesifikasi KR-220X", "Baterai", "Waktu pemutaran: hingga 30 jam dengan sekali pengisian daya"
    )
    answered, unrelated = reader.read("Berapa jam baterai KR-220X bertahan?", [passage, "Kebijakan cuti\n\n" + LEAVE])
    assert "30 jam" in passage[answered.start : answered.end]
    # Scores compare across passages: the one that answers stands higher.
    assert answered.margin > unrelated.margin and answered.probability > unrelated.probability


@pytest.mark.django_db
def test_the_reader_answers_with_the_unit_holding_its_span(archive, editor):  # noqa: F811
    asked = ask("Berapa jam daya tahan baterai perekam suara KR-220X?", editor)
    contract, answer = asked.contract, asked.answer
    assert answer.generator == "reader"
    assert answer.retrieval["scorer"]["artefact"] == Path(settings.NALARKU_READER["artefact"]).name
    assert contract.status != "insufficient_evidence"
    assert "30 jam" in contract.claims[0].text


@pytest.mark.django_db
def test_a_near_miss_is_refused(archive, editor):  # noqa: F811
    # The leave policy lists maternity, marriage and bereavement leave; it
    # says nothing of pilgrimage leave, and shares every other word asked.
    contract = ask("Berapa hari cuti haji untuk karyawan?", editor).contract
    assert contract.status == "insufficient_evidence"
    assert contract.claims == []


@pytest.mark.django_db
def test_without_its_artefact_the_scorer_answers_and_says_so(archive, editor, settings, tmp_path):  # noqa: F811
    settings.NALARKU_READER = {**settings.NALARKU_READER, "artefact": str(tmp_path / "reader-missing")}
    asked = ask("Berapa jam daya tahan baterai perekam suara KR-220X?", editor)
    assert "reader_unavailable" in asked.contract.degraded
    assert asked.answer.generator == "answerer"  # answerer-v6 answered, as it draws claims
    assert "30 jam" in asked.contract.claims[0].text


def test_a_missing_artefact_is_a_clear_error(tmp_path):
    with pytest.raises(ReaderUnavailable, match="pembaca tidak dapat dimuat"):
        Reader(tmp_path / "reader-v0")


def test_answering_never_imports_pytorch():
    # Every attempt to import torch is recorded, whether or not torch is
    # installed (it is not, where the suite runs): the test fails on the attempt.
    code = (
        "import sys\n"
        "tried = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch': tried.append(name)\n"
        "sys.meta_path.insert(0, Watch())\n"
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'nalarku_site.settings'); django.setup()\n"
        "import answering.engine, review.asking, answering.reader.model, answering.reader.scoring\n"
        "from answering.generators import generator_from_config\n"
        "generator_from_config('reader').reader()\n"
        "sys.exit(1 if tried else 0)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0


def test_the_combined_probability_weighs_both_judges():
    from answering.reader.scoring import combined

    assert combined({"reader": 1.0, "scorer": 0.0, "bias": 0.0}, 0.8, 0.1) == pytest.approx(0.8)
    assert combined({"reader": 0.0, "scorer": 1.0, "bias": 0.0}, 0.8, 0.1) == pytest.approx(0.1)
    both = combined({"reader": 1.0, "scorer": 1.0, "bias": 0.0}, 0.8, 0.8)
    assert both > 0.9  # two judges that agree are surer than either


@pytest.mark.django_db
def test_a_code_is_answered_by_the_row_that_holds_it(make_revision, make_user):
    """reader-v3 puts its span for ERR_QX9 in the sibling row ("Kuota
    penuh", ERR_QX8's); the row is named by its code, so the claim is the
    row holding the code asked, read on its own."""
    make_revision(
        "# Kode galat\n\n| Kode | Arti |\n|---|---|\n| ERR_QX9 | Sesi kedaluwarsa, masuk lagi |\n"
        "| ERR_QX8 | Kuota penuh |\n",
        key="T1",
        title="Tabel kode galat",
        public=True,
    )
    editor = make_user("editor")
    for code, meaning, other in (("ERR_QX9", "Sesi kedaluwarsa", "Kuota penuh"), ("ERR_QX8", "Kuota penuh", "Sesi")):
        contract = ask(f"Apa arti kode {code}?", editor, "reader@reader-v3").contract
        assert contract.status != "insufficient_evidence"
        first = contract.claims[0].text
        assert code in first and meaning in first and other not in first
    # A code the archive does not hold is refused, whatever the reader reads.
    assert ask("Apa arti kode ERR_QX7?", editor, "reader@reader-v3").contract.status == "insufficient_evidence"


def test_the_int8_reader_reads_as_the_fp32_one_does():
    """int8 matrix products (``NALARKU_READER_INT8``, or "reader+int8" beside
    "reader" in one evaluation run) find the same span, at nearly the same
    probability."""
    path = Path(settings.NALARKU_READER["artefact"])
    passage, _ = passage_of(
        "Spesifikasi KR-220X", "Baterai", "Waktu pemutaran: hingga 30 jam dengan sekali pengisian daya"
    )
    question = "Berapa jam baterai KR-220X bertahan?"
    [fp32], [int8] = Reader(path).read(question, [passage]), Reader(path, quantise=True).read(question, [passage])
    assert (int8.start, int8.end) == (fp32.start, fp32.end) and "30 jam" in passage[int8.start : int8.end]
    assert int8.probability == pytest.approx(fp32.probability, abs=0.05)
    assert generator_from_config("reader+int8@reader-v3").int8 is True
    assert generator_from_config("reader").int8 is None  # as the settings say


def test_a_passages_reading_does_not_depend_on_the_passages_beside_it():
    """Each window is read in a call of its own: with int8 products ONNX
    Runtime scales activations per call, and a page added to the context
    must not change how another page reads."""
    reader = Reader(Path(settings.NALARKU_READER["artefact"]), quantise=True)
    spec, _ = passage_of("Spesifikasi KR-220X", "Baterai", "Waktu pemutaran: hingga 30 jam dengan sekali pengisian")
    question = "Berapa jam baterai KR-220X bertahan?"
    [alone] = reader.read(question, [spec])
    beside = reader.read(question, ["Kebijakan cuti\n\n" + LEAVE, spec, "Catatan rilis 4.3.0: perbaikan sinkronisasi"])
    assert (beside[1].start, beside[1].end, beside[1].probability) == (alone.start, alone.end, alone.probability)


def test_a_parts_own_span_is_decoded_from_the_same_reading():
    """``span_within`` decodes the best span inside a part of the passage
    from the logits the reading kept: over the whole passage it is the
    reading's own best span; inside the part holding the answer it
    stands above the part that does not; a part with no whole token
    inside has none."""
    reader = Reader(Path(settings.NALARKU_READER["artefact"]))
    text = "Garansi berlaku 12 bulan sejak pembelian. Waktu pemutaran: hingga 30 jam dengan sekali pengisian daya."
    passage, shift = passage_of("Spesifikasi KR-220X", "Baterai", text)
    [reading] = reader.read("Berapa jam baterai KR-220X bertahan?", [passage])
    assert reading.span_within(0, len(passage)) == pytest.approx(reading.span)
    split = shift + text.index("Waktu")
    holding, beside = (
        reader.probability_within(reading, split, len(passage)),
        reader.probability_within(reading, shift, split),
    )
    assert holding == pytest.approx(reading.probability) and beside < holding
    assert reading.span_within(split, split) == float("-inf") and reader.probability_within(reading, 3, 3) == 0.0
    assert generator_from_config("reader+units@reader-v4").unit_spans is True
    assert generator_from_config("reader+chunk").unit_spans_on() is False
    assert generator_from_config("reader").unit_spans_on() is settings.NALARKU_READER["unit_spans"]


def test_with_unit_spans_the_unit_beside_the_best_span_is_read_for_its_own_span():
    """``unit_spans``: a unit of a chunk other than the one holding its best
    span gets its own span's probability, not a fixed share of the best;
    the unit holding the best span and the evidence's probability of
    answering stay as they were."""
    import numpy as np

    from answering.answerer import Scored, ScoredUnit, hit_units
    from answering.reader.scoring import BESIDE_SPAN, evidence_read
    from retrieval.hits import Hit

    text = "Garansi berlaku 12 bulan sejak pembelian. Waktu pemutaran: hingga 30 jam dengan sekali pengisian daya."
    hit = Hit("D1:r1:p1", "D1", 1, "Spesifikasi KR-220X", "Baterai", text, False, 1, 1, 0.0, None, "doc", "", "")
    units = [ScoredUnit(hit, u, 0.5, np.array([1.0, 0.0])) for u in hit_units(hit)]
    assert len(units) == 2
    scored = Scored(units, 0.5, "berapa", [])
    reader = Reader(Path(settings.NALARKU_READER["artefact"]))
    question = "Berapa jam baterai KR-220X bertahan?"
    plain = evidence_read(reader, question, [hit], scored)
    own = evidence_read(reader, question, [hit], scored, unit_spans=True)
    assert plain.units[0].unit.text.startswith("Waktu") and own.units[0] == plain.units[0]
    assert own.answerable == plain.answerable
    [reading] = reader.read(question, [passage_of(hit.title, hit.heading_path, text)[0]])
    shift = passage_of(hit.title, hit.heading_path, text)[1]
    beside = units[0].unit
    assert plain.units[1].probability == round(reading.probability * BESIDE_SPAN, 4)
    assert own.units[1].probability == round(
        reader.probability_within(reading, beside.start + shift, beside.end + shift), 4
    )
    assert own.units[1].probability < own.units[0].probability
