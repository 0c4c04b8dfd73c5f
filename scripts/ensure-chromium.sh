#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (/usr/bin/chromium) through
# Playwright. Install it when missing and we may (root, apt available).
set -euo pipefail
CHROMIUM="${NALARKU_CHROMIUM:-/usr/bin/chromium}"
if [[ -x "$CHROMIUM" ]]; then exit 0; fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "Memasang Chromium (paket Debian 'chromium') untuk uji peramban ..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "Chromium tidak ada di $CHROMIUM. Pasang dengan: sudo apt-get install chromium" >&2
echo "(atau set NALARKU_CHROMIUM ke peramban Chromium lain). Uji peramban akan dilewati." >&2
