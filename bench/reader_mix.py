"""Which training questions make a reader that ranks the editors' questions?

The reader (review/answers/reading.py) is a logistic regression on the
embedding of ``question [SEP] unit``. This trains it on several mixes of
training questions and prints, for each mix and regularisation strength,
its AUC on IDK-MRC valid (answerable or not, each question with the closest
unit of its own paragraph) and on the editor-style dev set (the evidence
holds the answer or not, each case with the closest unit of the context
the pipeline gives it, asked as its user):

- ``idk``: IDK-MRC train, the first ``--paragraphs`` paragraphs;
- ``en``: the English questions of data/squad2-en-over-id;
- ``id``: their Indonesian translations (``question_id``), worded unlike
  their paragraph.

    uv run python bench/reader_mix.py [--paragraphs 1400]

Pairs and units go through the embedding cache (``train_reader`` fills it).
Uses the demo's data directory (the dev set must be imported:
``eval_import demo/editor-dev.jsonl --name editor-dev``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import django
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

MIXES = (("idk",), ("idk", "en"), ("idk", "en", "id"), ("en", "id"), ("id",))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paragraphs", type=int, default=1400, help="IDK-MRC train paragraphs read (default 1400)")
    parser.add_argument("--dev-set", default="editor-dev")
    args = parser.parse_args()
    django.setup()
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    from retrieval.embeddings import provider_from_config
    from review.answers.reader_training import reader_examples
    from review.answers.training import _CachedQueries, default_cache_dir, items_from_evalset
    from review.management.commands.train_answerer import CROSS_LINGUAL, DATASET

    provider = provider_from_config()

    def examples(path: Path, field: str = "question", limit: int | None = None):  # noqa: ANN202
        queries = _CachedQueries.open(default_cache_dir() / f"queries-{path.stem}.npz")
        found = reader_examples(
            path, provider=provider, embed_query=queries.embed_query, question_field=field, limit=limit
        )
        queries.save()
        return found

    sources = {
        "idk": examples(DATASET / "train.json", limit=args.paragraphs),
        "en": examples(CROSS_LINGUAL),
        "id": examples(CROSS_LINGUAL, "question_id"),
    }
    valid = examples(DATASET / "valid.json")
    dev_x, dev_y = _dev_rows(items_from_evalset(args.dev_set), provider)
    print(
        f"valid {len(valid.y)} questions; dev {len(dev_y)} cases ({int(dev_y.sum())} with the answer in the evidence)"
    )
    for mix in MIXES:
        x = np.vstack([sources[s].x for s in mix])
        y = np.concatenate([sources[s].y for s in mix])
        for c in (0.3, 3.0):
            model = LogisticRegression(C=c, max_iter=5000).fit(x, y)
            print(
                f"{'+'.join(mix):10s} C {c:<4} train {len(y):5d}  "
                f"valid AUC {roc_auc_score(valid.y, model.decision_function(valid.x)):.3f}  "
                f"dev AUC {roc_auc_score(dev_y, model.decision_function(dev_x)):.3f}"
            )


def _dev_rows(items: list, provider: object) -> tuple[np.ndarray, np.ndarray]:
    """Each dev case's pair features, as the scorer reads its evidence."""
    from review.answers.reading import evidence_pair

    rows, labels = [], []
    for item in items:
        features = evidence_pair(item.question, item.passages, provider)
        if features is not None:
            rows.append(features[0])
            labels.append(float(item.answered_by_evidence))
    return np.asarray(rows), np.asarray(labels)


if __name__ == "__main__":
    main()
