"""gunicorn settings read by `gunicorn nalarku_site.wsgi` from the project's
root (make demo, bench/load.py). Each worker loads the embedding model and
the answer scorer once its application is loaded, so the first request is
not the one that pays for it (nalarku_site/warm.py).

Metrics (nalarku_site/metrics.py): the workers write them to one folder
(``PROMETHEUS_MULTIPROC_DIR``, by default ``$NALARKU_DATA_DIR/prometheus``),
emptied when gunicorn starts, so a scrape sums every worker."""

import os
import shutil
from pathlib import Path

_metrics_dir = Path(
    os.environ.setdefault(
        "PROMETHEUS_MULTIPROC_DIR", str(Path(os.environ.get("NALARKU_DATA_DIR", "var")) / "prometheus")
    )
)


def on_starting(server):  # noqa: ANN001, ANN201
    shutil.rmtree(_metrics_dir, ignore_errors=True)
    _metrics_dir.mkdir(parents=True, exist_ok=True)


def child_exit(server, worker):  # noqa: ANN001, ANN201
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker):  # noqa: ANN001, ANN201 — gunicorn's hook signature
    from nalarku_site.warm import warm_start_enabled, warm_up

    if warm_start_enabled():
        warm_up()
