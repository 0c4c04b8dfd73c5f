"""The lexical index: BM25 over postings built by PostgreSQL's own tokenizer.

PostgreSQL's ``ts_rank``/``ts_rank_cd`` have no IDF and rank far worse than
BM25 (docs/design.md, measured: nDCG@10 0.28–0.58 against 0.785), so terms come
from ``to_tsvector('indonesian', …)`` — the same parser and stemmer the query
goes through — and are scored as BM25 from a postings table. Each posting
stores its BM25 weight without IDF so a query reads only the top postings of
each term, in index order (impact-ordered postings).

The answer engine reads questions against the same index here: the stems
of a text (`stems`), the stopwords, and each stem's IDF (`idf_weights`).

Identifiers such as ``WH-1000XM5``, ``ERR_CONN_RESET``, ``CVE-2026-1234`` and
``v4.2.1`` come out of the ``indonesian`` configuration exactly as out of
``simple`` (the parser splits them, the stemmer leaves the pieces alone), so a
second configuration would only count unstemmed words twice.

These statements are raw SQL because they run ``unnest(to_tsvector(…))``
and set-based upserts that the ORM cannot express.
"""

from __future__ import annotations

import math

from django.db import connection

K1 = 1.2
B = 0.75
TS_CONFIG = "indonesian"

# Lexemes of the revision's chunks (heading path included: it is part of the
# chunk's meaning).
_LEXEMES = """
    SELECT c.id AS chunk_id, t.lexeme, cardinality(t.positions) AS tf
    FROM retrieval_chunk c,
         unnest(to_tsvector('indonesian', c.heading_path || E'\\n' || c.text)) AS t
    WHERE c.revision_id = %(revision)s
"""

# New lexemes join the vocabulary in a statement of their own: in the next
# statement's snapshot every id is visible, those a concurrent ingestion has
# just committed included (one statement would not see them, and would drop
# their postings). Sorted, so concurrent inserts lock in the same order.
ADD_TERMS = f"""
INSERT INTO retrieval_term (lexeme)
SELECT DISTINCT lexeme FROM ({_LEXEMES}) l ORDER BY lexeme
ON CONFLICT (lexeme) DO NOTHING
"""

# The same, with term ids and frequencies.
_TERMS = f"""
    SELECT l.chunk_id, w.id AS term_id, l.tf FROM ({_LEXEMES}) l JOIN retrieval_term w ON w.lexeme = l.lexeme
"""

# Statistics are kept per collection (the revision's document's).
_COLLECTION = """(SELECT d.collection FROM retrieval_revision r JOIN retrieval_document d ON d.id = r.document_id
                  WHERE r.id = %(revision)s)"""

ADD_POSTINGS = f"""
WITH terms AS ({_TERMS}),
lengths AS (
    UPDATE retrieval_chunk c SET lexeme_count = l.length
    FROM (SELECT chunk_id, sum(tf) AS length FROM terms GROUP BY chunk_id) l
    WHERE c.id = l.chunk_id
    RETURNING c.id, c.lexeme_count
),
stats AS (
    INSERT INTO retrieval_lexicalstats AS s (collection, chunk_count, total_length, weights_avglen)
    SELECT {_COLLECTION}, count(*), coalesce(sum(lexeme_count), 0), 0 FROM lengths
    ON CONFLICT (collection) DO UPDATE SET chunk_count = s.chunk_count + excluded.chunk_count,
                                           total_length = s.total_length + excluded.total_length
    RETURNING total_length::float8 / greatest(chunk_count, 1) AS avglen
),
frequencies AS (
    INSERT INTO retrieval_termstat AS ts (collection, term_id, df)
    SELECT {_COLLECTION}, term_id, count(*) FROM terms GROUP BY term_id ORDER BY term_id
    ON CONFLICT (collection, term_id) DO UPDATE SET df = ts.df + excluded.df
)
INSERT INTO retrieval_posting (term_id, weight, chunk_id, tf)
SELECT t.term_id,
       t.tf * ({K1} + 1) / (t.tf + {K1} * (1 - {B} + {B} * l.lexeme_count / greatest(s.avglen, 1))),
       t.chunk_id, t.tf
FROM terms t JOIN lengths l ON l.id = t.chunk_id CROSS JOIN stats s
ORDER BY t.chunk_id
"""

REMOVE_POSTINGS = f"""
WITH gone AS (
    SELECT p.term_id, count(*) AS n FROM retrieval_posting p
    JOIN retrieval_chunk c ON c.id = p.chunk_id
    WHERE c.revision_id = %(revision)s GROUP BY p.term_id
),
frequencies AS (
    UPDATE retrieval_termstat ts SET df = greatest(ts.df - g.n, 0)
    FROM (SELECT * FROM gone ORDER BY term_id) g WHERE ts.collection = {_COLLECTION} AND ts.term_id = g.term_id
)
UPDATE retrieval_lexicalstats s
SET chunk_count = greatest(s.chunk_count - c.n, 0), total_length = greatest(s.total_length - c.total, 0)
FROM (SELECT count(*) AS n, coalesce(sum(lexeme_count), 0) AS total
      FROM retrieval_chunk WHERE revision_id = %(revision)s) c
WHERE s.collection = {_COLLECTION}
"""

# Rebuilds the totals from the tables themselves (documents deleted in admin
# take their chunks away by cascade), then every weight.
REBUILD_STATS = """
WITH actual AS (
    SELECT d.collection, p.term_id, count(*) AS df FROM retrieval_posting p
    JOIN retrieval_chunk c ON c.id = p.chunk_id JOIN retrieval_document d ON d.id = c.document_id
    GROUP BY d.collection, p.term_id
),
frequencies AS (
    UPDATE retrieval_termstat ts SET df = coalesce(a.df, 0)
    FROM retrieval_termstat t2
    LEFT JOIN actual a ON a.collection = t2.collection AND a.term_id = t2.term_id
    WHERE ts.id = t2.id AND ts.df IS DISTINCT FROM coalesce(a.df, 0)
),
totals AS (
    SELECT d.collection, count(*) AS n, coalesce(sum(c.lexeme_count), 0) AS total
    FROM retrieval_chunk c JOIN retrieval_document d ON d.id = c.document_id GROUP BY d.collection
)
UPDATE retrieval_lexicalstats s SET chunk_count = coalesce(t.n, 0), total_length = coalesce(t.total, 0)
FROM retrieval_lexicalstats s2 LEFT JOIN totals t ON t.collection = s2.collection
WHERE s.id = s2.id
"""

REFRESH_WEIGHTS = f"""
WITH s AS (SELECT collection, total_length::float8 / greatest(chunk_count, 1) AS avglen
           FROM retrieval_lexicalstats WHERE collection = %(collection)s),
updated AS (
    UPDATE retrieval_posting p
    SET weight = p.tf * ({K1} + 1) / (p.tf + {K1} * (1 - {B} + {B} * c.lexeme_count / greatest(s.avglen, 1)))
    FROM retrieval_chunk c JOIN retrieval_document d ON d.id = c.document_id, s
    WHERE c.id = p.chunk_id AND d.collection = s.collection
)
UPDATE retrieval_lexicalstats SET weights_avglen = (SELECT avglen FROM s) WHERE collection = %(collection)s
"""


def postings_add(*, revision_id: int) -> None:
    """Index the lexemes of a revision's chunks (call inside the transaction
    that created them)."""
    with connection.cursor() as cursor:
        cursor.execute(ADD_TERMS, {"revision": revision_id})
        cursor.execute(ADD_POSTINGS, {"revision": revision_id})


def postings_remove(*, revision_id: int) -> None:
    """Take a revision's chunks out of the term statistics before they are
    deleted (their postings go with them by cascade)."""
    with connection.cursor() as cursor:
        cursor.execute(REMOVE_POSTINGS, {"revision": revision_id})


def weights_refresh(*, drift: float = 0.1) -> list[str]:
    """Rebuild the corpus totals, then recompute the posting weights of each
    collection whose average chunk length moved more than ``drift`` since its
    weights were computed. Returns the collections refreshed."""
    from .models import LexicalStats

    with connection.cursor() as cursor:
        cursor.execute(REBUILD_STATS)
    refreshed = []
    for stats in LexicalStats.objects.filter(chunk_count__gt=0):
        if stats.weights_avglen and abs(stats.avglen - stats.weights_avglen) <= drift * stats.weights_avglen:
            continue
        with connection.cursor() as cursor:
            cursor.execute(REFRESH_WEIGHTS, {"collection": stats.collection})
        refreshed.append(stats.collection)
    return refreshed


def lexical_rebuild() -> int:
    """Rebuild postings and statistics for every chunk from scratch (after
    an upgrade, or a tokenizer change). Returns the number of revisions."""
    from .models import LexicalStats, Posting, Revision, Term, TermStat

    Posting.objects.all().delete()
    TermStat.objects.all().delete()
    Term.objects.all().delete()  # a tokenizer change leaves lexemes nothing uses
    LexicalStats.objects.all().delete()
    revision_ids = list(Revision.objects.filter(chunks__isnull=False).distinct().values_list("pk", flat=True))
    for revision_id in revision_ids:
        postings_add(revision_id=revision_id)
    weights_refresh(drift=0)
    return len(revision_ids)


# --- stems and weights, as the answer engine reads a question against the archive ---

STOPWORDS = frozenset(
    """
    yang dan di ke dari untuk pada dengan atau ini itu adalah ialah apa apakah siapa kapan mengapa kenapa
    bagaimana berapa mana sudah belum sekarang saat kini masih akan bisa dapat ada tidak bukan juga sebagai
    oleh dalam atas bahwa karena jika kalau agar supaya sejak hingga sampai para lebih kurang sangat telah
    sedang harus boleh ya nya kah lah pun kan benarkah betulkah menurut kami kita saya anda mereka ia dia the a an of to for in on and or
    is are was were be been what when who which how why does do did now currently still yet it this that
""".split()
)


def stems(texts: list[str]) -> list[set[str]]:
    """Content stems of each text, from PostgreSQL in one round trip."""
    if not texts:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(to_tsvector('indonesian', t.x)) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(x, n) ORDER BY t.n",
            [texts],
        )
        rows = cursor.fetchall()
    return [{s for s in row[0] if s not in STOPWORDS and len(s) > 1} for row in rows]


def term_frequencies(terms: set[str], collection: str = "editorial") -> tuple[dict[str, int], int]:
    """Each stem's document frequency in the collection, and the collection's chunk count."""
    from retrieval.models import LexicalStats, TermStat

    stats = LexicalStats.objects.filter(collection=collection).first()
    df = dict(TermStat.objects.filter(collection=collection, term__lexeme__in=terms).values_list("term__lexeme", "df"))
    return df, stats.chunk_count if stats else 0


def idf_weights(terms: set[str], collection: str = "editorial") -> dict[str, float]:
    """BM25 IDF of each stem in the collection. A stem the archive never
    uses weighs most: a question about something absent ("CEO", "LD-4040")
    cannot be covered by any sentence, which is how an extractive answer
    learns to say "not enough evidence"."""
    df, n = term_frequencies(terms, collection)
    return {t: math.log(1 + (n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in terms}


def coverage(question_terms: set[str], terms: set[str], weights: dict[str, float]) -> float:
    """Share of the question's IDF mass that ``terms`` cover."""
    total = sum(weights.get(t, 0.0) for t in question_terms)
    return sum(weights.get(t, 0.0) for t in question_terms & terms) / total if total else 0.0
