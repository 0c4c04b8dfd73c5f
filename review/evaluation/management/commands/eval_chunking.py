"""python manage.py eval_chunking --set demo — measure chunking settings."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from retrieval.beir import drop_collection
from retrieval.models import Revision
from review.evaluation.chunking_runs import ChunkingSetting, chunking_collection_build, chunking_evaluate
from review.models import EvalSet


class Command(BaseCommand):
    help = (
        "Eksperimen chunking: arsip editorial disalin ke satu koleksi terpisah per pengaturan (ukuran "
        "potongan dalam token, dengan/tanpa breadcrumb judul), lalu pertanyaan set evaluasi yang sama "
        "diukur pada tiap koleksi. Hasil masuk laporan (make report, bagian 'Chunking experiments'). "
        "Koleksi percobaan dihapus sesudahnya kecuali --keep."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", dest="set_name", default="demo")
        parser.add_argument("--sizes", default="128,256,512", help="ukuran potongan, dipisah koma")
        parser.add_argument(
            "--without-breadcrumbs",
            default="256",
            help="ukuran yang juga diuji tanpa breadcrumb (dipisah koma; kosong = tidak ada)",
        )
        parser.add_argument("--keep", action="store_true", help="jangan hapus koleksi percobaan")

    def handle(self, *args: object, **options: object) -> None:
        eval_set = EvalSet.objects.filter(name=options["set_name"]).first()
        if eval_set is None:
            raise CommandError(f"set evaluasi {options['set_name']!r} tidak ada; impor dulu dengan eval_import")
        try:
            sizes = [int(s) for s in options["sizes"].split(",") if s.strip()]
            bare = [int(s) for s in options["without_breadcrumbs"].split(",") if s.strip()]
        except ValueError:
            raise CommandError("--sizes dan --without-breadcrumbs berisi bilangan bulat") from None
        if any(not 32 <= s <= 512 for s in sizes + bare):
            raise CommandError("ukuran potongan harus 32–512 token (batas model embedding 512)")
        settings_ = [ChunkingSetting(s) for s in sizes] + [ChunkingSetting(s, breadcrumbs=False) for s in bare]
        revisions = Revision.objects.filter(
            document__collection="editorial", status__in=["active", "superseded"]
        ).count()
        rows = []
        for setting in settings_:
            with tqdm(total=revisions, desc=f"chunking {setting.name}", unit="revisi") as bar:
                chunks = chunking_collection_build(setting=setting, progress=bar.update)
            run = chunking_evaluate(eval_set=eval_set, setting=setting)
            rows.append((setting.name, chunks, run))
            if not options["keep"]:
                drop_collection(collection=setting.collection)
        self.stdout.write(
            f"\n{'pengaturan':<24}{'potongan':>9}"
            + "".join(f"{m + ' nDCG@10':>18}" for m in ("lexical", "vector", "hybrid"))
        )
        for name, chunks, run in rows:
            values = "".join(f"{run.metrics[m]['all']['nDCG@10']:>18.4f}" for m in ("lexical", "vector", "hybrid"))
            self.stdout.write(f"{name:<24}{chunks:>9}{values}   (run {run.pk})")
