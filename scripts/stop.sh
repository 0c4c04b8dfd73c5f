#!/usr/bin/env bash
# make stop: stop what `make demo` started under $NALARKU_DATA_DIR (var/):
# gunicorn (or the development server), the Celery worker, the embedded
# PostgreSQL and a Redis that scripts/ensure-redis.sh started.
#
#   scripts/stop.sh [web] [worker] [database] [redis]    (all four by default)
#
# Each is found by its pid file in the data directory and stopped only while
# that pid still runs the program the file is for: a pid reused by another
# process since (after a reboot) is left alone. A Redis or PostgreSQL this
# project did not start (the system's service, DATABASE_URL's server) has no
# pid file there and is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA_DIR="${NALARKU_DATA_DIR:-$(pwd)/var}"

# Whether PID runs: an exited process its parent has not reaped yet (a
# zombie) has stopped.
alive() { kill -0 "$1" 2>/dev/null && [[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]]; }

# The pid in FILE, when it runs PROGRAM; nothing (status 1) otherwise.
running_pid() {
  local file=$1 program=$2 pid
  [[ -s "$file" ]] || return 1
  pid=$(tr -dc 0-9 <"$file")
  [[ -n "$pid" ]] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$program" || return 1
  echo "$pid"
}

# TERM, then up to 30 s for a graceful exit (a worker finishes its task),
# then KILL: the process group too where the process leads one (a detached
# Celery worker and its prefork children).
stop_pidfile() {
  local name=$1 file=$2 program=$3 pid
  if ! pid=$(running_pid "$file" "$program"); then
    rm -f "$file"
    echo "$name: tidak berjalan."
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do alive "$pid" || break; sleep 0.2; done
  if alive "$pid"; then
    if [[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" == "$pid" ]]; then kill -KILL -- "-$pid" 2>/dev/null || true; fi
    kill -KILL "$pid" 2>/dev/null || true
    echo "$name: tidak berhenti dalam 30 detik; dimatikan paksa (pid $pid)."
  else
    echo "$name: dihentikan (pid $pid)."
  fi
  rm -f "$file"
}

stop_web() {
  stop_pidfile "Server web (gunicorn)" "$DATA_DIR/gunicorn.pid" gunicorn
  stop_pidfile "Server pengembangan (runserver)" "$DATA_DIR/runserver.pid" runserver
}

stop_worker() { stop_pidfile "Worker Celery" "$DATA_DIR/worker.pid" celery; }

stop_database() {
  if [[ -n "${DATABASE_URL:-}" ]]; then
    echo "PostgreSQL: DATABASE_URL diset; server itu bukan milik demo dan tidak dihentikan."
    return 0
  fi
  uv run --frozen python - "$DATA_DIR" <<'PY'
import sys
import warnings
from pathlib import Path

from nalarku_site.embedded_db import stop_embedded_database

warnings.filterwarnings("ignore", module="platformdirs")  # XDG_RUNTIME_DIR unset (containers): harmless

try:
    stopped = stop_embedded_database(Path(sys.argv[1]))
except Exception as exc:  # noqa: BLE001 - a stale pid file: pg_ctl finds no server
    print(f"PostgreSQL tertanam: tidak berjalan ({exc}).")
else:
    print("PostgreSQL tertanam: dihentikan." if stopped else "PostgreSQL tertanam: tidak berjalan.")
PY
}

stop_redis() {
  local file found=0
  for file in "$DATA_DIR"/redis-*.pid; do
    [[ -e "$file" ]] || continue
    found=1
    local port=${file##*/redis-}
    stop_pidfile "Redis (port ${port%.pid})" "$file" redis-server
  done
  ((found)) || echo "Redis: tidak ada yang dimulai oleh demo (Redis lain tidak disentuh)."
}

parts=("$@")
((${#parts[@]})) || parts=(web worker database redis)
for part in "${parts[@]}"; do
  case "$part" in
    web | worker | database | redis) "stop_$part" ;;
    *)
      echo "Pemakaian: scripts/stop.sh [web] [worker] [database] [redis]" >&2
      exit 2
      ;;
  esac
done
