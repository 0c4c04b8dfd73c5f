"""What indexing a revision's postings costs, statement by statement, on the
10k synthetic archive of search_latency.py (run that first).

    uv run --frozen python bench/posting_load_cost.py [--revisions 40]

For each revision: its postings are removed, then ADD_TERMS (new lexemes
into the vocabulary, a statement of its own so a concurrent ingestion's
lexemes are seen) and ADD_POSTINGS are timed, and the transaction is rolled
back. The rolled-back inserts leave dead space in that database (VACUUM FULL
retrieval_posting reclaims it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var" / "bench-latency"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from retrieval.lexical import ADD_POSTINGS, ADD_TERMS, REMOVE_POSTINGS  # noqa: E402
from retrieval.models import Revision  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--revisions", type=int, default=40, help="revisions timed (default %(default)s)")
    args = parser.parse_args()
    connection.settings_dict["NAME"] = "nalarku_latency_10000"
    ids = list(Revision.objects.order_by("pk").values_list("pk", flat=True)[: args.revisions])
    terms = postings = 0.0
    for revision_id in ids:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(REMOVE_POSTINGS, {"revision": revision_id})
            cursor.execute(
                "DELETE FROM retrieval_posting WHERE chunk_id IN "
                "(SELECT id FROM retrieval_chunk WHERE revision_id = %s)",
                [revision_id],
            )
            started = time.perf_counter()
            cursor.execute(ADD_TERMS, {"revision": revision_id})
            middle = time.perf_counter()
            cursor.execute(ADD_POSTINGS, {"revision": revision_id})
            terms, postings = terms + middle - started, postings + time.perf_counter() - middle
            transaction.set_rollback(True)
    print(
        f"{len(ids)} revisions of 100 chunks: ADD_TERMS {terms / len(ids) * 1000:.1f} ms, "
        f"ADD_POSTINGS {postings / len(ids) * 1000:.1f} ms per revision; "
        f"ADD_TERMS {terms / (terms + postings):.1%} of the two"
    )


if __name__ == "__main__":
    main()
