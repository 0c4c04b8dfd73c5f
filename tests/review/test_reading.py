"""The reader (review/answers/reading.py): e5 reads the question and the
unit closest to it together, and an artefact with a reader (answerer-v7)
combines its score with the context model's."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from review.answers.pipeline import question_ask
from review.answers.reading import SEPARATOR, closest, pair_features, pair_text
from review.answers.scorer import artefact, artefact_used
from tests.review.test_answer_engine import LEAVE  # the leave policy the engine's near misses are asked of


def test_the_pair_is_read_against_the_unit_and_the_question():
    rng = np.random.default_rng(0)
    pair, unit, question = rng.normal(size=(3, 384)).astype(np.float32)
    features = pair_features(pair, unit, question)
    assert features.shape == (1, 768)
    np.testing.assert_allclose(features[0, :384], pair - unit, rtol=1e-6)
    np.testing.assert_allclose(features[0, 384:], pair * question, rtol=1e-6)
    assert pair_text("Berapa hari cuti menikah?", "Cuti menikah 3 hari kerja.") == (
        f"Berapa hari cuti menikah?{SEPARATOR}Cuti menikah 3 hari kerja."
    )
    units = np.eye(3, dtype=np.float32)
    assert closest(np.asarray([0.1, 0.9, 0.2], dtype=np.float32), units) == 1
    assert closest(question, np.empty((0, 384), dtype=np.float32)) is None


@pytest.mark.django_db
def test_the_reader_tells_the_answer_from_a_near_miss_on_the_same_list(make_revision, make_user):
    make_revision(
        LEAVE, key="C1", title="Kebijakan cuti", public=True, source_type="policy", document_date=date(2026, 1, 5)
    )
    editor = make_user("editor")
    readings = {}
    with artefact_used("answerer-v7"):
        assert artefact().reader is not None
        for kind, text in (
            ("asked", "Berapa hari cuti menikah untuk karyawan?"),
            ("absent", "Berapa hari cuti haji untuk karyawan?"),
        ):
            answer = question_ask(text=text, user=editor).answer
            scorer = answer.retrieval["scorer"]
            assert scorer["artefact"] == "answerer-v7"
            readings[kind] = scorer["reading"]
    # Both questions share every word of the list but one; the reader,
    # which reads each question with its closest unit, scores the one the
    # list answers higher.
    assert readings["asked"] > readings["absent"]


@pytest.mark.django_db
def test_an_artefact_without_a_reader_records_no_reading(make_revision, make_user):
    make_revision(LEAVE, key="C1", title="Kebijakan cuti", public=True, source_type="policy")
    with artefact_used("answerer-v6"):
        answer = question_ask(text="Berapa hari cuti menikah?", user=make_user("editor")).answer
    assert "reading" not in answer.retrieval["scorer"]
