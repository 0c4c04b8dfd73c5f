#!/usr/bin/env bash
# A Celery worker for one kind of work, on this machine or another one that
# reaches the same Redis (REDIS_URL) and database (DATABASE_URL):
#
#   scripts/worker.sh ingest    # indexing and embedding (CPU-bound; loads the model)
#   scripts/worker.sh answer    # answering questions asked on the desk
#   scripts/worker.sh fetch     # re-fetching sources from their URL
#   scripts/worker.sh all       # every queue, with the beat schedule (one machine)
#
# Concurrency: NALARKU_INGEST_CONCURRENCY (1), NALARKU_ANSWER_CONCURRENCY (2),
# NALARKU_FETCH_CONCURRENCY (2); each process loads its own embedding model.
# Run the beat schedule (sweep, lexical weights, due fetches) in one place
# only: `all`, or add --beat to one worker. Extra arguments go to celery.
set -euo pipefail
cd "$(dirname "$0")/.."
role="${1:-}"
# The project's environment as `uv sync --frozen` made it: run directly, so a
# service (deploy/systemd/nalarku-worker@.service) needs no uv and no cache
# of its own; through uv where it is not made yet.
if [[ -x .venv/bin/celery ]]; then python=(.venv/bin/python) celery=(.venv/bin/celery)
else python=(uv run --frozen python) celery=(uv run --frozen celery); fi
case "$role" in
  ingest|answer|fetch)
    concurrency="$("${python[@]}" -c "
import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'nalarku_site.settings')
import django; django.setup()
from django.conf import settings; print(settings.NALARKU_WORKER_CONCURRENCY['$role'])")"
    shift
    exec "${celery[@]}" -A nalarku_site worker -Q "$role" --concurrency "$concurrency" \
      --hostname "$role@%h" -l INFO "$@" ;;
  all)
    shift
    exec "${celery[@]}" -A nalarku_site worker --beat -l INFO "$@" ;;
  *)
    echo "Pemakaian: scripts/worker.sh ingest|answer|fetch|all [argumen celery …]" >&2
    echo "  ingest: mengindeks dan meng-embed revisi; answer: menjawab pertanyaan;" >&2
    echo "  fetch: mengambil ulang sumber dari URL-nya; all: semua antrean + jadwal beat." >&2
    exit 2 ;;
esac
