"""Training is apart from what runs (issue 52 item 2): the web process's
URLs, the workers' tasks and the warm start import, and a question is
answered, with the ``training`` package (and PyTorch) unimportable. Run in a
subprocess, so that nothing this test process has imported already counts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

WITHOUT_TRAINING = textwrap.dedent(
    """
    import importlib.abc, sys

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {"training", "torch"}:
                raise ImportError(f"{name} is out of reach of the app")
            return None

    sys.meta_path.insert(0, Refuse())
    import django
    django.setup()
    from django.urls import get_resolver
    get_resolver().url_patterns  # every view module of the site
    import nalarku_site.celery, nalarku_site.warm, retrieval.tasks, review.tasks  # noqa: E401
    import answering.engine, review.asking  # noqa: E401
    from django.core.management import get_commands, load_command_class
    loaded = [name for name, app in get_commands().items() if app in {"review", "retrieval"} and not name.startswith("train_")]
    for name in loaded:
        load_command_class(get_commands()[name], name)
    print("imported", len(loaded), "commands")
    """
)


def _run(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "nalarku_site.settings"}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_the_app_imports_without_the_training_package():
    done = _run(WITHOUT_TRAINING)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "imported" in done.stdout


def test_the_check_would_see_an_import_of_training():
    """The refusal works: a module importing ``training`` fails under it."""
    done = _run(WITHOUT_TRAINING.replace("import answering.engine", "import training.answerer, answering.engine"))
    assert done.returncode != 0 and "out of reach of the app" in done.stderr
