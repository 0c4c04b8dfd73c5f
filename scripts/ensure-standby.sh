#!/usr/bin/env bash
# A hot standby of scripts/ensure-postgres.sh's cluster, by PostgreSQL's own
# streaming replication, for the read-replica tests (`.ci/run`'s second
# pass). Idempotent; needs root. Prints the replica's DATABASE URL on stdout
# (for NALARKU_REPLICA_URLS), everything else on stderr:
#
#   NALARKU_REPLICA_URLS=$(scripts/ensure-standby.sh)
#
# The standby is a Debian cluster of its own (15/nalarku_standby on
# 127.0.0.1, the first free port from 25433) whose data directory is a `pg_basebackup -R` of the
# primary: -R writes primary_conninfo and standby.signal, so it starts in
# recovery and streams WAL from then on. It is rebuilt when it is not
# streaming from this primary (a primary recreated since, a standby left
# behind). `pg_ctlcluster 15 nalarku_standby stop|start` stops and starts
# it (tests/ops/test_replicas.py does, to check the fallback).
set -euo pipefail
PG_MAJOR=15
PRIMARY_CLUSTER="${NALARKU_PG_CLUSTER:-nalarku}"
CLUSTER="${NALARKU_PG_STANDBY_CLUSTER:-nalarku_standby}"
FIRST_PORT="${NALARKU_PG_STANDBY_PORT:-25433}"  # below the ephemeral range: see free-port.sh
ROLE=nalarku
DATABASE=nalarku

log() { echo "ensure-standby: $*" >&2; }
cluster_state() { pg_lsclusters -h | awk -v v=$PG_MAJOR -v c="$1" '$1==v && $2==c {print $4}'; }
as_postgres() { runuser -u postgres -- "$@"; }

primary_url=$("$(dirname "$0")/ensure-postgres.sh")
primary_port=$(pg_conftool -s "$PG_MAJOR" "$PRIMARY_CLUSTER" show port)
data="/var/lib/postgresql/$PG_MAJOR/$CLUSTER"
etc="/etc/postgresql/$PG_MAJOR/$CLUSTER"

streaming() {
  [[ "$(cluster_state "$CLUSTER")" == online* ]] || return 1
  [[ "$(as_postgres psql -X -At -p "$PORT" -d postgres -c 'SELECT pg_is_in_recovery()' 2>/dev/null)" == t ]] || return 1
  # The primary sees it as a streaming replica.
  [[ "$(as_postgres psql -X -At -p "$primary_port" -d postgres -c \
        "SELECT count(*) FROM pg_stat_replication WHERE application_name = '$CLUSTER' AND state = 'streaming'")" -ge 1 ]]
}

free_port() { "$(dirname "$0")/free-port.sh" "$1"; }
PORT=
[[ -z "$(cluster_state "$CLUSTER")" ]] || PORT=$(pg_conftool -s "$PG_MAJOR" "$CLUSTER" show port)
if [[ -n "$(cluster_state "$CLUSTER")" && "$(cluster_state "$CLUSTER")" != online* ]]; then
  if [[ "$(free_port "$PORT")" != "$PORT" ]]; then
    PORT=$(free_port "$FIRST_PORT")
    log "standby $PG_MAJOR/$CLUSTER's port is taken; moving it to $PORT"
    pg_conftool "$PG_MAJOR" "$CLUSTER" set port "$PORT"
  fi
  log "starting standby $PG_MAJOR/$CLUSTER"
  pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$CLUSTER" start >&2 || true
fi
if [[ -n "$(cluster_state "$CLUSTER")" ]]; then
  for _ in 1 2 3 4 5 6 7 8 9 10; do streaming && break; sleep 1; done
fi

if ! streaming; then
  if [[ -n "$(cluster_state "$CLUSTER")" ]]; then
    pg_dropcluster --stop "$PG_MAJOR" "$CLUSTER" >&2
  fi
  PORT=$(free_port "$FIRST_PORT")
  log "building standby $PG_MAJOR/$CLUSTER on 127.0.0.1:$PORT from the primary on $primary_port (pg_basebackup -R)"
  pg_createcluster "$PG_MAJOR" "$CLUSTER" --port "$PORT" --locale C.UTF-8 --encoding UTF8 --start-conf manual >&2
  find "$data" -mindepth 1 -delete  # the directory stays, owned by postgres
  as_postgres pg_basebackup -h 127.0.0.1 -p "$primary_port" -U "${ROLE}_replication" -D "$data" -R -X stream \
    -c fast -d "application_name=$CLUSTER" >&2
  cat >"$etc/conf.d/nalarku-standby.conf" <<CONF
listen_addresses = '127.0.0.1'
hot_standby = on
# Queries on the standby tell the primary what they still read, so vacuum
# there does not cancel them.
hot_standby_feedback = on
fsync = off
CONF
  cat >"$etc/pg_hba.conf" <<HBA
# Written by scripts/ensure-standby.sh.
local all  all                 peer
host  all  $ROLE  127.0.0.1/32  trust
HBA
  pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$CLUSTER" start >&2
  for _ in $(seq 1 30); do streaming && break; sleep 1; done
  streaming || { log "the standby does not stream from the primary"; tail -20 "/var/log/postgresql/postgresql-$PG_MAJOR-$CLUSTER.log" >&2; exit 1; }
fi
log "standby $PG_MAJOR/$CLUSTER streaming from the primary ($primary_url)"
echo "postgresql://$ROLE@127.0.0.1:$PORT/$DATABASE"
