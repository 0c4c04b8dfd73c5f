"""gunicorn settings read by `gunicorn nalarku_site.wsgi` from the project's
root (make demo, bench/load.py). Each worker loads the embedding model and
the answer scorer once its application is loaded, so the first request is
not the one that pays for it (nalarku_site/warm.py)."""


def post_worker_init(worker):  # noqa: ANN001, ANN201 — gunicorn's hook signature
    from nalarku_site.warm import warm_start_enabled, warm_up

    if warm_start_enabled():
        warm_up()
