#!/usr/bin/env bash
# Prints the first TCP port on 127.0.0.1, from $1 up, that nothing holds:
#   PORT=$(scripts/free-port.sh 25432)
# "Holds" is whatever makes bind() fail, a listener or a client connection
# whose ephemeral port it happens to be; the only test that sees both is to
# bind it, as PostgreSQL does (SO_REUSEADDR: a closed connection's
# TIME_WAIT does not hold a port). Ports in the kernel's ephemeral range are
# skipped: one there can be taken by any outgoing connection between this
# check and the server starting (a CI run once found its PostgreSQL port,
# then 55432, taken).
set -euo pipefail
start="${1:?usage: free-port.sh FIRST_PORT}"
read -r eph_low eph_high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { eph_low=32768; eph_high=60999; }
python3 - "$start" "$eph_low" "$eph_high" <<'PY'
import socket
import sys

start, low, high = (int(a) for a in sys.argv[1:])
for port in range(start, 65536):
    if low <= port <= high:
        continue
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    print(port)
    break
else:
    sys.exit(f"free-port.sh: no free port from {start} up")
PY
