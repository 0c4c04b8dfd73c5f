#!/usr/bin/env bash
# Scanned PDFs are read through OCRmyPDF and Tesseract (Indonesian and
# English) where they are converted. Install Debian's packages when missing and we may
# (root, apt available); without them a scan is refused with the reason.
set -euo pipefail
missing=()
command -v ocrmypdf >/dev/null 2>&1 || missing+=(ocrmypdf)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
for lang in ind eng osd; do
  if ! { command -v tesseract >/dev/null 2>&1 && tesseract --list-langs 2>/dev/null | grep -qx "$lang"; }; then
    missing+=("tesseract-ocr-$lang")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then exit 0; fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "Memasang OCR (paket Debian: ${missing[*]}) untuk PDF hasil pindai ..."
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "OCR belum terpasang (${missing[*]}). Pasang dengan: sudo apt-get install ${missing[*]}" >&2
echo "Tanpa OCR, PDF hasil pindai ditolak dengan alasannya; uji OCR akan dilewati." >&2
