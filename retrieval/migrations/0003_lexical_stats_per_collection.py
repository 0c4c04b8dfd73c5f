"""Lexical statistics per collection. Both tables are derived data: they are
recreated and refilled from the postings; weights are refreshed by the
periodic task (weights_avglen 0 forces it) or ``rebuild_lexical``."""

from django.db import migrations, models

FILL = """
INSERT INTO retrieval_termstat (collection, term, df)
SELECT d.collection, p.term, count(*) FROM retrieval_posting p
JOIN retrieval_chunk c ON c.id = p.chunk_id JOIN retrieval_document d ON d.id = c.document_id
GROUP BY d.collection, p.term;
INSERT INTO retrieval_lexicalstats (collection, chunk_count, total_length, weights_avglen)
SELECT d.collection, count(*), coalesce(sum(c.lexeme_count), 0), 0 FROM retrieval_chunk c
JOIN retrieval_document d ON d.id = c.document_id GROUP BY d.collection;
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0002_lexical_postings")]

    operations = [
        migrations.DeleteModel(name="TermStat"),
        migrations.DeleteModel(name="LexicalStats"),
        migrations.CreateModel(
            name="TermStat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("collection", models.CharField(max_length=100)),
                ("term", models.TextField()),
                ("df", models.PositiveIntegerField()),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("collection", "term"), name="termstat_collection_term")]
            },
        ),
        migrations.CreateModel(
            name="LexicalStats",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("collection", models.CharField(max_length=100, unique=True)),
                ("chunk_count", models.PositiveIntegerField(default=0)),
                ("total_length", models.PositiveBigIntegerField(default=0)),
                ("weights_avglen", models.FloatField(default=0)),
            ],
        ),
        migrations.RunSQL(FILL, migrations.RunSQL.noop),
    ]
