"""The feature-trained answer model has one name, "answerer": its old names
(the "extractive" engine, NALARKU_EXTRACTIVE_* settings, the
"scorer_unavailable" flag) are refused with the new one, or renamed where
answers stored them."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps

from review.models import Answer, Question

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("NALARKU_EXTRACTIVE_MAX_CLAIMS", "2", "NALARKU_EXTRACTIVE_MAX_CLAIMS kini NALARKU_CLAIMS_MAX"),
        ("NALARKU_GENERATOR", "extractive", "NALARKU_GENERATOR=extractive kini bernama 'answerer'"),
    ],
)
def test_an_old_name_is_refused_with_the_new_one(name: str, value: str, said: str):
    env = {**os.environ, name: value, "DJANGO_SETTINGS_MODULE": "nalarku_site.settings"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0 and "ImproperlyConfigured" in done.stderr and said in done.stderr


def test_stored_answers_are_renamed_and_back(db):
    migration = importlib.import_module("review.migrations.0014_answerer_one_name")
    question = Question.objects.create(text="x", asked_by=None)
    old = Answer.objects.create(
        question=question, status="answered", generator="extractive", degraded=["scorer_unavailable", "weak_support"]
    )
    other = Answer.objects.create(question=question, status="answered", generator="reader", degraded=[])
    migration.forwards(apps, None)
    old.refresh_from_db()
    other.refresh_from_db()
    assert (old.generator, old.degraded) == ("answerer", ["answerer_unavailable", "weak_support"])
    assert (other.generator, other.degraded) == ("reader", [])
    migration.backwards(apps, None)
    old.refresh_from_db()
    assert (old.generator, old.degraded) == ("extractive", ["scorer_unavailable", "weak_support"])
