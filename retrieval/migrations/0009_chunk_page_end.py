"""``Chunk.page_end``: the last page a PDF chunk covers, so a chunk that runs
over a page break reads "hlm. 1–2" instead of only its first page.

Existing chunks are backfilled from their revision's ``page_starts`` and
their own span, exactly as ingestion now computes it; no chunk is rebuilt
(chunk keys are evidence ids that stored answers cite). The page rule is
copied here rather than imported so this migration keeps meaning what it
meant when it was written.
"""

import bisect

from django.db import migrations, models

BATCH = 2000


def _page(offset, page_starts):
    return bisect.bisect_right(page_starts, offset) or 1


def backfill(apps, schema_editor):
    Chunk = apps.get_model("retrieval", "Chunk")
    # Only PDF chunks have a page; the rest keep page_end empty, as ingestion leaves it.
    chunks = (
        Chunk.objects.filter(page__isnull=False, page_end__isnull=True)
        .select_related("revision")
        .only("pk", "page", "char_start", "char_end", "revision", "revision__page_starts")
        .order_by("pk")
    )
    batch = []
    for chunk in chunks.iterator(chunk_size=BATCH):
        starts = chunk.revision.page_starts or []
        if not starts:
            continue
        chunk.page_end = max(chunk.page, _page(max(chunk.char_end - 1, chunk.char_start), starts))
        batch.append(chunk)
        if len(batch) >= BATCH:
            Chunk.objects.bulk_update(batch, ["page_end"])
            batch = []
    if batch:
        Chunk.objects.bulk_update(batch, ["page_end"])


class Migration(migrations.Migration):
    dependencies = [
        ("retrieval", "0008_fetching"),
    ]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="page_end",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="Halaman terakhir yang dicakup potongan (PDF)",
                null=True,
                verbose_name="halaman akhir",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
