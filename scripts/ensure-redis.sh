#!/usr/bin/env bash
# Make sure Redis answers at $REDIS_URL; start a local redis-server if it does not.
set -euo pipefail
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"

ping() { uv run --frozen python -c "import redis,sys; redis.Redis.from_url(sys.argv[1], socket_connect_timeout=1).ping()" "$REDIS_URL" >/dev/null 2>&1; }

if ping; then exit 0; fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "Redis tidak terjangkau di $REDIS_URL dan redis-server tidak terpasang." >&2
  echo "Pasang dengan: sudo apt-get install redis-server   (atau set REDIS_URL ke Redis yang berjalan)" >&2
  exit 1
fi
port=$(uv run --frozen python -c "import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).port or 6379)" "$REDIS_URL")
mkdir -p var
echo "Memulai redis-server lokal di port $port ..."
redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
  --dir "$(pwd)/var" --logfile "$(pwd)/var/redis.log"
for _ in $(seq 1 50); do ping && exit 0; sleep 0.1; done
echo "redis-server tidak menjawab; lihat var/redis.log" >&2
exit 1
