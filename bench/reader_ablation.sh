#!/usr/bin/env bash
# The reader's training data and depth, each left out in turn, at a reduced
# scale that 2 cores train in minutes: every variant is reader-v4's recipe
# (from reader-v3, lr 3e-5, domain weight 1, one epoch, seed 0) with each
# source capped at LIMIT examples; "all-12-layers" trains all 12 layers where
# the others train the top 8. From the base encoder instead, 300 examples a
# source leave a reader at chance (IDK-MRC valid AUC 0.51): too few to tell
# one source from another. Then bench/reader_pages.py reads every variant
# beside the others on k8s-id-editor dev's gold pages (no database needed),
# with each card's IDK-MRC valid figures.
#
#   bench/reader_ablation.sh                     # LIMIT=300, into var/ablation
#   PY=.venv-train/bin/python LIMIT=500 bench/reader_ablation.sh
#
# Needs PyTorch (uv sync --group train). One training at a time; a variant
# already written is kept, an interrupted one resumes from its checkpoints.
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${LIMIT:-300}
OUT=${OUT:-var/ablation}
PY=${PY:-uv run --frozen --group train python}
ALL=idk-mrc,k8s-train,k8s-more,pydocs,archive-train,structure,siblings
mkdir -p "$OUT"

train() {
  local name=$1
  shift
  [[ -f $OUT/$name.json ]] && return
  echo "$(date -u +%H:%M) $name" >&2
  $PY manage.py train_reader --out "$OUT/$name" --work-dir "$OUT/work-$name" --limit "$LIMIT" \
    --init reader-v3 --lr 3e-5 --domain-weight 1 "$@" >"$OUT/$name.log" 2>&1
}

without() { echo ",$ALL," | sed "s/,$1,/,/; s/^,//; s/,$//"; }

readers=()
for variant in all no-structure no-siblings no-k8s-more no-pydocs all-12-layers no-idk-mrc no-k8s-train no-archive-train; do
  case $variant in
    all) train all --sources "$ALL" ;;
    all-12-layers) train all-12-layers --sources "$ALL" --frozen 0 ;;
    no-*) train "$variant" --sources "$(without "${variant#no-}")" ;;
  esac
  readers+=("$OUT/$variant")
done
IFS=,
$PY bench/reader_pages.py --readers "${readers[*]}" --json "$OUT/figures.json"
