"""Ingestion throughput with one and with two worker processes, in one run.

    uv run python bench/worker_throughput.py [--revisions 24] [--paragraphs 8] [--rounds 2]

The same synthetic corpus (Indonesian-ish paragraphs, seeded) is ingested
once per round and worker count, as new documents, with the embedding cache
emptied before each, so every round embeds everything: revisions are saved
and enqueued on the ingest queue, where K real worker processes
(``celery -Q ingest -c 1``, as scripts/worker.sh starts them; one model per
process, loaded before the clock starts) take them. Timed from the first
save to the last revision active. Rounds alternate 1, 2, 1, 2 … so neither always runs on a warmer
machine. Prints revisions and chunks per minute for each count and the
ratio of two workers to one. Own data directory: var/bench-workers.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var" / "bench-workers"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/8")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from nalarku_site.celery import app as celery_app  # noqa: E402
from retrieval.ingestion import RevisionInput, revision_submit  # noqa: E402
from retrieval.models import Chunk, EmbeddingCacheEntry, Revision, RevisionStatus  # noqa: E402
from retrieval.tasks import index_after_commit  # noqa: E402

WORDS = (
    "sinkronisasi agen konsol kuota paket pelanggan wilayah penyimpanan cadangan pemulihan izin token "
    "perangkat jaringan proxy firewall batas waktu laporan tagihan harga rilis fitur dokumentasi kebijakan "
    "retensi log audit server klien unggah unduh berkas folder tim admin keamanan enkripsi kunci"
).split()


def corpus(revisions: int, paragraphs: int) -> list[str]:
    rng = random.Random(11)
    texts = []
    for n in range(revisions):
        body = [f"# Dokumen uji {n}"]
        for p in range(paragraphs):
            words = [rng.choice(WORDS) for _ in range(rng.randint(70, 110))]
            body.append(f"Paragraf {p}: " + " ".join(words).capitalize() + ".")
        texts.append("\n\n".join(body))
    return texts


def _database_url() -> str:
    db = connection.settings_dict
    host = db["HOST"] or db.get("OPTIONS", {}).get("host", "")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgresql://{db['USER']}@{quote(host, safe='')}{port}/{db['NAME']}"


def round_run(texts: list[str], workers: int, tag: str) -> tuple[float, int]:
    EmbeddingCacheEntry.objects.all().delete()
    celery_app.control.purge()
    env = {**os.environ, "DATABASE_URL": _database_url(), "NALARKU_WARM_START": "1", "OMP_NUM_THREADS": "1"}
    names = [f"bench{k}-{tag}" for k in range(workers)]
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "nalarku_site",
                "worker",
                "-Q",
                "ingest",
                "-P",
                "prefork",
                "-c",
                "1",
                "--hostname",
                f"{name}@%h",
                "--without-gossip",
                "--without-mingle",
                "-l",
                "WARNING",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name in names
    ]
    try:
        # Timed from when every worker answers (its model loads as its child starts).
        deadline = time.monotonic() + 120
        while len(celery_app.control.ping(timeout=1.0)) < workers:
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not start")
        time.sleep(3)
        started = time.perf_counter()
        ids = [
            revision_submit(
                data=RevisionInput(key=f"{tag}-{n}", title=f"Uji {n}", content=text, public=True)
            ).revision.pk
            for n, text in enumerate(texts)
        ]
        for revision_id in ids:
            index_after_commit(revision_id)
        while Revision.objects.filter(pk__in=ids, status=RevisionStatus.ACTIVE).count() < len(ids):
            if Revision.objects.filter(pk__in=ids, status=RevisionStatus.FAILED).exists():
                raise SystemExit("a revision failed to index")
            time.sleep(0.2)
        seconds = time.perf_counter() - started
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=60)
    return seconds, Chunk.objects.filter(revision_id__in=ids).count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--revisions", type=int, default=24)
    parser.add_argument("--paragraphs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2, help="rounds per worker count (alternating)")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    texts = corpus(args.revisions, args.paragraphs)
    results: dict[int, list[float]] = {1: [], 2: []}
    chunks = 0
    for n in range(args.rounds):
        for workers in (1, 2) if n % 2 == 0 else (2, 1):
            seconds, chunks = round_run(texts, workers, f"b{time.time_ns()}")
            results[workers].append(seconds)
            print(
                f"round {n + 1}, {workers} worker(s): {len(texts)} revisions, {chunks} chunks in {seconds:.1f} s",
                flush=True,
            )
    print(
        f"\n{len(texts)} revisions ({chunks} chunks) per round, embedding cache emptied each round, "
        f"{os.cpu_count()} cores"
    )
    print(f"{'workers':>8}{'median s':>10}{'revisions/min':>15}{'chunks/min':>12}")
    for workers, times in results.items():
        median = statistics.median(times)
        print(f"{workers:>8}{median:>10.1f}{len(texts) / median * 60:>15.1f}{chunks / median * 60:>12.0f}")
    print(f"two workers / one: {statistics.median(results[1]) / statistics.median(results[2]):.2f}× the throughput")


if __name__ == "__main__":
    main()
