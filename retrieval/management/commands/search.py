"""python manage.py search "query" --user NAME — search as a given reader."""

from __future__ import annotations

import json
import textwrap

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from retrieval.search import MODES, SearchError, search


class Command(BaseCommand):
    help = (
        "Cari di arsip sebagai pengguna tertentu (izin grupnya berlaku). Menampilkan potongan "
        "berperingkat dengan id bukti, peringkat tiap lengan, skor RRF/rerank, waktu per tahap "
        "dan status terdegradasi. --json mencetak {query, results, timings_ms, degraded}."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", help="pertanyaan atau kata kunci")
        parser.add_argument("--user", required=True, help="nama pengguna yang izinnya dipakai")
        parser.add_argument("--k", type=int, default=10, help="jumlah hasil (1–100, bawaan 10)")
        parser.add_argument("--pool", type=int, help="kandidat per lengan sebelum fusi (bawaan max(50, k))")
        parser.add_argument("--mode", choices=MODES, default="hybrid", help="bawaan hybrid")
        parser.add_argument("--include-superseded", action="store_true", help="sertakan revisi yang sudah diganti")
        parser.add_argument(
            "--rerank",
            choices=["auto", "on", "off"],
            default="auto",
            help="auto: rerank bila reranker dikonfigurasi (bawaan)",
        )
        parser.add_argument("--no-expand", action="store_true", help="tanpa ekspansi graf relasi")
        parser.add_argument("--collection", default="editorial", help="koleksi (bawaan editorial)")
        parser.add_argument("--json", action="store_true", help="cetak JSON")

    def handle(self, *args: object, **options: object) -> None:
        try:
            reader = get_user_model().objects.get(username=options["user"])
        except get_user_model().DoesNotExist:
            raise CommandError(f"pengguna {options['user']!r} tidak ada") from None
        try:
            response = search(
                options["query"],
                reader,
                k=options["k"],
                pool=options["pool"],
                mode=options["mode"],
                include_superseded=options["include_superseded"],
                rerank={"auto": None, "on": True, "off": False}[options["rerank"]],
                expand=not options["no_expand"],
                collection=options["collection"],
            )
        except SearchError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(response.as_dict(), ensure_ascii=False, indent=2))
            return
        self._print(response)

    def _print(self, response) -> None:  # noqa: ANN001
        if not response.results:
            self.stdout.write("Tidak ada hasil yang boleh Anda lihat untuk pertanyaan ini.")
        for n, hit in enumerate(response.results, 1):
            ranks = (
                f"leksikal {hit.lexical_rank or '–'} · semantik {hit.semantic_rank or '–'} · RRF {hit.rrf_score:.4f}"
            )
            if hit.rerank_score is not None:
                ranks += f" · rerank {hit.rerank_score:.3f}"
            flags = [flag for flag, on in (("DIGANTI", hit.superseded), ("GRAF", hit.via_graph)) if on]
            head = f"{n:>2}. [{hit.evidence_id}] {hit.title}"
            self.stdout.write(self.style.MIGRATE_HEADING(head) + (f"  ({', '.join(flags)})" if flags else ""))
            if hit.heading_path:
                self.stdout.write(f"    {hit.heading_path}")
            if hit.relation:
                rel = hit.relation
                self.stdout.write(f"    melalui: {rel['source']} {rel['type']} {rel['target']}")
            else:
                self.stdout.write(f"    {ranks}")
            snippet = textwrap.shorten(" ".join(hit.text.split()), 220, placeholder=" …")
            self.stdout.write(textwrap.indent(textwrap.fill(snippet, 96), "    "))
        timings = ", ".join(f"{stage} {ms:.1f} ms" for stage, ms in response.timings_ms.items())
        self.stdout.write(f"\nmode {response.mode} · {timings}")
        if response.degraded:
            self.stdout.write(self.style.WARNING(f"terdegradasi: {', '.join(response.degraded)}"))
