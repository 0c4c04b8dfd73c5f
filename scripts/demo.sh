#!/usr/bin/env bash
# make demo: embedded PostgreSQL, migrations, demo archive and users, a
# Celery worker in the background and the web server in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
export NALARKU_DATA_DIR="${NALARKU_DATA_DIR:-$(pwd)/var}"
HOST="${NALARKU_HOST:-127.0.0.1}"
PORT="${NALARKU_PORT:-8000}"
mkdir -p "$NALARKU_DATA_DIR"

scripts/ensure-redis.sh
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

  Hentikan dengan Ctrl-C (worker: kill \$(cat $pidfile)).
MSG
exec uv run --frozen python manage.py runserver "$HOST:$PORT"
