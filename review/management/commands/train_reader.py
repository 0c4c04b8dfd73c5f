"""python manage.py train_reader — the reader (e5 reading question and unit together) beside an artefact's models."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from retrieval.embeddings import provider_from_config
from review.answers.reader_training import Examples, reader_attach, reader_examples, reader_fit
from review.answers.scorer import ARTEFACT_DIR, ArtefactError, artefact_path, artefact_read
from review.answers.training import (
    _CachedQueries,
    artefact_write,
    default_cache_dir,
    items_build,
    items_cached,
    items_from_evalset,
)
from review.management.commands.train_answerer import CROSS_LINGUAL, DATASET, next_artefact_name
from review.models import EvalSet


class Command(BaseCommand):
    help = (
        "Latih pembaca (reader): e5 membaca pertanyaan dan satu unit bukti bersama-sama, regresi logistik "
        "atas embedding pasangan itu dilatih pada IDK-MRC train (dan pertanyaan berbahasa Inggris atas "
        "paragraf berbahasa Indonesia), kekuatan regularisasinya dipilih pada IDK-MRC valid. Skornya "
        "digabung dengan log-odds model konteks artefak dasar (model unit dan konteksnya tidak berubah) "
        "dalam kalibrator yang dipasang pada IDK-MRC valid; ambang dipilih ulang pada valid bersama set "
        "dev gaya editor. Menulis artefak baru (versi berikutnya), tidak pernah menimpa yang dipakai."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base", default="answerer-v6", help="artefak dasar (bawaan %(default)s)")
        parser.add_argument("--train", type=Path, default=DATASET / "train.json", help="berkas latih (SQuAD 2.0)")
        parser.add_argument("--valid", type=Path, default=DATASET / "valid.json", help="berkas validasi (SQuAD 2.0)")
        parser.add_argument(
            "--cross-lingual",
            type=Path,
            default=CROSS_LINGUAL,
            help="pertanyaan berbahasa Inggris atas paragraf berbahasa Indonesia (bawaan %(default)s; '' untuk tanpa)",
        )
        parser.add_argument(
            "--paragraphs",
            type=int,
            default=1400,
            help="paragraf pertama berkas latih yang dibaca (bawaan %(default)s: tiap paragraf butuh sekitar "
            "1 detik embedding di 2 core; 0 untuk semua)",
        )
        parser.add_argument(
            "--cross-paragraphs",
            type=int,
            default=150,
            help="paragraf pertama berkas lintas bahasa yang dibaca (bawaan %(default)s; 0 untuk semua)",
        )
        parser.add_argument("--dev-set", default="editor-dev", help="set dev untuk ambang (bawaan %(default)s)")
        parser.add_argument("--out", type=Path, default=ARTEFACT_DIR, help="folder artefak")
        parser.add_argument("--name", help="nama artefak; bawaan: versi berikutnya (answerer-vN)")
        parser.add_argument(
            "--reuse-items",
            action="store_true",
            help="pakai ulang pertanyaan valid yang sudah dicari dan disiapkan (train_answerer --reuse-items)",
        )

    def handle(self, *args: object, **options: object) -> None:
        cross_lingual = options["cross_lingual"] if str(options["cross_lingual"]) not in ("", ".") else None
        for path in (options["train"], options["valid"], *((cross_lingual,) if cross_lingual else ())):
            if not path.is_file():
                raise CommandError(f"berkas tidak ditemukan: {path}")
        if options["dev_set"] and not EvalSet.objects.filter(name=options["dev_set"]).exists():
            raise CommandError(
                f"set dev {options['dev_set']!r} belum diimpor: jalankan eval_import demo/editor-dev.jsonl "
                f"--name {options['dev_set']} (atau --dev-set '')"
            )
        try:
            base = artefact_read(artefact_path(options["base"]))
        except ArtefactError as exc:
            raise CommandError(str(exc)) from None
        started = time.perf_counter()

        def say(message: str) -> None:
            self.stdout.write(f"[{time.perf_counter() - started:6.0f} s] {message}")
            self.stdout.flush()

        cache = default_cache_dir()
        provider = provider_from_config()
        examples = {}
        sources = (
            ("train", options["train"], options["paragraphs"]),
            ("valid", options["valid"], None),
            ("cross", cross_lingual, options["cross_paragraphs"]),
        )
        for name, path, limit in sources:
            if path is None:
                continue
            say(f"membaca pasangan pertanyaan–unit {path.name}")
            queries = _CachedQueries.open(cache / f"queries-{path.stem}.npz")
            examples[name] = reader_examples(
                path, provider=provider, embed_query=queries.embed_query, limit=limit or None, progress=say
            )
            queries.save()
        train = examples["train"]
        if "cross" in examples:
            train = Examples(np.vstack([train.x, examples["cross"].x]), np.concatenate([train.y, examples["cross"].y]))
        reader, aucs = reader_fit(train, examples["valid"])
        say(f"pembaca dilatih pada {len(train.y)} pertanyaan; AUC valid per C: {aucs}")
        valid_items = items_cached(
            cache,
            "valid",
            options["reuse_items"],
            say,
            lambda: items_build(options["valid"], cache_dir=cache, progress=say),
        )
        dev_items = items_from_evalset(options["dev_set"], progress=say) if options["dev_set"] else None
        trained = reader_attach(
            base, reader, valid_items=valid_items, dev_items=dev_items, provider=provider, progress=say
        )
        trained.metrics["reader"] = {"train_questions": len(train.y), "valid_auc_by_c": aucs}
        data = {"train": options["train"], "valid": options["valid"]}
        if cross_lingual:
            data["cross_lingual"] = cross_lingual
        name = options["name"] or next_artefact_name(options["out"])
        path = artefact_write(trained, options["out"], data=data, name=name)
        self.stdout.write(json.dumps({"metrics": trained.metrics, "thresholds": trained.thresholds}, indent=2))
        self.stdout.write(self.style.SUCCESS(f"artefak ditulis: {path} (+ .json)"))
