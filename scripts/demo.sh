#!/usr/bin/env bash
# make demo: embedded PostgreSQL, migrations, demo archive and users, a
# Celery worker in the background and the web server in the foreground —
# run as in production: debug off, a secret generated once and kept in the
# data directory, gunicorn with static files served by whitenoise.
# NALARKU_DEBUG=1 make demo runs Django's development server instead.
#
# Ctrl-C stops the web server and the worker; the embedded PostgreSQL and a
# Redis started here keep running, so the next `make demo` starts in
# seconds. `make stop` (scripts/stop.sh) stops all of them, from any shell.
set -euo pipefail
cd "$(dirname "$0")/.."
export NALARKU_DATA_DIR="${NALARKU_DATA_DIR:-$(pwd)/var}"
HOST="${NALARKU_HOST:-127.0.0.1}"
PORT="${NALARKU_PORT:-8000}"
mkdir -p "$NALARKU_DATA_DIR"

export NALARKU_DEBUG="${NALARKU_DEBUG:-0}"
secret_file="$NALARKU_DATA_DIR/secret_key"
if [[ ! -s "$secret_file" ]]; then
  (umask 077 && python3 -c "import secrets; print(secrets.token_urlsafe(50))" > "$secret_file")
fi
export NALARKU_SECRET_KEY="${NALARKU_SECRET_KEY:-$(cat "$secret_file")}"
# The demo is served over plain http on this machine: no TLS redirect, no
# secure-only cookies, no HSTS (set these on a real deployment behind TLS).
export NALARKU_SSL_REDIRECT="${NALARKU_SSL_REDIRECT:-0}" NALARKU_SECURE_COOKIES="${NALARKU_SECURE_COOKIES:-0}"
export NALARKU_HSTS_SECONDS="${NALARKU_HSTS_SECONDS:-0}"

scripts/ensure-redis.sh
scripts/ensure-ocr.sh || true  # without OCR a scanned PDF is refused with the reason
echo "Menyiapkan basis data (PostgreSQL tertanam di $NALARKU_DATA_DIR/pg) ..."
uv run --frozen python manage.py migrate --no-input -v 0
uv run --frozen python manage.py demo_setup

pidfile="$NALARKU_DATA_DIR/worker.pid"
if [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  kill "$(cat "$pidfile")" 2>/dev/null || true; sleep 1
fi
uv run --frozen celery -A nalarku_site worker --beat -l INFO --concurrency 1 \
  --schedule "$NALARKU_DATA_DIR/celerybeat-schedule" \
  --logfile "$NALARKU_DATA_DIR/worker.log" --pidfile "$pidfile" --detach
echo "Worker Celery berjalan (log: $NALARKU_DATA_DIR/worker.log)."

cat <<MSG

  Nalarku siap di  http://$HOST:$PORT/
  Admin:           http://$HOST:$PORT/admin/

  Login demo (kata sandi):
$(uv run --frozen python manage.py demo_setup --print-logins)

  Ctrl-C menghentikan server web dan worker. PostgreSQL tertanam dan Redis
  tetap berjalan agar demo berikutnya cepat mulai; semuanya berhenti dengan
  make stop (juga dari terminal lain).
MSG

# The worker is detached (its own session): Ctrl-C reaches only the server
# in the foreground, so the worker is stopped here when this script ends,
# however it ends (Ctrl-C, the server stopped by `make stop`, an error).
trap 'scripts/stop.sh worker' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ "$NALARKU_DEBUG" == "1" ]]; then
  # runserver writes no pid file: the shell that becomes it (exec keeps the pid) writes it.
  bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$NALARKU_DATA_DIR/runserver.pid" \
    uv run --frozen python manage.py runserver "$HOST:$PORT"
  exit
fi
uv run --frozen python manage.py collectstatic --no-input -v 0
uv run --frozen gunicorn nalarku_site.wsgi --bind "$HOST:$PORT" --workers "${NALARKU_WEB_WORKERS:-2}" \
  --timeout 120 --access-logfile - --log-level info --pid "$NALARKU_DATA_DIR/gunicorn.pid"
