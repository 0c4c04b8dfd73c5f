"""python manage.py eval_import FILE --name NAME — load an evaluation set."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from review.evaluation.sets import EvalImportError, evalset_import


def _progress(bar: tqdm):  # noqa: ANN202
    def wrap(items, desc, total):  # noqa: ANN001, ANN202
        bar.reset(total=total)
        bar.set_description(desc)
        for item in items:
            yield item
            bar.update(1)

    return wrap


class Command(BaseCommand):
    help = (
        "Impor set evaluasi dari JSONL (satu kasus per baris: id, question, category, user, as_of, gold, "
        "expected_status, conflict, note — lihat demo/eval.jsonl). Set dengan nama yang sama diganti; "
        "kasus regresi dari tinjauan editor dipertahankan. Semua baris atau tidak sama sekali."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="berkas JSONL, atau direktori BEIR dengan --beir")
        parser.add_argument(
            "--beir",
            action="store_true",
            help="FILE adalah direktori BEIR: kueri berpenilaian menjadi kasus, emasnya dokumen "
            "koleksi yang dimuat load_beir",
        )
        parser.add_argument(
            "--squad",
            action="store_true",
            help="FILE berformat SQuAD 2.0 (mis. IDK-MRC): paragrafnya dimuat sebagai koleksi "
            "publik tersendiri (bawaan squad-<nama berkas>) dan pertanyaannya menjadi kasus "
            "dengan kunci jawaban; yang tak terjawab diharapkan insufficient_evidence",
        )
        parser.add_argument("--split", default="test", help="split qrels BEIR (bawaan test)")
        parser.add_argument(
            "--collection",
            help="koleksi yang ditanya (bawaan: editorial; untuk BEIR beir-<direktori>, untuk SQuAD squad-<berkas>)",
        )
        parser.add_argument("--name", default="demo", help="nama set (bawaan demo)")
        parser.add_argument("--description", default="")

    def handle(self, *args: object, **options: object) -> None:
        if options["beir"]:
            from retrieval.beir import BeirFormatError
            from review.evaluation.sets import evalset_import_beir

            directory = options["file"].resolve()
            try:
                eval_set, count = evalset_import_beir(
                    directory=directory,
                    split=options["split"],
                    name=options["name"],
                    collection=options["collection"] or f"beir-{directory.name}",
                )
            except (BeirFormatError, OSError) as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(self.style.SUCCESS(f"Set {eval_set.name}: {count} kueri BEIR diimpor."))
            return
        if not options["file"].is_file():
            raise CommandError(f"berkas tidak ada: {options['file']}")
        if options["squad"]:
            from review.evaluation.sets import evalset_import_squad

            collection = options["collection"] or f"squad-{options['file'].stem}"
            try:
                with tqdm(desc="memuat paragraf", unit="paragraf") as bar:
                    eval_set, count = evalset_import_squad(
                        path=options["file"], name=options["name"], collection=collection, progress=_progress(bar)
                    )
            except (EvalImportError, OSError, ValueError, KeyError) as exc:
                raise CommandError(f"{options['file'].name}: {exc}") from None
            self.stdout.write(
                self.style.SUCCESS(f"Set {eval_set.name}: {count} pertanyaan SQuAD diimpor (koleksi {collection}).")
            )
            return
        try:
            eval_set, count = evalset_import(
                path=options["file"],
                name=options["name"],
                description=options["description"],
                collection=options["collection"] or "editorial",
            )
        except EvalImportError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Set {eval_set.name}: {count} kasus diimpor."))
