"""Source types become data an admin manages (retrieval.models.SourceType).
The seven fixed types are seeded with their labels and their authority as
before (official sources, then announcements, transcripts, articles, other),
plus two a newsroom archive holds; any other value already stored becomes a
type of its own with the lowest authority."""

import django.db.models.deletion
from django.db import migrations, models

DEFAULTS = [
    ("documentation", "Dokumentasi resmi", 1),
    ("policy", "Kebijakan", 1),
    ("spec", "Spesifikasi produk", 1),
    ("announcement", "Pengumuman", 2),
    ("press_release", "Siaran pers", 2),
    ("transcript", "Transkrip", 3),
    ("report", "Laporan", 3),
    ("article", "Artikel", 4),
    ("other", "Lainnya", 5),
]


def seed(apps, schema_editor):  # noqa: ANN001
    SourceType = apps.get_model("retrieval", "SourceType")
    Document = apps.get_model("retrieval", "Document")
    SourceType.objects.bulk_create([SourceType(key=k, label=label, authority=rank) for k, label, rank in DEFAULTS])
    known = {k for k, _, _ in DEFAULTS}
    lowest = max(rank for _, _, rank in DEFAULTS)
    for key in set(Document.objects.values_list("source_type", flat=True)) - known:
        SourceType.objects.create(key=key, label=key, authority=lowest, created_by_ingest=True)


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0005_lean_postings")]

    operations = [
        migrations.CreateModel(
            name="SourceType",
            fields=[
                (
                    "key",
                    models.CharField(
                        help_text="Huruf kecil, angka, _ atau -, mis. official_docs",
                        max_length=50,
                        primary_key=True,
                        serialize=False,
                        verbose_name="kunci",
                    ),
                ),
                ("label", models.CharField(help_text="Nama yang dibaca editor", max_length=100, verbose_name="label")),
                (
                    "authority",
                    models.PositiveSmallIntegerField(
                        default=1,
                        verbose_name="peringkat otoritas",
                        help_text="1 = paling berwenang; angka lebih besar = kurang berwenang. "
                        "Menentukan urutan bukti untuk pertanyaan tentang keadaan sekarang.",
                    ),
                ),
                (
                    "created_by_ingest",
                    models.BooleanField(
                        default=False,
                        verbose_name="dibuat saat ingest",
                        help_text="Dibuat otomatis karena muncul di masukan; periksa label dan peringkatnya",
                    ),
                ),
            ],
            options={
                "verbose_name": "jenis sumber",
                "verbose_name_plural": "jenis sumber",
                "ordering": ["authority", "key"],
            },
        ),
        migrations.RunPython(seed, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="document",
            name="source_type",
            field=models.ForeignKey(
                db_column="source_type",
                default="other",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="documents",
                to="retrieval.sourcetype",
                verbose_name="jenis sumber",
            ),
        ),
    ]
