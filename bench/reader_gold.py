"""The reader alone, given the chunk that holds the answer: does it find it?

End to end figures (``eval_answers``) mix retrieval, claim drawing and the
status bars with the reader's reading. This bench isolates the reading:
for every answerable question of an evaluation file (k8s-id-editor's
``dev.jsonl`` by default), the chunks of its gold revisions that hold an
answer key are read with each reader artefact, side by side in one run,
and the best reading over them is checked:

- span: the reader's best span holds a key;
- line: the passage line around that span holds a key (a claim quotes its
  unit, about a line, so this is what an editor would be shown);
- answered: that reading's calibrated probability reaches the artefact's
  answer bar (``scoring.bars_of``: its card's, or the settings' override).

Per category and overall, with each artefact's figures as a ratio of the
first one's. The archive must be ingested in the data dir first (README,
"Evaluation"):

    uv run python bench/reader_gold.py --readers reader-v4,var/reader-new   # beside a newly trained one
    uv run python bench/reader_gold.py --file data/k8s-id-editor/train.jsonl

Never choose what to train on from dev figures: they are read here to
report, as ``eval_answers``' are.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

DEFAULT_FILE = ROOT / "data" / "k8s-id-editor" / "dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="questions (k8s-id-editor's JSONL form)")
    parser.add_argument(
        "--readers", default="", help="artefacts, comma-separated; the first is the base (default: the one in use)"
    )
    parser.add_argument("--limit", type=int, default=0, help="only the first N answerable questions")
    args = parser.parse_args()
    django.setup()
    from django.conf import settings

    args.readers = args.readers or Path(settings.NALARKU_READER["artefact"]).name
    from answering.answer_keys import answer_in_claims
    from answering.generators import reader_path
    from answering.reader.model import reader_load
    from answering.reader.scoring import bars_of
    from answering.reader.windows import passage_of
    from retrieval.models import Chunk

    rows = [json.loads(line) for line in args.file.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["expected_status"] == "answered" and r["answers"] and r["gold"]]
    rows = rows[: args.limit] if args.limit else rows
    cases = []
    for row in rows:
        chunks = [
            c
            for gold in row["gold"]
            for c in Chunk.objects.filter(
                revision__document__key=gold["document"], revision__number=gold["revision"]
            ).select_related("revision")
            if answer_in_claims(row["answers"], [c.text])
        ]
        cases.append((row, [passage_of(c.revision.title, c.heading_path, c.text)[0] for c in chunks]))
    missing = [row["id"] for row, passages in cases if not passages]
    if len(missing) == len(cases):
        sys.exit("no gold chunk holds a key: is the archive ingested in this data dir?")

    names = [n for n in args.readers.split(",") if n]
    results: dict[str, dict[str, list[tuple[bool, bool, bool]]]] = {}
    for name in names:
        reader = reader_load(Path(reader_path(name)))
        bar = bars_of(reader)["answer_at"]
        started, per = time.perf_counter(), defaultdict(list)
        for row, passages in cases:
            if not passages:
                continue
            readings = reader.read(row["question"], passages)
            best, passage = max(zip(readings, passages, strict=True), key=lambda rp: rp[0].probability)
            span = passage[best.start : best.end]
            line_start = passage.rfind("\n", 0, best.start) + 1
            line_end = passage.find("\n", best.end)
            line = passage[line_start : line_end if line_end >= 0 else len(passage)]
            hit = (
                answer_in_claims(row["answers"], [span]),
                answer_in_claims(row["answers"], [line]),
                best.probability >= bar,
            )
            per[row["category"]].append(hit)
            per["semua"].append(hit)
        results[name] = per
        seconds = time.perf_counter() - started
        print(f"{name}: {len(per['semua'])} questions read in {seconds:.0f} s, answer bar {bar}", file=sys.stderr)

    print(f"{args.file.name}: {len(cases)} answerable questions, {len(missing)} without a gold chunk holding a key")
    if missing:
        print("  without: " + ", ".join(missing))
    base = names[0]
    header = f"{'category':<14}{'n':>4}" + "".join(f"  {n + ' span/line/answered':>34}" for n in names)
    print(header)
    for category in sorted(results[base], key=lambda c: (c == "semua", c)):
        n = len(results[base][category])
        cells = []
        for name in names:
            hits = results[name][category]
            span, line, answered = (sum(h[i] for h in hits) for i in range(3))
            cells.append(f"{span:>3}/{line:>3}/{answered:>3} of {n:<3}")
        print(f"{category:<14}{n:>4}" + "".join(f"  {c:>34}" for c in cells))
    for name in names[1:]:
        b, o = results[base]["semua"], results[name]["semua"]
        ratios = [(sum(h[i] for h in o) / max(sum(h[i] for h in b), 1)) for i in range(3)]
        print(f"{name} / {base}: span {ratios[0]:.3f}, line {ratios[1]:.3f}, answered {ratios[2]:.3f}")


if __name__ == "__main__":
    main()
