"""python manage.py train_answerer — train the answer scorer on IDK-MRC."""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from review.answers.scorer import ARTEFACT_DIR, ARTEFACT_NAME
from review.answers.training import artefact_write, default_cache_dir, items_build, train

DATASET = Path(settings.BASE_DIR).parent / "shared" / "datasets" / "idk-mrc"


class Command(BaseCommand):
    help = ("Latih penilai jawaban (model unit dan model konteks, scikit-learn) pada IDK-MRC train, "
            "kalibrasi dan pilih ambang pada IDK-MRC valid, cetak angka validasi, lalu tulis artefak "
            "berversi (.pkl + .json berisi checksum data, fitur, versi pustaka, metrik) ke "
            "review/answers/artefact/. Embedding di-cache: proses ulang cepat. Jangan memakai "
            "tydiqa-goldp-id dev di sini: itu data evaluasi retrieval.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--train", type=Path, default=DATASET / "train.json", help="berkas latih (SQuAD 2.0)")
        parser.add_argument("--valid", type=Path, default=DATASET / "valid.json", help="berkas validasi (SQuAD 2.0)")
        parser.add_argument("--out", type=Path, default=ARTEFACT_DIR, help="folder artefak")
        parser.add_argument("--name", default=ARTEFACT_NAME, help="nama artefak (versi)")
        parser.add_argument("--limit", type=int, help="hanya N paragraf pertama tiap berkas (uji cepat)")

    def handle(self, *args: object, **options: object) -> None:
        for key in ("train", "valid"):
            if not options[key].is_file():
                raise CommandError(f"berkas {key} tidak ditemukan: {options[key]}")
        started = time.perf_counter()

        def say(message: str) -> None:
            self.stdout.write(f"[{time.perf_counter() - started:6.0f} s] {message}")
            self.stdout.flush()

        cache = default_cache_dir()
        say(f"membaca {options['train']}")
        train_items = items_build(options["train"], cache_dir=cache, limit=options["limit"], progress=say)
        say(f"membaca {options['valid']}")
        valid_items = items_build(options["valid"], cache_dir=cache, limit=options["limit"], progress=say)
        trained = train(train_items, valid_items, progress=say)
        path = artefact_write(trained, options["out"], data={"train": options["train"], "valid": options["valid"]},
                              name=options["name"])
        self.stdout.write(json.dumps({"metrics": trained.metrics, "thresholds": trained.thresholds}, indent=2))
        self.stdout.write(self.style.SUCCESS(f"artefak ditulis: {path} (+ .json)"))
