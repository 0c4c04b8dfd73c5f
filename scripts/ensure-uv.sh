#!/usr/bin/env bash
# uv, the tool that installs the project's Python environment from uv.lock.
# When it is not on PATH, install it into a bootstrap virtualenv of its own
# under var/bootstrap (the Makefile puts var/bootstrap/bin first on PATH),
# never into the system's Python: Debian 12 and Ubuntu 24.04 refuse
# `pip install` there ("externally managed", PEP 668), and their stock
# Python has no pip at all.
#
# In order: python3 -m venv (needs Debian's python3-venv: installed when
# missing and we may, as root with apt); else pip --target, which PEP 668
# allows; else say how, in Indonesian, and exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
BOOTSTRAP="$(pwd)/var/bootstrap"

if command -v uv >/dev/null 2>&1; then exit 0; fi
if [[ -x "$BOOTSTRAP/bin/uv" ]]; then exit 0; fi

log() { echo "$*" >&2; }
as_root_with_apt() { [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; }

if ! command -v python3 >/dev/null 2>&1; then
  log "python3 tidak ditemukan. Nalarku butuh Python 3.11: sudo apt-get install python3 python3-venv"
  exit 1
fi

venv_ok() { rm -rf "$BOOTSTRAP" && python3 -m venv "$BOOTSTRAP" >/dev/null 2>&1; }
# ensurepip, which venv needs for pip, is Debian's python3-venv (python3.11-venv on Ubuntu 22.04).
python_venv_package() { python3 -c 'import sys; print(f"python3.{sys.version_info.minor}-venv")'; }

log "uv belum terpasang; memasangnya di lingkungan bootstrap $BOOTSTRAP ..."
if ! venv_ok && as_root_with_apt; then
  log "Memasang paket Debian python3-venv (untuk python3 -m venv) ..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv "$(python_venv_package)" >/dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null || true
fi
if [[ -x "$BOOTSTRAP/bin/pip" ]] || venv_ok; then
  if ! "$BOOTSTRAP/bin/pip" install --quiet --disable-pip-version-check uv >&2; then
    log "pip tidak dapat mengunduh uv dari PyPI (jaringan, proxy, atau sertifikat: lihat pesan pip di atas)."
    exit 1
  fi
  log "uv terpasang: $BOOTSTRAP/bin/uv"
  exit 0
fi

# No venv: a pip that exists may still install into a folder of our own
# (--target skips the externally-managed check, which guards the system's site-packages).
rm -rf "$BOOTSTRAP"
if python3 -m pip --version >/dev/null 2>&1 &&
   python3 -m pip install --quiet --disable-pip-version-check --target "$BOOTSTRAP/pip" uv >&2 &&
   [[ -x "$BOOTSTRAP/pip/bin/uv" ]]; then
  mkdir -p "$BOOTSTRAP/bin" && ln -sf ../pip/bin/uv "$BOOTSTRAP/bin/uv"
  log "uv terpasang: $BOOTSTRAP/bin/uv"
  exit 0
fi
rm -rf "$BOOTSTRAP"
log "uv tidak dapat dipasang: python3 -m venv gagal (modul venv/ensurepip tidak ada) dan pip tidak tersedia."
log "Pasang salah satu, lalu ulangi perintah make:"
log "  sudo apt-get install python3-venv     # Debian/Ubuntu; make memasang uv sendiri sesudahnya"
log "  pipx install uv                       # atau uv dari mana pun, asal ada di PATH"
exit 1
