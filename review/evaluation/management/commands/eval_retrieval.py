"""python manage.py eval_retrieval — measure retrieval apart from answers."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from review.evaluation.retrieval_runs import MEASURES, MODES, retrieval_evaluate, runs_compare
from review.evaluation.sets import cases_from_beir, cases_from_set
from review.models import EvalRun, EvalSet


class Command(BaseCommand):
    help = (
        "Ukur pencarian (Recall@5/10, Precision@10, MRR@10, nDCG@10, hit rate, lewat ir-measures) untuk "
        "mode leksikal, semantik, hibrida dan hibrida+rerank dengan k yang sama, keseluruhan dan per "
        "kategori. Sumber: --set NAMA (set evaluasi di basis data, mis. 'demo' dari "
        "`eval_import demo/eval.jsonl --name demo`) atau --beir DIR (dataset yang sudah dimuat dengan "
        "load_beir). Setiap run disimpan dengan konfigurasi dan kandidat per kueri; "
        "--compare RUN_A RUN_B membandingkan dua run kueri demi kueri."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        source = parser.add_mutually_exclusive_group()
        source.add_argument("--set", dest="set_name", help="nama set evaluasi")
        source.add_argument("--beir", type=Path, help="direktori dataset BEIR (korpus dimuat dengan load_beir)")
        source.add_argument(
            "--compare", nargs=2, type=int, metavar=("RUN_A", "RUN_B"), help="bandingkan dua run yang tersimpan"
        )
        parser.add_argument("--collection", help="koleksi BEIR (bawaan beir-<nama direktori>)")
        parser.add_argument("--split", default="test", help="split qrels BEIR (bawaan test)")
        parser.add_argument(
            "--modes", default="lexical,vector,hybrid,hybrid+rerank", help=f"mode dipisah koma dari {', '.join(MODES)}"
        )
        parser.add_argument("--k", type=int, default=10, help="jumlah unit yang dinilai (bawaan 10)")
        parser.add_argument("--pool", type=int, default=50, help="kandidat per lengan (bawaan 50)")
        parser.add_argument("--fusion", choices=["rrf", "convex"], help="fusi hibrida (bawaan NALARKU_FUSION)")
        parser.add_argument("--rrf-k", type=int, help="konstanta RRF (bawaan dari NALARKU_FUSION, 60)")
        parser.add_argument("--limit", type=int, help="hanya N kueri pertama")
        parser.add_argument("--label", default="", help="nama run, untuk laporan")

    def handle(self, *args: object, **options: object) -> None:
        if options["compare"]:
            return self._compare(*options["compare"])
        modes = [m.strip() for m in options["modes"].split(",") if m.strip()]
        unknown = set(modes) - set(MODES)
        if unknown:
            raise CommandError(f"mode tidak dikenal: {', '.join(sorted(unknown))} (pilih dari {', '.join(MODES)})")
        eval_set, dataset, collection = None, "", "editorial"
        if options["beir"]:
            from retrieval.beir import (
                BeirFormatError,
                document_key,
                judged_subset,
                read_corpus,
                read_qrels,
                read_queries,
            )
            from retrieval.models import Document

            directory = options["beir"].resolve()
            collection = options["collection"] or f"beir-{directory.name}"
            try:
                queries, qrels = read_queries(directory), read_qrels(directory, options["split"])
                loaded_keys = set(Document.objects.filter(collection=collection).values_list("key", flat=True))
                loaded = [p.id for p in read_corpus(directory) if document_key(collection, p.id) in loaded_keys]
            except (BeirFormatError, OSError) as exc:
                raise CommandError(str(exc)) from None
            if not loaded:
                raise CommandError(f"koleksi {collection!r} kosong; muat dulu: python manage.py load_beir {directory}")
            # Only what was loaded (load_beir --limit) can be found.
            queries, qrels = judged_subset(queries, qrels, loaded)
            cases, dataset = cases_from_beir(queries=queries, qrels=qrels, collection=collection), str(directory)
        else:
            name = options["set_name"] or "demo"
            eval_set = EvalSet.objects.filter(name=name).first()
            if eval_set is None:
                raise CommandError(
                    f"set evaluasi {name!r} tidak ada; impor dulu: "
                    f"python manage.py eval_import demo/eval.jsonl --name {name}"
                )
            cases = cases_from_set(eval_set)
        cases = cases[: options["limit"]] if options["limit"] else cases
        if not cases:
            raise CommandError("tidak ada kueri dengan bukti emas untuk diukur")
        with tqdm(total=len(cases) * len(modes), desc="mengukur", unit="kueri") as bar:
            run = retrieval_evaluate(
                cases=cases,
                modes=modes,
                k=options["k"],
                pool=options["pool"],
                fusion=options["fusion"],
                rrf_k=options["rrf_k"],
                collection=collection,
                label=options["label"],
                eval_set=eval_set,
                dataset=dataset,
                progress=bar.update,
            )
        self._print(run)

    def _print(self, run: EvalRun) -> None:
        names = [str(m) for m in MEASURES]
        self.stdout.write(
            self.style.SUCCESS(
                f"\nRun {run.pk} · {run.config['cases']} kueri · k={run.config['k']} "
                f"· fusi {run.config['fusion']} {run.config['fusion_weights']} "
                f"· pool={run.config['pool']} · {run.config['index']['active_chunks']} "
                "potongan aktif"
            )
        )
        self.stdout.write(f"{'mode':<16}" + "".join(f"{n:>12}" for n in names) + f"{'p50 ms':>9}{'p95 ms':>9}")
        for mode, values in run.metrics.items():
            if "skipped" in values:
                self.stdout.write(f"{mode:<16}  dilewati: {values['skipped']}")
                continue
            row = "".join(f"{values['all'][n]:>12.4f}" for n in names)
            lat = values["latency_ms"]
            self.stdout.write(f"{mode:<16}{row}{lat['p50']:>9.1f}{lat['p95']:>9.1f}")
        for mode, values in run.metrics.items():
            if "by_category" in values and len(values["by_category"]) > 1:
                self.stdout.write(f"\nnDCG@10 per kategori, {mode}:")
                for category, cat_values in values["by_category"].items():
                    self.stdout.write(f"  {category:<30}{cat_values['nDCG@10']:>8.4f}  ({cat_values['queries']} kueri)")

    def _compare(self, a_id: int, b_id: int) -> None:
        try:
            a, b = EvalRun.objects.get(pk=a_id), EvalRun.objects.get(pk=b_id)
        except EvalRun.DoesNotExist:
            raise CommandError("run tidak ada; lihat daftar run di admin (Run evaluasi)") from None
        for mode, deltas in runs_compare(a=a, b=b).items():
            better = [d for d in deltas if d.delta > 0]
            worse = [d for d in deltas if d.delta < 0]
            mean = sum(d.delta for d in deltas) / max(len(deltas), 1)
            self.stdout.write(
                self.style.MIGRATE_HEADING(
                    f"{mode}: {len(deltas)} kueri · lebih baik {len(better)} · lebih buruk {len(worse)} · "
                    f"sama {len(deltas) - len(better) - len(worse)} · Δ nDCG@10 rata-rata {mean:+.4f}"
                )
            )
            for d in sorted(worse, key=lambda d: d.delta)[:10]:
                self.stdout.write(f"  ▼ {d.case_id:<12} {d.before:.3f} → {d.after:.3f} ({d.delta:+.3f})")
            for d in sorted(better, key=lambda d: -d.delta)[:10]:
                self.stdout.write(f"  ▲ {d.case_id:<12} {d.before:.3f} → {d.after:.3f} ({d.delta:+.3f})")
