#!/usr/bin/env bash
# Debian's PostgreSQL with pgvector, for running the suite the way a
# production install on Debian 12 runs (`.ci/run`'s second pass). Idempotent;
# needs root and apt. Prints the DATABASE_URL on stdout, everything else on
# stderr:   DATABASE_URL=$(scripts/ensure-postgres.sh)
#
# Why pgvector is built here: Debian 12 (bookworm, bookworm-updates,
# bookworm-security, bookworm-backports) packages PostgreSQL 15 but no
# pgvector at all; Debian first shipped it in 13 (trixie: pgvector 0.8.0-1,
# for PostgreSQL 17). The app needs pgvector >= 0.8 (HNSW indexes, and
# hnsw.iterative_scan in the connection options). So, unless apt offers a
# postgresql-15-pgvector >= 0.8 itself, Debian's own trixie source package is
# fetched with apt (a private source list and state, so the system's apt
# never sees trixie and no trixie binary is installed) and rebuilt with its
# own packaging against bookworm's PostgreSQL 15, giving a
# postgresql-15-pgvector .deb that dpkg tracks like any other. Trixie rather
# than unstable's newer one (0.8.7 when this was written): a released suite's
# version does not move under CI, and 0.8.0, the first with iterative scans,
# is the oldest pgvector the app can run on, so it is the one worth testing.
#
# The server is a cluster of its own (pg_createcluster), not the machine's
# `main`: it works the same whether or not a server already runs on 5432 and
# whatever that one's roles and authentication are, and nothing the suite
# does touches anyone else's databases. The app role is not a superuser, as in
# production: it may create databases (pytest-django's test_<name>), and the
# vector extension, which only a superuser may create, is created by the
# postgres role in template1, so every new database has it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

PG_MAJOR=15
CLUSTER="${NALARKU_PG_CLUSTER:-nalarku}"
FIRST_PORT="${NALARKU_PG_PORT:-25432}"  # below the ephemeral range: see free-port.sh
ROLE=nalarku
DATABASE=nalarku
PGVECTOR_MIN=0.8.0
PGVECTOR_SOURCE_SUITE=trixie  # Debian 13, the first (and a stable) release with pgvector

log() { echo "ensure-postgres: $*" >&2; }
installed_version() { dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null | awk '$1=="ii" {print $2}'; }
candidate_version() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}'; }
at_least() { [[ -n "$1" ]] && dpkg --compare-versions "$1" ge "$PGVECTOR_MIN"; }

apt_updated=
apt_update() { [[ -n "$apt_updated" ]] || { apt-get update -qq >&2; apt_updated=1; }; }
apt_install() { apt_update; apt-get install -y -qq --no-install-recommends "$@" >&2; }

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  log "needs root and apt-get (Debian); set DATABASE_URL to a PostgreSQL with pgvector >= $PGVECTOR_MIN instead"
  exit 1
fi

# 1. The server: Debian's postgresql-15 (installing it may also create and
#    start Debian's default `main` cluster on 5432; it is left alone).
if [[ -z "$(installed_version postgresql-$PG_MAJOR)" ]]; then
  log "installing postgresql-$PG_MAJOR"
  apt_install postgresql-$PG_MAJOR
fi

# 2. pgvector for that server.
build_pgvector() {
  log "no Debian package postgresql-$PG_MAJOR-pgvector >= $PGVECTOR_MIN; rebuilding Debian's" \
      "$PGVECTOR_SOURCE_SUITE source package for PostgreSQL $PG_MAJOR"
  apt_install build-essential dpkg-dev debhelper architecture-properties \
    "postgresql-server-dev-$PG_MAJOR" postgresql-server-dev-all
  local work
  work=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$work'; trap - RETURN" RETURN
  mkdir -p "$work/lists/partial"
  for suite in "$PGVECTOR_SOURCE_SUITE" "$PGVECTOR_SOURCE_SUITE-updates"; do
    echo "deb-src http://deb.debian.org/debian $suite main"
  done >"$work/sources.list"
  echo "deb-src http://deb.debian.org/debian-security $PGVECTOR_SOURCE_SUITE-security main" >>"$work/sources.list"
  local apt_private=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/none"
                     -o "Dir::State::Lists=$work/lists" -o "APT::Sandbox::User=root")
  apt-get "${apt_private[@]}" update -qq >&2
  # Signed Sources index + checksums: apt verifies what it downloads.
  (cd "$work" && apt-get "${apt_private[@]}" source --download-only pgvector >&2)
  (cd "$work" && dpkg-source --no-check -x pgvector_*.dsc src >&2)
  local upstream
  upstream=$(cd "$work/src" && dpkg-parsechangelog -S Version)
  # A local version below Debian's own (~), naming where it was built.
  { echo "pgvector (${upstream}~nalarku12+1) bookworm; urgency=medium"
    echo
    echo "  * Rebuilt from Debian $PGVECTOR_SOURCE_SUITE for Debian 12 (PostgreSQL $PG_MAJOR) by scripts/ensure-postgres.sh."
    echo
    echo " -- Nalarku CI <ci@localhost>  $(date -R)"
    echo
    cat "$work/src/debian/changelog"; } >"$work/changelog" && mv "$work/changelog" "$work/src/debian/changelog"
  # debian/control names postgresql-<the suite's version>-pgvector; regenerate
  # it for the PostgreSQL versions installed here (bookworm: 15).
  (cd "$work/src" && pg_buildext updatecontrol >&2 &&
     DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -uc -us -Pnocheck >"$work/build.log" 2>&1) ||
    { tail -40 "$work/build.log" >&2; log "pgvector build failed"; return 1; }
  apt_install "$work/postgresql-$PG_MAJOR-pgvector_${upstream}~nalarku12+1_$(dpkg --print-architecture).deb"
}

if ! at_least "$(installed_version postgresql-$PG_MAJOR-pgvector)"; then
  apt_update
  if at_least "$(candidate_version postgresql-$PG_MAJOR-pgvector)"; then
    log "installing postgresql-$PG_MAJOR-pgvector from apt"
    apt_install postgresql-$PG_MAJOR-pgvector
  else
    build_pgvector
  fi
fi

# 3. The cluster, with the embedded server's C.UTF-8 locale. Listens on
#    127.0.0.1 only; there the app role needs no password (a throwaway CI
#    server nobody else can reach), every other role connects only over the
#    socket as the system user of its name. fsync and friends off: the suite
#    never needs crash safety, only speed.
#    Its port is the first free one from $FIRST_PORT, and is moved if the
#    cluster is down and something else has taken it since.
etc="/etc/postgresql/$PG_MAJOR/$CLUSTER"
free_port() { "$(dirname "$0")/free-port.sh" "$1"; }
online() { pg_lsclusters -h | awk -v v=$PG_MAJOR -v c="$CLUSTER" '$1==v && $2==c && $4=="online" {found=1} END {exit !found}'; }
if ! pg_lsclusters -h | awk -v v=$PG_MAJOR -v c="$CLUSTER" '$1==v && $2==c {found=1} END {exit !found}'; then
  PORT=$(free_port "$FIRST_PORT")
  log "creating cluster $PG_MAJOR/$CLUSTER on 127.0.0.1:$PORT"
  pg_createcluster "$PG_MAJOR" "$CLUSTER" --port "$PORT" --locale C.UTF-8 --encoding UTF8 \
    --start-conf manual >&2
elif ! online; then
  PORT=$(pg_conftool -s "$PG_MAJOR" "$CLUSTER" show port)
  if [[ "$(free_port "$PORT")" != "$PORT" ]]; then
    PORT=$(free_port "$FIRST_PORT")
    log "cluster $PG_MAJOR/$CLUSTER's port is taken; moving it to $PORT"
    pg_conftool "$PG_MAJOR" "$CLUSTER" set port "$PORT"
  fi
fi
# Rewritten every run; Debian's postgresql.conf reads conf.d/.
cat >"$etc/conf.d/nalarku-ci.conf" <<'CONF'
listen_addresses = '127.0.0.1'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
cat >"$etc/pg_hba.conf" <<HBA
# Written by scripts/ensure-postgres.sh.
local all  all                 peer
host  all  $ROLE  127.0.0.1/32  trust
# The hot standby of scripts/ensure-standby.sh streams WAL as this role.
host  replication  ${ROLE}_replication  127.0.0.1/32  trust
HBA
PORT=$(pg_conftool -s "$PG_MAJOR" "$CLUSTER" show port)
if online; then
  pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$CLUSTER" reload >&2  # pg_hba.conf
else
  log "starting cluster $PG_MAJOR/$CLUSTER"
  pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" "$CLUSTER" start >&2
fi

# 4. Role, database, extension (as postgres, over the cluster's socket).
psql_admin() { PGOPTIONS="-c client_min_messages=warning" runuser -u postgres -- psql -X -q -p "$PORT" -v ON_ERROR_STOP=1 "$@" >&2; }
psql_admin -d postgres <<SQL
SELECT 'CREATE ROLE $ROLE LOGIN CREATEDB' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE')\gexec
SELECT 'CREATE ROLE ${ROLE}_replication LOGIN REPLICATION' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}_replication')\gexec
SELECT 'CREATE DATABASE $DATABASE OWNER $ROLE' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DATABASE')\gexec
SQL
for db in template1 "$DATABASE"; do
  # UPDATE: a newer package installed since the cluster was made. The replay
  # grants (per database, so in template1 for the test databases) let the
  # replica tests pause a standby's replay to make it lag for real.
  psql_admin -d "$db" -c "CREATE EXTENSION IF NOT EXISTS vector" -c "ALTER EXTENSION vector UPDATE" \
    -c "GRANT EXECUTE ON FUNCTION pg_wal_replay_pause(), pg_wal_replay_resume() TO $ROLE"
done
log "$(runuser -u postgres -- psql -X -At -p "$PORT" -d "$DATABASE" -c \
  "SELECT 'PostgreSQL ' || current_setting('server_version') || ', pgvector ' || extversion FROM pg_extension WHERE extname = 'vector'")"
echo "postgresql://$ROLE@127.0.0.1:$PORT/$DATABASE"
