#!/usr/bin/env bash
# make report: measure the demo archive's evaluation set (retrieval, then
# answers) on the demo's data directory and write reports/ with plots.
set -euo pipefail
cd "$(dirname "$0")/.."
export NALARKU_DATA_DIR="${NALARKU_DATA_DIR:-$(pwd)/var}"
uv run --frozen python manage.py migrate --no-input -v 0
uv run --frozen python manage.py demo_setup
uv run --frozen python manage.py eval_import demo/eval.jsonl --name demo
uv run --frozen python manage.py eval_retrieval --set demo --label "make report"
uv run --frozen python manage.py eval_answers --set demo --label "make report"
uv run --frozen python manage.py eval_report --out reports
