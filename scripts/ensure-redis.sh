#!/usr/bin/env bash
# Make sure Redis answers at $REDIS_URL. When nothing answers there and the
# URL names this machine, start a redis-server of our own, installing
# Debian's package first when it is missing and we may (root, apt), as
# ensure-chromium.sh and ensure-ocr.sh do; otherwise say how.
#
# The server we start keeps its pid, log and nothing else (no snapshots)
# under $NALARKU_DATA_DIR (var/), as redis-PORT.pid: `make stop`
# (scripts/stop.sh) stops only a Redis whose pid file is there, never one
# it did not start.
set -euo pipefail
cd "$(dirname "$0")/.."
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
DATA_DIR="${NALARKU_DATA_DIR:-$(pwd)/var}"

ping() { uv run --frozen python -c "import redis,sys; redis.Redis.from_url(sys.argv[1], socket_connect_timeout=1).ping()" "$REDIS_URL" >/dev/null 2>&1; }
url_part() { uv run --frozen python -c "import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p.$1 or sys.argv[2])" "$REDIS_URL" "$2"; }

install_redis() {
  echo "Memasang Redis (paket Debian 'redis-server') ..."
  # Where the package's own service starts (systemd), it answers on 6379
  # and we start nothing more; in a container it does not start, and we do.
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
}

if ping; then exit 0; fi
host=$(url_part hostname 127.0.0.1)
if [[ "$host" != 127.0.0.1 && "$host" != localhost ]]; then
  echo "Redis tidak terjangkau di $REDIS_URL. Redis di mesin lain tidak dimulai dari sini: periksa REDIS_URL." >&2
  exit 1
fi
if ! command -v redis-server >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    install_redis
    if ping; then exit 0; fi
  else
    echo "Redis tidak terjangkau di $REDIS_URL dan redis-server tidak terpasang." >&2
    echo "Pasang dengan: sudo apt-get install redis-server   (atau set REDIS_URL ke Redis yang berjalan)" >&2
    exit 1
  fi
fi
port=$(url_part port 6379)
mkdir -p "$DATA_DIR"
echo "Memulai redis-server lokal di port $port (pid dan log di $DATA_DIR) ..."
redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
  --dir "$DATA_DIR" --pidfile "$DATA_DIR/redis-$port.pid" --logfile "$DATA_DIR/redis-$port.log"
for _ in $(seq 1 50); do ping && exit 0; sleep 0.1; done
echo "redis-server tidak menjawab; lihat $DATA_DIR/redis-$port.log" >&2
exit 1
