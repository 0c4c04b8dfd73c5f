"""The lean lexical index: integer term ids, narrow postings whose primary key
is the impact index, and a BRIN index on the chunk (retrieval/models.py says
why). Postings and term statistics are derived data, so the tables are
recreated and refilled from the old ones: every weight is carried over, only
narrowed to a 4-byte float.

Irreversible: the old layout is gone once the new one is filled.
"""

import django.contrib.postgres.indexes
import django.db.models.deletion
from django.db import migrations, models

import retrieval.models

CARRY = """
INSERT INTO retrieval_term (lexeme)
SELECT term FROM retrieval_posting UNION SELECT term FROM retrieval_termstat ORDER BY 1;
CREATE TEMPORARY TABLE posting_carry ON COMMIT DROP AS
SELECT t.id AS term_id, p.chunk_id, p.weight::real AS weight, p.tf::smallint AS tf
FROM retrieval_posting p JOIN retrieval_term t ON t.lexeme = p.term;
CREATE TEMPORARY TABLE termstat_carry ON COMMIT DROP AS
SELECT s.collection, t.id AS term_id, s.df FROM retrieval_termstat s JOIN retrieval_term t ON t.lexeme = s.term;
"""

# In chunk order, as ingestion writes them, so the BRIN index is tight.
REFILL = """
INSERT INTO retrieval_posting (term_id, weight, chunk_id, tf)
SELECT term_id, weight, chunk_id, tf FROM posting_carry ORDER BY chunk_id, term_id;
INSERT INTO retrieval_termstat (collection, term_id, df) SELECT collection, term_id, df FROM termstat_carry;
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0004_indonesian_labels")]

    operations = [
        migrations.CreateModel(
            name="Term",
            fields=[
                ("id", models.AutoField(primary_key=True, serialize=False)),
                ("lexeme", models.TextField(unique=True, verbose_name="leksem")),
            ],
            options={"verbose_name": "istilah", "verbose_name_plural": "istilah"},
        ),
        migrations.RunSQL(CARRY),
        migrations.DeleteModel(name="Posting"),
        migrations.DeleteModel(name="TermStat"),
        migrations.CreateModel(
            name="Posting",
            fields=[
                (
                    "pk",
                    models.CompositePrimaryKey(
                        "term", "weight", "chunk", blank=True, editable=False, primary_key=True, serialize=False
                    ),
                ),
                (
                    "term",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="postings",
                        to="retrieval.term",
                        verbose_name="istilah",
                    ),
                ),
                ("weight", retrieval.models.RealField(verbose_name="bobot")),
                (
                    "chunk",
                    retrieval.models.NarrowForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="postings",
                        to="retrieval.chunk",
                        verbose_name="potongan",
                    ),
                ),
                ("tf", models.SmallIntegerField(verbose_name="frekuensi istilah")),
            ],
            options={
                "verbose_name": "posting",
                "verbose_name_plural": "posting",
                "indexes": [
                    django.contrib.postgres.indexes.BrinIndex(
                        fields=["chunk"], name="posting_chunk_brin", pages_per_range=16
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="TermStat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("collection", models.CharField(max_length=100, verbose_name="koleksi")),
                ("df", models.PositiveIntegerField(verbose_name="frekuensi dokumen")),
                (
                    "term",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="stats",
                        to="retrieval.term",
                        verbose_name="istilah",
                    ),
                ),
            ],
            options={
                "verbose_name": "statistik istilah",
                "verbose_name_plural": "statistik istilah",
                "constraints": [
                    models.UniqueConstraint(fields=("collection", "term"), name="termstat_collection_term")
                ],
            },
        ),
        migrations.RunSQL(REFILL, migrations.RunSQL.noop),
    ]
