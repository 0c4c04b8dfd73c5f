"""Search latency and HNSW recall on synthetic archives of 10k and 100k chunks.

    uv run --frozen python bench/search_latency.py [--sizes 10000,100000] [--queries 200]

Each size has its own database in the embedded server under var/bench-latency, kept between
runs (a rerun only measures). Synthetic archive: 100 chunks per document revision, 100-150
words each drawn by Zipf rank from an Indonesian/English-ish vocabulary plus the document's
topic words; 384-dim unit vectors clustered by topic and document. Half the documents are
private to one of four groups; the reader belongs to one. A query is 3-6 words of a random
chunk and that chunk's vector, perturbed. After each query ran once in every mode (warm-up),
it times the hybrid SQL alone (statement and parameters captured from search()), the whole
search() call (hybrid, k 10, pool 50, no model) and the lexical- and vector-only SQL, then
recall@10 of the vector arm under the reader's permissions against an exact NumPy scan, for
several ef_search values and a trial index build (rolled back afterwards).
Goals: hybrid SQL p95 <= 50 ms at 100k chunks; recall@10 >= 0.95.

Each size also prints its load time by phase, the biggest tables' sizes (heap, TOAST and
each index) and the memory settings the index builds ran with (maintenance_work_mem is
SET for the loading session: --maintenance-work-mem). Past --wide-max chunks (300k) the
copy of the old posting layout and the statements compared on it are skipped, past
--trial-build-max the trial HNSW build: at 1M either would cost as much as the load.
A size measured in no database of this run is set next to the figures bench/README.md
gives for it (REFERENCE: an earlier run, so the comparison is across runs).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var" / "bench-latency"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")
# Time what production runs: with DEBUG on, Django's debug cursor logs every query.
os.environ.setdefault("NALARKU_DEBUG", "0")
os.environ.setdefault("NALARKU_SECRET_KEY", "bench-only")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from pgvector.psycopg.vector import register_vector_info  # noqa: E402
from psycopg.types import TypeInfo  # noqa: E402

from retrieval.ingestion import ensure_space_index  # noqa: E402
from retrieval.lexical import postings_add, weights_refresh  # noqa: E402
from retrieval.models import (  # noqa: E402
    Chunk,
    ChunkEmbedding,
    Document,
    EmbeddingSpace,
    Posting,
    Revision,
)
from retrieval.search import hybrid_sql, search  # noqa: E402

DIMS, PER_REVISION, BATCH_DOCS, RECALL_QUERIES = 384, 100, 50, 100
GROUPS, READER = [f"latency-g{n}" for n in range(4)], "latency-reader"
SERVER_DB = connection.settings_dict["NAME"]
# Recall trials: (HNSW build (m, ef_construction), or None for the product's index as
# ensure_space_index builds it) and the (ef_search, iterative_scan) pairs tried on it. The
# first pair is what settings.py gives every connection.
HNSW_TRIALS = [
    (
        None,
        [
            (200, "relaxed_order"),
            (40, "relaxed_order"),
            (100, "relaxed_order"),
            (400, "relaxed_order"),
            (1000, "relaxed_order"),
            (200, "off"),
        ],
    ),
    ((16, 200), [(100, "relaxed_order"), (200, "relaxed_order")]),
]
# Server settings the load's index builds ran with, printed for every size.
MEMORY_SETTINGS = (
    "maintenance_work_mem",
    "max_parallel_maintenance_workers",
    "shared_buffers",
    "work_mem",
    "max_parallel_workers",
    "max_worker_processes",
)
# Figures of an earlier run (bench/README.md, "Past 100k"), printed next to this run's
# when the size is not measured in it: 300k was loaded in the layout before migration 0005
# (its 8.8 GB include the uncompacted old postings) and its load was one phase table short.
REFERENCE = {
    300_000: {
        "run": "earlier run, old posting layout (bench/README.md)",
        "load s": 527.0,
        "hnsw s": 58.0,
        "database": "8.8 GB",
        "postings": 31_050_000,
        "hybrid SQL": (23.1, 31.2),
        "lexical SQL": (18.9, 24.9),
        "vector SQL": (3.8, 5.8),
        "recall": 0.987,
    }
}
COMMON = """yang dan di ke dari untuk dengan ini itu pada the adalah dalam tidak akan atau of and to
juga oleh sudah bisa ada in is for kami anda saat lebih baru harus jika karena sebagai telah
hanya semua setelah masih belum dapat agar bagi serta on with this that are apa berapa""".split()
CONTENT = """pengguna fitur akun sandi baterai pembaruan pelanggan tersedia perangkat pengaturan
pengumuman dokumentasi layanan harga waktu pemutaran jaringan koneksi aplikasi versi rilis pratinjau
berlangganan pembayaran keamanan kebijakan privasi laporan artikel sumber revisi account password
battery update release feature customer preview available device settings network latency storage
backup region pricing plan support error timeout login ERR_CONN_RESET WH-1000XM5 v4.2.1""".split()


def unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def vocabulary(size: int = 30_000) -> tuple[list[str], np.ndarray]:
    """Words by Zipf rank and the cumulative distribution to draw them: function words
    first, then content words and a long tail of affixed Indonesian-looking roots (the
    stemmer folds their affixes as it would real ones)."""
    rng = np.random.default_rng(7)
    syllables = [c + v for c in "bcdghjklmnprstw" for v in "aiueo"]
    tail = dict.fromkeys(CONTENT)
    while len(tail) < size:
        root = "".join(rng.choice(syllables, rng.integers(2, 4))) + rng.choice(["", "n", "ng", "r"])
        prefix = rng.choice(["", "", "me", "ber", "di", "pe"])
        tail.setdefault(str(prefix + root + rng.choice(["", "an", "kan"])), None)
    ranked = list(tail)
    rng.shuffle(ranked)
    ranked = (COMMON + ranked)[:size]
    weights = 1 / (np.arange(size) + 2.7) ** 1.07
    return ranked, np.cumsum(weights) / weights.sum()


def use_database(size: int) -> bool:
    """Switch to this size's own database (created and migrated if new), so every
    archive is kept between runs. True if its archive is complete."""
    name = f"nalarku_latency_{int(size)}"
    connection.close()
    connection.settings_dict["NAME"] = SERVER_DB
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        if cursor.fetchone() is None:
            cursor.execute(f'CREATE DATABASE "{name}"')  # DDL: no bind parameters; an int
    connection.close()
    connection.settings_dict["NAME"] = name
    ContentType.objects.clear_cache()  # its ids belong to the previous database
    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:  # the HNSW index is built last but for VACUUM
        cursor.execute("SELECT to_regclass('chunk_embedding_hnsw_space_1') IS NOT NULL")
        return cursor.fetchone()[0] and Chunk.objects.count() == size


def build_memory(cursor, maintenance_work_mem: str) -> dict[str, str]:
    """SET maintenance_work_mem for this session (the sorts of the posting key and the
    HNSW graph are built in it) and return the memory settings the builds will use."""
    cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [maintenance_work_mem])
    return memory_settings(cursor)


def memory_settings(cursor) -> dict[str, str]:
    shown = {}
    for name in MEMORY_SETTINGS:
        cursor.execute("SELECT current_setting(%s)", [name])
        shown[name] = cursor.fetchone()[0]
    return shown


def hnsw_build(space: EmbeddingSpace) -> tuple[float, list[str]]:
    """The product's index (ensure_space_index) built in this session: seconds, and the
    server's notices (pgvector says when the graph stops fitting maintenance_work_mem)."""
    notices: list[str] = []
    connection.ensure_connection()

    def handler(d) -> None:  # not SET CONSTRAINTS outside a transaction, nor "already exists"
        if "maintenance_work_mem" in (d.message_primary or ""):
            notices.append(f"{d.severity}: {d.message_primary} {d.message_hint or ''}".strip())

    connection.connection.add_notice_handler(handler)
    try:
        started = time.perf_counter()
        ensure_space_index(space)
        return time.perf_counter() - started, notices
    finally:
        connection.connection.remove_notice_handler(handler)


def load(size: int, maintenance_work_mem: str) -> tuple[dict[str, float], dict]:
    """Fill the database with ``size`` synthetic chunks; seconds per phase, and what
    else the load measured (postings before compaction, the builds' settings)."""
    phases = dict.fromkeys(("rows", "postings", "weights", "compaction", "posting key", "hnsw", "vacuum"), 0.0)
    extra: dict = {}
    clock = [time.perf_counter()]

    def lap(name: str) -> None:
        phases[name] += time.perf_counter() - clock[0]
        clock[0] = time.perf_counter()

    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE retrieval_document, retrieval_embeddingspace, retrieval_termstat, "
            "retrieval_lexicalstats RESTART IDENTITY CASCADE"
        )
        # The impact index (the postings' primary key) and the HNSW index are built
        # once after loading: cheaper than row-by-row upkeep, and the weight refresh
        # rewrites every posting anyway.
        cursor.execute("ALTER TABLE retrieval_posting DROP CONSTRAINT IF EXISTS retrieval_posting_pkey")
        cursor.execute("DROP INDEX IF EXISTS chunk_embedding_hnsw_space_1")
        cursor.execute("DROP TABLE IF EXISTS bench_wide_posting, bench_wide_termstat, bench_part_posting")
    rng = np.random.default_rng(size)
    vocab, cdf = vocabulary()
    n_docs = size // PER_REVISION
    centres = unit(rng.standard_normal((max(20, n_docs // 5), DIMS)))
    topic_words = rng.integers(200, len(vocab), (len(centres), 40))
    groups = [Group.objects.get_or_create(name=name)[0] for name in GROUPS]
    User.objects.get_or_create(username=READER)[0].groups.set(groups[:1])
    space = EmbeddingSpace.objects.create(
        provider="synthetic", model="clustered-unit", version="1", dimensions=DIMS, is_active=True
    )
    raw = connection.connection.cursor()  # binary COPY of vectors needs pgvector's dumper
    register_vector_info(raw, TypeInfo.fetch(connection.connection, "vector"))
    for first in range(0, n_docs, BATCH_DOCS):
        numbers = range(first, min(first + BATCH_DOCS, n_docs))
        topics = rng.integers(len(centres), size=len(numbers))
        docs = Document.objects.bulk_create(
            [
                Document(
                    key=f"S{n:06d}",
                    title=" ".join(vocab[w] for w in topic_words[t][:4]).capitalize(),
                    source_type_id=str(rng.choice(["documentation", "announcement", "article"])),
                    public=bool(rng.random() < 0.5),
                    collection="editorial",
                )
                for n, t in zip(numbers, topics, strict=True)
            ]
        )
        Document.groups.through.objects.bulk_create(
            [
                Document.groups.through(document=d, group=groups[n % 4])
                for n, d in zip(numbers, docs, strict=True)
                if not d.public
            ]
        )
        texts = [
            [
                " ".join(
                    vocab[i]
                    for i in np.where(
                        rng.random(n) < 0.15,  # a document keeps coming back to its topic
                        rng.choice(topic_words[t], n),
                        np.searchsorted(cdf, rng.random(n)),
                    )
                )
                for n in rng.integers(100, 151, PER_REVISION)
            ]
            for t in topics
        ]
        revisions = Revision.objects.bulk_create(
            [
                Revision(
                    document=d,
                    number=1,
                    title=d.title,
                    content="\n\n".join(t),
                    format="text",
                    content_hash=f"{d.key}-1",
                    status="active",
                    chunker_version="synthetic",
                    document_date=date(2024, 1, 1) + timedelta(days=int(rng.integers(900))),
                )
                for d, t in zip(docs, texts, strict=True)
            ]
        )
        with (
            connection.cursor() as cursor,
            cursor.copy(
                "COPY retrieval_chunk (id, revision_id, document_id, position, key, kind, "
                "heading_path, text, token_count, char_start, char_end, lexeme_count) "
                "FROM STDIN"
            ) as copy,
        ):
            for n, (doc, revision, chunks) in enumerate(zip(docs, revisions, texts, strict=True)):
                start = 0
                for position, text in enumerate(chunks):
                    copy.write_row(
                        (
                            (first + n) * PER_REVISION + position + 1,
                            revision.pk,
                            doc.pk,
                            position,
                            f"{doc.key}:r1:p{position}",
                            "paragraph",
                            f"{doc.title} > Bagian {position // 10 + 1}",
                            text,
                            int(text.count(" ") * 1.6),
                            start,
                            start + len(text),
                            0,
                        )
                    )
                    start += len(text) + 2
        with raw.copy(
            "COPY retrieval_chunkembedding (chunk_id, space_id, embedding) FROM STDIN WITH (FORMAT BINARY)"
        ) as copy:
            copy.set_types(["int8", "int8", "vector"])
            for n, topic in enumerate(topics):  # a document's chunks share its direction
                direction = centres[topic] + 0.8 * unit(rng.standard_normal(DIMS))
                vectors = unit(direction + 0.6 * unit(rng.standard_normal((PER_REVISION, DIMS))))
                for position, vector in enumerate(vectors.astype(np.float32)):
                    copy.write_row(((first + n) * PER_REVISION + position + 1, space.pk, vector))
        lap("rows")
        for revision in revisions:
            postings_add(revision_id=revision.pk)
        lap("postings")
        if (done := numbers[-1] + 1) % 200 == 0:
            print(f"  {done * PER_REVISION:,} chunks, {sum(phases.values()):.0f} s", flush=True)
    raw.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT setval(pg_get_serial_sequence('retrieval_chunk', 'id'), %s)", [n_docs * PER_REVISION])
        cursor.execute(
            "UPDATE retrieval_document d SET current_revision_id = r.id "
            "FROM retrieval_revision r WHERE r.document_id = d.id"
        )
    weights_refresh(drift=0)  # every weight against the final average length
    lap("weights")
    with connection.cursor() as cursor:
        # The refresh wrote a second version of every posting; an operator compacts
        # after a bulk load as here (bench/README.md gives the size before).
        cursor.execute("SELECT pg_total_relation_size('retrieval_posting')")
        extra["bytes before compaction"] = cursor.fetchone()[0]
        extra["settings"] = build_memory(cursor, maintenance_work_mem)
        cursor.execute("VACUUM FULL retrieval_posting")
        lap("compaction")
        cursor.execute("ALTER TABLE retrieval_posting ADD PRIMARY KEY (term_id, weight, chunk_id)")
        lap("posting key")
    extra["hnsw notices"] = hnsw_build(space)[1]  # the HNSW graph is built in memory
    lap("hnsw")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # visibility map for index-only scans, fresh statistics
    lap("vacuum")
    return phases, extra


# The postings as they were laid out before the lean index (migration 0005):
# the term as text, 8-byte ids and weights, a surrogate key and a B-tree on the
# chunk. Built from the lean tables in the same database, so both layouts hold
# the same postings and are measured, size and speed, in one run.
WIDE_LAYOUT = """
CREATE TABLE bench_wide_posting (id bigserial PRIMARY KEY, chunk_id bigint NOT NULL, term text NOT NULL,
                                 tf integer NOT NULL, weight double precision NOT NULL);
INSERT INTO bench_wide_posting (chunk_id, term, tf, weight)
SELECT p.chunk_id, w.lexeme, p.tf, p.weight FROM retrieval_posting p JOIN retrieval_term w ON w.id = p.term_id
ORDER BY p.chunk_id, w.lexeme;
CREATE INDEX bench_wide_posting_chunk ON bench_wide_posting (chunk_id);
CREATE INDEX bench_wide_posting_impact ON bench_wide_posting (term, weight DESC) INCLUDE (chunk_id);
CREATE TABLE bench_wide_termstat (id bigserial PRIMARY KEY, collection varchar(100) NOT NULL, term text NOT NULL,
                                  df integer NOT NULL, UNIQUE (collection, term));
INSERT INTO bench_wide_termstat (collection, term, df)
SELECT s.collection, w.lexeme, s.df FROM retrieval_termstat s JOIN retrieval_term w ON w.id = s.term_id;
VACUUM ANALYZE bench_wide_posting;
VACUUM ANALYZE bench_wide_termstat;
"""


def layout_copy(table: str, statements: str, maintenance_work_mem: str) -> float:
    """Build a copy of the postings in another layout (``statements``)
    unless ``table`` is there; seconds taken (0 when reused)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [table])
        if cursor.fetchone()[0]:
            return 0.0
        started = time.perf_counter()
        cursor.execute("SELECT set_config('maintenance_work_mem', %s, false)", [maintenance_work_mem])
        for statement in filter(str.strip, statements.split(";")):
            cursor.execute(statement)
        return time.perf_counter() - started


def wide_layout() -> float:
    """The layout before migration 0005, copied for comparison."""
    return layout_copy("bench_wide_termstat", WIDE_LAYOUT, "1GB")


# Declarative partitioning of the postings by hash of the term (issue 22):
# the same rows and key as retrieval_posting, in PARTITIONS tables. The
# lexical arm reads one term at a time (p.term_id = q.term_id), so each
# probe is pruned at run time to one partition whose key is smaller; the
# archive has one collection, so partitioning by collection would prune
# nothing here.
PARTITIONS = 8
PARTITIONED_LAYOUT = f"""
CREATE TABLE bench_part_posting (term_id integer NOT NULL, weight real NOT NULL, chunk_id integer NOT NULL,
                                 tf smallint NOT NULL) PARTITION BY HASH (term_id);
{
    "".join(
        f"CREATE TABLE bench_part_posting_{n} PARTITION OF bench_part_posting "
        f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {n});"
        for n in range(PARTITIONS)
    )
}
INSERT INTO bench_part_posting (term_id, weight, chunk_id, tf)
SELECT term_id, weight, chunk_id, tf FROM retrieval_posting;
ALTER TABLE bench_part_posting ADD PRIMARY KEY (term_id, weight, chunk_id);
VACUUM ANALYZE bench_part_posting;
"""


def partitioned_layout(maintenance_work_mem: str) -> float:
    """The postings hash-partitioned by term, copied for comparison."""
    return layout_copy("bench_part_posting", PARTITIONED_LAYOUT, maintenance_work_mem)


def partitioned_sql(sql: str | None = None) -> str:
    lean = "FROM retrieval_posting p\n            WHERE p.term_id = q.term_id"
    sql = sql or hybrid_sql(DIMS)
    assert sql.count(lean) == 1, "the lexical arm changed: update partitioned_sql()"
    return sql.replace(lean, "FROM bench_part_posting p\n            WHERE p.term_id = q.term_id")


TABLE_SIZES = """
SELECT c.relname, pg_total_relation_size(c.oid), pg_relation_size(c.oid), pg_indexes_size(c.oid),
       (SELECT coalesce(json_agg(json_build_array(i.relname, pg_relation_size(i.oid))
                                 ORDER BY pg_relation_size(i.oid) DESC), '[]')
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = c.oid)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'r' AND n.nspname = 'public'
ORDER BY 2 DESC LIMIT %s
"""


def table_sizes(limit: int = 6) -> list[tuple[str, int, int, int, int, list]]:
    """The biggest tables: name, total bytes, heap (main fork), TOAST and maps,
    indexes, and each index with its bytes."""
    with connection.cursor() as cursor:
        cursor.execute(TABLE_SIZES, [limit])
        return [
            (name, total, heap, total - heap - indexes, indexes, each)
            for name, total, heap, indexes, each in cursor.fetchall()
        ]


def gb(n: float) -> str:
    return f"{n / 2**30:.2f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


def print_sizes(size: int, rows: list) -> None:
    print("  biggest tables, bytes (per chunk): total = heap + TOAST/maps + indexes")
    for name, total, heap, rest, indexes, each in rows:
        print(
            f"    {name:<28}{gb(total):>10} ({total / size:>7,.0f}) = {gb(heap):>9} + {gb(rest):>8} + {gb(indexes):>9}"
        )
        for index, b in each:
            if b >= 2**20:
                print(f"      {index:<42}{gb(b):>10} ({b / size:>7,.0f})")


def layout_bytes(wide: bool = True) -> dict[str, dict[str, int]]:
    """Bytes of each layout's postings (heap, TOAST, every index) and of its
    vocabulary and term statistics."""
    tables = {
        "lean": (["retrieval_posting"], ["retrieval_term", "retrieval_termstat"]),
        "wide": (["bench_wide_posting"], ["bench_wide_termstat"]),
    }
    if not wide:
        del tables["wide"]
    sizes = {}
    with connection.cursor() as cursor:
        for layout, (postings, vocabulary) in tables.items():
            sizes[layout] = {}
            for part, names in (("postings", postings), ("vocabulary", vocabulary)):
                cursor.execute("SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(%s::text[]) t", [names])
                sizes[layout][part] = int(cursor.fetchone()[0])
            cursor.execute(
                "SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i WHERE i.indrelid = %s::regclass",
                [postings[0]],
            )
            sizes[layout]["posting indexes"] = int(cursor.fetchone()[0])
    return sizes


class PreparedQuery:
    """An EmbeddingProvider whose query vector is ready, so no model runs."""

    provider, model, version, dimensions = "synthetic", "clustered-unit", "1", DIMS

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def embed_query(self, text: str) -> np.ndarray:
        return self.vector

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError("queries only")


def timed_search(text: str, vector: np.ndarray, reader: User, mode: str) -> tuple[float, dict]:
    """Milliseconds of one search() call, and the parameters it bound to hybrid_sql(DIMS),
    captured so the statement timed alone is exactly the product's."""
    captured = []

    def grab(execute, sql, params, many, context):
        if sql == hybrid_sql(DIMS):
            captured.append(params)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(grab):
        started = time.perf_counter()
        search(text, reader, mode=mode, k=10, pool=50, provider=PreparedQuery(vector))
        return (time.perf_counter() - started) * 1000, captured[0]


# The lexical arm's permission check as it was before issue 14 (the
# permission predicate per posting, which the planner turned into hash joins
# over every document and revision when those tables are small), kept here
# to time today's statement side by side with it in one run.
_NOW_CHECK = re.compile(r"AND CASE WHEN \(SELECT c\.revision_id.*?END", re.S)


def before_sql() -> str:
    from retrieval.search import _VISIBLE

    sql, found = _NOW_CHECK.subn(
        lambda _: f"AND (SELECT true FROM retrieval_chunk c WHERE c.id = p.chunk_id AND {_VISIBLE})", wide_sql()
    )
    assert found == 1, "the lexical arm's permission check moved: update before_sql()"
    return sql


# Today's statement reading the wide layout: the term by its text, the
# impact index's own order.
_LEAN_READS = [
    (
        """    FROM retrieval_term w
    JOIN retrieval_termstat ts ON ts.term_id = w.id AND ts.collection = %(collection)s
    JOIN retrieval_lexicalstats s ON s.collection = %(collection)s
    WHERE ts.df > 0 AND %(use_lexical)s
      AND w.lexeme IN""",
        """    FROM bench_wide_termstat ts
    JOIN retrieval_lexicalstats s ON s.collection = %(collection)s
    WHERE ts.collection = %(collection)s AND ts.df > 0 AND %(use_lexical)s
      AND ts.term IN""",
    ),
    ("SELECT ts.term_id, ln(", "SELECT ts.term, ln("),
    (
        "FROM retrieval_posting p\n            WHERE p.term_id = q.term_id",
        "FROM bench_wide_posting p\n            WHERE p.term = q.term",
    ),
    ("ORDER BY p.weight DESC, p.chunk_id DESC LIMIT", "ORDER BY p.weight DESC LIMIT"),
]


def wide_sql() -> str:
    sql = hybrid_sql(DIMS)
    for lean, wide in _LEAN_READS:
        assert sql.count(lean) == 1, f"the lexical arm changed: update _LEAN_READS ({lean[:40]!r})"
        sql = sql.replace(lean, wide)
    return sql


def run_sql(params: dict, sql: str | None = None) -> tuple[float, list[int]]:
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(sql or hybrid_sql(DIMS), params)
        rows = cursor.fetchall()
    return (time.perf_counter() - started) * 1000, [row[0] for row in rows]


def explained(params: list[dict], statements: dict[str, str | None]) -> dict[str, np.ndarray]:
    """Per statement and query, from EXPLAIN (ANALYZE, BUFFERS): executor ms,
    planning ms and shared buffers hit, to tell executor work from the rest."""
    rows = {name: [] for name in statements}
    for n, p in enumerate(params):
        for name in list(statements) if n % 2 == 0 else list(reversed(statements)):  # first pays the cache
            sql = statements[name]
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + (sql or hybrid_sql(DIMS)), p)
                plan = cursor.fetchone()[0][0]
            rows[name].append((plan["Execution Time"], plan["Planning Time"], plan["Plan"].get("Shared Hit Blocks", 0)))
    return {name: np.array(r, dtype=float) for name, r in rows.items()}


def pct(ms: list[float]) -> str:
    return "{:6.1f} / {:6.1f}".format(*np.percentile(ms, [50, 95]))


def measure(
    size: int,
    n_queries: int,
    explain: bool,
    explain_compare: int = 0,
    *,
    wide_layout: bool = True,
    trial_builds: bool = True,
    maintenance_work_mem: str = "1GB",
) -> dict:
    reader = User.objects.get(username=READER)
    count = ChunkEmbedding.objects.count()  # vectors are streamed into one array: 150 MB at 100k
    ids, vectors = np.empty(count, np.int64), np.empty((count, DIMS), np.float32)
    rows = ChunkEmbedding.objects.values_list("chunk_id", "embedding").iterator(chunk_size=2000)
    for n, (chunk_id, vector) in enumerate(rows):
        ids[n], vectors[n] = chunk_id, vector
    visible = np.isin(
        ids,
        list(
            Chunk.objects.filter(
                document__in=Document.objects.visible_to(reader),
                document__collection="editorial",
                revision__status="active",
            ).values_list("pk", flat=True)
        ),
    )
    rng = np.random.default_rng(size + 1)
    picked = rng.choice(len(ids), n_queries, replace=False)
    texts = dict(Chunk.objects.filter(pk__in=ids[picked].tolist()).values_list("pk", "text"))
    queries = [
        (
            " ".join(rng.choice(texts[ids[i]].split(), rng.integers(3, 7), replace=False)),
            unit(vectors[i] + 0.5 * unit(rng.standard_normal(DIMS))).astype(np.float32),
        )
        for i in picked
    ]
    # Warm-up: every query runs once in each mode, which also captures its statement.
    params = {
        mode: [timed_search(t, v, reader, mode)[1] for t, v in queries] for mode in ("hybrid", "lexical", "vector")
    }
    result = {
        "visible": visible.mean(),
        "hybrid SQL": [run_sql(p)[0] for p in params["hybrid"]],
        "search() hybrid": [timed_search(t, v, reader, "hybrid")[0] for t, v in queries],
        "lexical SQL": [run_sql(p)[0] for p in params["lexical"]],
        "vector SQL": [run_sql(p)[0] for p in params["vector"]],
        "recall": [],
    }
    result["params"] = params  # for the partitioned comparison, after the sizes are printed
    if wide_layout:
        compare_layouts(result, params, explain_compare)
    if explain:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + hybrid_sql(DIMS), params["hybrid"][0])
            print("\n".join(row[0][:160] for row in cursor.fetchall()))
    # Exact top 10 by cosine, over only the chunks the reader may see.
    seen_ids, seen_vectors = ids[visible], vectors[visible]
    truth = [set(seen_ids[np.argpartition(-(seen_vectors @ v), 10)[:10]].tolist()) for _, v in queries[:RECALL_QUERIES]]
    for build, trials in HNSW_TRIALS if trial_builds else HNSW_TRIALS[:1]:
        with transaction.atomic(), connection.cursor() as cursor:  # a trial index is rolled back
            started = time.perf_counter()
            if build:
                cursor.execute("SELECT set_config('maintenance_work_mem', %s, true)", [maintenance_work_mem])
                cursor.execute("DROP INDEX chunk_embedding_hnsw_space_1")
                cursor.execute(  # DDL takes no bind parameters; integers from HNSW_TRIALS
                    "CREATE INDEX chunk_embedding_hnsw_space_1 ON retrieval_chunkembedding "
                    f"USING hnsw ((embedding::vector({DIMS})) vector_cosine_ops) "
                    f"WITH (m = {build[0]:d}, ef_construction = {build[1]:d}) WHERE space_id = 1"
                )
            seconds = time.perf_counter() - started
            if build:
                index = f"m {build[0]}, ef_c {build[1]} (built in {seconds:.0f} s)"
            else:  # the index ensure_space_index builds, as it is in this database
                cursor.execute(
                    "SELECT substring(indexdef from 'WITH \\(([^)]*)\\)') FROM pg_indexes "
                    "WHERE indexname = 'chunk_embedding_hnsw_space_1'"
                )
                index = f"{cursor.fetchone()[0]} (product)"
            for ef_search, scan in trials:
                cursor.execute(f"SET LOCAL hnsw.ef_search = {ef_search:d}")
                cursor.execute("SET LOCAL hnsw.iterative_scan = %s", [scan])
                runs = [run_sql(p) for p in params["vector"][:RECALL_QUERIES]]
                recall = np.mean([len(t & set(found)) / 10 for t, (_, found) in zip(truth, runs, strict=True)])
                hybrid = [run_sql(p)[0] for p in params["hybrid"][:RECALL_QUERIES]]
                result["recall"].append(
                    (f"{index}; ef_search {ef_search}, {scan}", recall, [ms for ms, _ in runs], hybrid)
                )
            transaction.set_rollback(True)
    return result


def compare_layouts(result: dict, params: dict, explain_compare: int) -> None:
    """Side by side in the same run, alternating query by query: today's statement,
    the same on the wide layout, and the statement before issue 14 (wide layout,
    permission predicate per posting); results compared with today's."""
    wide, before = wide_sql(), before_sql()
    runs = {"now": [], "wide": [], "before": [], "lexical now": [], "lexical wide": []}
    same = {"wide": 0, "before": 0}
    # Compared in pairs, the pair's order turning with every query: who runs
    # first pays for the pages both read, and 'wide' and 'before' read the
    # same tables, so in one round of three they would warm each other.
    statements = {"now": None, "wide": wide, "before": before}
    runs["now vs before"] = []
    for n, (hybrid_params, lexical_params) in enumerate(zip(params["hybrid"], params["lexical"], strict=True)):
        for other, now_key in (("wide", "now"), ("before", "now vs before")):
            pair = ["now", other] if n % 2 == 0 else [other, "now"]
            done = {name: run_sql(hybrid_params, statements[name]) for name in pair}
            runs[now_key].append(done["now"][0])
            runs[other].append(done[other][0])
            same[other] += done["now"][1] == done[other][1]
        for name in ("now", "wide") if n % 2 == 0 else ("wide", "now"):
            runs[f"lexical {name}"].append(run_sql(lexical_params, statements[name])[0])
    result.update({"side by side": runs, "same results": same})
    if explain_compare:
        result["explained"] = explained(params["hybrid"][:explain_compare], {"lean": None, "wide": wide})


def compare_partitioned(result: dict, params: dict) -> None:
    """Today's statement on retrieval_posting and on its hash-partitioned copy,
    hybrid and lexical, in pairs whose order turns with every query."""
    runs = {"hybrid now": [], "hybrid partitioned": [], "lexical now": [], "lexical partitioned": []}
    same = 0
    for n, (hybrid_params, lexical_params) in enumerate(zip(params["hybrid"], params["lexical"], strict=True)):
        for mode, p in (("hybrid", hybrid_params), ("lexical", lexical_params)):
            pair = ["now", "partitioned"] if n % 2 == 0 else ["partitioned", "now"]
            done = {name: run_sql(p, partitioned_sql() if name == "partitioned" else None) for name in pair}
            for name in pair:
                runs[f"{mode} {name}"].append(done[name][0])
            same += mode == "hybrid" and done["now"][1] == done["partitioned"][1]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits "
            "WHERE inhparent = 'bench_part_posting'::regclass"
        )
        copy_bytes = cursor.fetchone()[0]
        cursor.execute("SELECT pg_total_relation_size('retrieval_posting')")
        lean_bytes = cursor.fetchone()[0]
    result["partitioned"] = {"runs": runs, "same": same, "bytes": copy_bytes, "lean bytes": lean_bytes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="chunk counts, comma-separated")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per size")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE one hybrid query")
    parser.add_argument(
        "--explain-compare",
        type=int,
        default=0,
        metavar="N",
        help="EXPLAIN ANALYZE N hybrid queries on the lean and the wide layout",
    )
    parser.add_argument(
        "--maintenance-work-mem",
        default="5GB",
        metavar="SIZE",
        help="SET for the session that builds the posting key and HNSW index (5GB)",
    )
    parser.add_argument(
        "--wide-max",
        type=int,
        default=300_000,
        metavar="CHUNKS",
        help="copy the old posting layout and compare on it up to this size (300000)",
    )
    parser.add_argument(
        "--trial-build-max",
        type=int,
        default=300_000,
        metavar="CHUNKS",
        help="build the trial HNSW index up to this size (300000)",
    )
    parser.add_argument(
        "--partitioned-max",
        type=int,
        default=0,
        metavar="CHUNKS",
        help="copy the postings into a table partitioned by hash of the term and compare "
        f"on it up to this size ({PARTITIONS} partitions; 0, the default: not at all)",
    )
    args = parser.parse_args()

    results = {}
    for size in [int(s) for s in args.sizes.split(",")]:
        wide = size <= args.wide_max
        load_info = {"size": size}
        if use_database(size):
            print(f"{size:,} chunks: archive complete, reused")
            # The product's index: rebuilt when its parameters changed
            # (ensure_space_index creates it if missing; the name says the build).
            with connection.cursor() as cursor:
                cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_embedding_hnsw_space_1'")
                row = cursor.fetchone()
                if row and "ef_construction='200'" not in row[0].replace(" ", ""):
                    cursor.execute("DROP INDEX chunk_embedding_hnsw_space_1")
                    row = None
                if row is None:  # to be built now: with the settings of a load
                    load_info["settings"] = build_memory(cursor, args.maintenance_work_mem)
            seconds, notices = hnsw_build(EmbeddingSpace.objects.get(is_active=True))
            print(f"  product HNSW index ready in {seconds:.1f} s")
            if "settings" in load_info:
                load_info.update({"hnsw s": seconds, "hnsw notices": notices})
        else:
            started = time.perf_counter()
            phases, extra = load(size, args.maintenance_work_mem)
            load_info.update(extra, phases=phases, seconds=time.perf_counter() - started, **{"hnsw s": phases["hnsw"]})
            print(
                f"{size:,} chunks loaded in {load_info['seconds']:.1f} s ("
                + ", ".join(f"{k} {v:.1f} s" for k, v in phases.items())
                + f"); postings {extra['bytes before compaction'] / size:,.0f} bytes per chunk"
                " before VACUUM FULL"
            )
        if "settings" in load_info:
            print(
                "  index builds ran with "
                + ", ".join(f"{k} {v}" for k, v in load_info["settings"].items())
                + f"; HNSW build {load_info['hnsw s']:.1f} s"
            )
            for notice in load_info["hnsw notices"]:
                print(f"  HNSW build said {notice}")
        else:  # nothing built: the server's settings the queries ran with
            with connection.cursor() as cursor:
                load_info["settings"] = memory_settings(cursor)
            print("  server settings " + ", ".join(f"{k} {v}" for k, v in load_info["settings"].items()))
        if wide:
            seconds = wide_layout()
            if seconds:
                print(f"  wide layout (before migration 0005) copied for comparison in {seconds:.0f} s")
        else:
            print(f"  wide layout not copied past {args.wide_max:,} chunks: lean index only")
        if size <= args.partitioned_max:
            seconds = partitioned_layout(args.maintenance_work_mem)
            load_info["partitioned s"] = seconds
            if seconds:
                print(f"  postings copied into {PARTITIONS} hash partitions of the term in {seconds:.0f} s")
        load_info["tables"] = table_sizes()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            load_info["database"] = cursor.fetchone()[0]
            load_info["postings"] = Posting.objects.count()
            print(
                f"  database {gb(load_info['database'])}, {load_info['postings']:,} postings, "
                f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
            )
        print_sizes(size, load_info["tables"])
        results[size] = measure(
            size,
            args.queries,
            args.explain,
            args.explain_compare,
            wide_layout=wide,
            trial_builds=size <= args.trial_build_max,
            maintenance_work_mem=args.maintenance_work_mem,
        )
        results[size]["bytes"] = layout_bytes(wide)
        results[size]["load"] = load_info
        if size <= args.partitioned_max:
            compare_partitioned(results[size], results[size].pop("params"))
        results[size].pop("params", None)

    columns = ["hybrid SQL", "search() hybrid", "lexical SQL", "vector SQL"]
    print(f"\nms, p50 / p95 over {args.queries} queries (k 10, pool 50); 'visible': share of chunks the reader may see")
    print(f"{'chunks':>8}{'visible':>9}" + "".join(f"{c:>18}" for c in columns) + f"{'recall@10':>11}")
    for size, r in results.items():
        print(
            f"{size:>8,}{r['visible']:>9.1%}"
            + "".join(f"{pct(r[c]):>18}" for c in columns)
            + f"{r['recall'][0][1]:>11.3f}"
        )
    references = {size: ref for size, ref in REFERENCE.items() if size not in results}
    for size, ref in references.items():
        print(
            f"{size:>8,}{'':>9}"
            + "".join(f"{'{:6.1f} / {:6.1f}'.format(*ref[c]) if c in ref else '—':>18}" for c in columns)
            + f"{ref['recall']:>11.3f}   ({ref['run']})"
        )
    print("\nload and size: seconds by phase; 'hnsw' is the product's index (m 16, ef_construction 200)")
    print(
        f"{'chunks':>8}{'load s':>9}{'s/1k chunks':>12}  {'phases, s':<74}{'hnsw s':>8}{'database':>10}{'postings':>14}"
    )
    for size, r in results.items():
        info = r["load"]
        phases = ", ".join(f"{k} {v:.0f}" for k, v in info.get("phases", {}).items()) or "(reused)"
        loaded = (
            f"{info['seconds']:>9.0f}{info['seconds'] / size * 1000:>12.2f}"
            if "seconds" in info
            else f"{'—':>9}{'—':>12}"
        )
        hnsw = f"{info['hnsw s']:>8.0f}" if "hnsw s" in info else f"{'—':>8}"
        print(f"{size:>8,}{loaded}  {phases:<74}{hnsw}{gb(info['database']):>10}{info['postings']:>14,}")
    for size, ref in references.items():
        print(
            f"{size:>8,}{ref['load s']:>9.0f}{ref['load s'] / size * 1000:>12.2f}  {'(' + ref['run'] + ')':<74}"
            f"{ref['hnsw s']:>8.0f}{ref['database']:>10}{ref['postings']:>14,}"
        )
    for size, r in results.items():
        said = "builds ran with" if "hnsw s" in r["load"] else "server settings (nothing built)"
        print(f"{size:>8,}  {said} " + ", ".join(f"{k} {v}" for k, v in r["load"]["settings"].items()))
    print(
        f"\nvector arm under the reader's permissions: recall@10 against an exact scan, "
        f"ms p50 / p95 ({min(RECALL_QUERIES, args.queries)} queries)"
    )
    print(f"{'chunks':>8}  {'HNSW index; query settings':<62}{'recall@10':>10}{'vector SQL':>18}{'hybrid SQL':>18}")
    for size, r in results.items():
        for label, recall, vector_ms, hybrid_ms in r["recall"]:
            print(f"{size:>8,}  {label:<62}{recall:>10.3f}{pct(vector_ms):>18}{pct(hybrid_ms):>18}")
    print(
        "\nside by side, alternating query by query: 'now' is today's statement on the lean postings, "
        "'wide' the same on the layout before migration 0005, 'before' the statement before issue 14 "
        "on the wide layout; ratios are now / other"
    )
    print(
        f"{'chunks':>8}  {'statement':<14}{'now':>18}{'other':>18}{'p50 ratio':>11}{'p95 ratio':>11}{'same top 10':>13}"
    )
    for size, r in results.items():
        if "side by side" not in r:
            print(f"{size:>8,}  (not measured: no copy of the wide layout past --wide-max)")
            continue
        runs, n = r["side by side"], len(r["side by side"]["now"])
        for label, now, other, same in (
            ("hybrid/wide", "now", "wide", r["same results"]["wide"]),
            ("hybrid/before", "now vs before", "before", r["same results"]["before"]),
            ("lexical/wide", "lexical now", "lexical wide", None),
        ):
            ratio50 = np.percentile(runs[now], 50) / np.percentile(runs[other], 50)
            ratio95 = np.percentile(runs[now], 95) / np.percentile(runs[other], 95)
            print(
                f"{size:>8,}  {label:<14}{pct(runs[now]):>18}{pct(runs[other]):>18}{ratio50:>11.2f}"
                f"{ratio95:>11.2f}" + (f"{same:>8}/{n}" if same is not None else "")
            )
    if any("partitioned" in r for r in results.values()):
        print(
            f"\npostings partitioned by hash of the term ({PARTITIONS} partitions), side by side with "
            "retrieval_posting, alternating query by query; ratios are partitioned / now"
        )
        print(
            f"{'chunks':>8}  {'statement':<10}{'now':>18}{'partitioned':>18}{'p50 ratio':>11}{'p95 ratio':>11}"
            f"{'same top 10':>13}{'copy s':>8}{'size part / now':>22}"
        )
        for size, r in results.items():
            if "partitioned" not in r:
                continue
            runs, n = r["partitioned"]["runs"], len(r["partitioned"]["runs"]["hybrid now"])
            for mode in ("hybrid", "lexical"):
                now, part = runs[f"{mode} now"], runs[f"{mode} partitioned"]
                print(
                    f"{size:>8,}  {mode:<10}{pct(now):>18}{pct(part):>18}"
                    f"{np.percentile(part, 50) / np.percentile(now, 50):>11.2f}"
                    f"{np.percentile(part, 95) / np.percentile(now, 95):>11.2f}"
                    + (
                        f"{r['partitioned']['same']:>8}/{n}{r['load']['partitioned s']:>8.0f}"
                        f"{gb(r['partitioned']['bytes']) + ' / ' + gb(r['partitioned']['lean bytes']):>22}"
                        if mode == "hybrid"
                        else ""
                    )
                )
    print("\nlexical index, bytes per chunk (heap, TOAST and indexes; goal: postings <= 8 KB at 100k):")
    print(
        f"{'chunks':>8}  {'layout':<8}{'postings':>10}{'of which indexes':>18}{'vocabulary+df':>15}"
        f"{'postings ratio':>16}"
    )
    for size, r in results.items():
        for layout, b in r["bytes"].items():
            ratio = f"{b['postings'] / r['bytes']['wide']['postings']:>16.2f}" if "wide" in r["bytes"] else ""
            print(
                f"{size:>8,}  {layout:<8}{b['postings'] / size:>10,.0f}{b['posting indexes'] / size:>18,.0f}"
                f"{b['vocabulary'] / size:>15,.0f}{ratio}"
            )
    for size, r in results.items():
        for layout, a in r.get("explained", {}).items():
            print(
                f"EXPLAIN ANALYZE, {size:,} chunks, {layout}, {len(a)} hybrid queries: executor "
                f"{pct(a[:, 0])} ms, planning {np.percentile(a[:, 1], 50):.2f} ms p50, "
                f"buffers hit {np.percentile(a[:, 2], 50):,.0f} p50"
            )
    size = max(results)
    print(
        f"\ngoals at {size:,} chunks: hybrid SQL p95 "
        f"{np.percentile(results[size]['hybrid SQL'], 95):.1f} ms (<= 50), "
        f"recall@10 {results[size]['recall'][0][1]:.3f} (>= 0.95)"
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {rss:.0f} MB (the PostgreSQL server's memory is not counted)")


if __name__ == "__main__":
    main()
