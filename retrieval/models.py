"""The archive: documents, their revisions, the chunks search reads, and the
embeddings of those chunks per embedding space.

Identity is never lost: chunk → revision → document, always. A document's own
date (``Revision.document_date``) is kept apart from when we fetched
(``fetched_at``) and indexed (``indexed_at``) it.
"""

from __future__ import annotations

import re

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, Group
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Q
from django.utils import timezone
from pgvector.django import VectorField

from .chunking import BREADCRUMB_SEPARATOR, ChunkDraft

DEFAULT_SOURCE_TYPE = "other"
SOURCE_TYPE_KEY = re.compile(r"[a-z0-9][a-z0-9_-]{0,49}")


class SourceType(models.Model):
    """A kind of source, managed by admins: its key (as manifests and the API
    write it), its Indonesian label and its authority, which orders evidence
    for questions about the present (official documentation before an article
    quoting it). Ingestion creates a type it does not know, with the lowest
    authority, and reports it, so no line is refused for its type."""

    key = models.CharField(
        verbose_name="kunci",
        max_length=50,
        primary_key=True,
        help_text="Huruf kecil, angka, _ atau -, mis. official_docs",
    )
    label = models.CharField(verbose_name="label", max_length=100, help_text="Nama yang dibaca editor")
    authority = models.PositiveSmallIntegerField(
        verbose_name="peringkat otoritas",
        default=1,
        help_text="1 = paling berwenang; angka lebih besar = kurang berwenang. "
        "Menentukan urutan bukti untuk pertanyaan tentang keadaan sekarang.",
    )
    created_by_ingest = models.BooleanField(
        verbose_name="dibuat saat ingest",
        default=False,
        help_text="Dibuat otomatis karena muncul di masukan; periksa label dan peringkatnya",
    )

    class Meta:
        ordering = ["authority", "key"]
        verbose_name = "jenis sumber"
        verbose_name_plural = "jenis sumber"

    def __str__(self) -> str:
        return self.label

    @classmethod
    def ensure(cls, key: str) -> bool:
        """Make sure ``key`` exists; True if it was created (with the lowest
        authority there is, and its key as a provisional label)."""
        if cls.objects.filter(pk=key).exists():
            return False
        lowest = cls.objects.aggregate(models.Max("authority"))["authority__max"] or 1
        _, created = cls.objects.get_or_create(
            pk=key,
            defaults={"label": key.replace("_", " ").replace("-", " "), "authority": lowest, "created_by_ingest": True},
        )
        return created

    @classmethod
    def ranks(cls) -> dict[str, int]:
        return dict(cls.objects.values_list("key", "authority"))

    @classmethod
    def labels(cls) -> dict[str, str]:
        return dict(cls.objects.values_list("key", "label"))


class ContentFormat(models.TextChoices):
    MARKDOWN = "markdown", "Markdown"
    HTML = "html", "HTML"
    TEXT = "text", "Teks biasa"
    # Stored as the Markdown their text became (retrieval.converters).
    PDF = "pdf", "PDF"
    DOCX = "docx", "Word (DOCX)"


class DocumentQuerySet(models.QuerySet["Document"]):
    def visible_to(self, user: AbstractBaseUser | AnonymousUser | None) -> DocumentQuerySet:
        """Documents ``user`` may read: public ones, and those shared with one
        of the user's groups. Superusers read everything; anonymous users only
        public documents. Evaluated per query, so a change of groups takes
        effect at the next request."""
        if user is None or not user.is_authenticated or not user.is_active:
            return self.filter(public=True)
        if user.is_superuser:
            return self
        shared = Document.groups.through.objects.filter(group__user=user).values("document_id")
        return self.filter(Q(public=True) | Q(pk__in=shared))


class Document(models.Model):
    """A source in the archive: an announcement, a page of documentation, an
    article … Its content lives in revisions; ``current_revision`` is the
    newest revision that is fully indexed and serving."""

    key = models.CharField(verbose_name="kunci", max_length=64, unique=True, help_text="Kunci stabil, mis. D12")
    title = models.CharField(verbose_name="judul", max_length=500)
    url = models.URLField(verbose_name="URL sumber", max_length=1000, blank=True)
    # The column keeps its name and holds the key, so SQL reads it as before.
    source_type = models.ForeignKey(
        SourceType,
        verbose_name="jenis sumber",
        on_delete=models.PROTECT,
        db_column="source_type",
        default=DEFAULT_SOURCE_TYPE,
        related_name="documents",
    )
    public = models.BooleanField(verbose_name="publik", default=False, help_text="Terlihat oleh semua pengguna")
    groups = models.ManyToManyField(
        Group,
        verbose_name="grup",
        blank=True,
        related_name="documents",
        help_text="Grup yang boleh membaca dokumen ini",
    )
    collection = models.CharField(
        verbose_name="koleksi",
        max_length=100,
        default="editorial",
        db_index=True,
        help_text="Koleksi terpisah (mis. dataset publik untuk evaluasi)",
    )
    current_revision = models.ForeignKey(
        "Revision",
        verbose_name="revisi aktif",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Revisi aktif yang melayani pencarian",
    )
    # Fetching from ``url`` (retrieval.fetching): only documents with an
    # interval are re-fetched; the outcome of the last try is kept here, and a
    # failure never touches the revision that serves.
    fetch_every_hours = models.PositiveIntegerField(
        verbose_name="ambil ulang tiap (jam)",
        null=True,
        blank=True,
        help_text="Kosong: tidak diambil ulang dari URL. Diisi: diambil ulang otomatis setiap sekian jam",
    )
    last_fetched_at = models.DateTimeField(verbose_name="terakhir diambil", null=True, blank=True)
    fetch_status = models.CharField(
        verbose_name="hasil pengambilan",
        max_length=20,
        blank=True,
        choices=[
            ("changed", "Berubah — revisi baru"),
            ("unchanged", "Tidak berubah"),
            ("not_modified", "Tidak berubah (304)"),
            ("failed", "Gagal"),
        ],
    )
    fetch_error = models.TextField(verbose_name="galat pengambilan", blank=True)
    # What the server said of the version last fetched, sent back on the next
    # fetch so an unchanged page answers 304 and is not downloaded again.
    etag = models.CharField(
        verbose_name="tanda versi server",
        max_length=500,
        blank=True,
        help_text="Penanda versi dari server (ETag); dikirim kembali saat mengambil ulang, "
        "agar halaman yang tidak berubah tidak diunduh lagi.",
    )
    last_modified = models.CharField(
        verbose_name="terakhir diubah menurut server",
        max_length=100,
        blank=True,
        help_text="Waktu terakhir diubah yang dikirim server (Last-Modified), dipakai dengan cara yang sama.",
    )
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name="diperbarui", auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["key"]
        verbose_name = "dokumen"
        verbose_name_plural = "dokumen"

    def __str__(self) -> str:
        return f"{self.key} — {self.title}"


class RevisionStatus(models.TextChoices):
    PENDING = "pending", "Menunggu"
    INDEXING = "indexing", "Sedang diindeks"
    ACTIVE = "active", "Aktif"
    SUPERSEDED = "superseded", "Digantikan"
    FAILED = "failed", "Gagal"


class Revision(models.Model):
    """One version of a document's content. Only an ``active`` revision
    serves search; a ``superseded`` one stays for tracing what was published
    when. A revision becomes active only once all its chunks and embeddings
    are in place (see ``retrieval.ingestion.revision_index``)."""

    document = models.ForeignKey(Document, verbose_name="dokumen", on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField(verbose_name="nomor")
    title = models.CharField(verbose_name="judul", max_length=500, help_text="Judul pada revisi ini")
    content = models.TextField(verbose_name="isi")
    format = models.CharField(
        verbose_name="format", max_length=10, choices=ContentFormat.choices, default=ContentFormat.MARKDOWN
    )
    content_hash = models.CharField(verbose_name="hash isi", max_length=64, db_index=True)
    page_starts = models.JSONField(
        verbose_name="awal halaman",
        default=list,
        blank=True,
        help_text="Posisi awal tiap halaman dalam isi (PDF); kosong tanpa halaman",
    )
    ocr_pages = models.JSONField(
        verbose_name="halaman hasil OCR",
        default=list,
        db_default=models.Value([], output_field=models.JSONField()),
        blank=True,
        help_text="Halaman PDF yang teksnya dibaca OCR dari pindaian",
    )
    document_date = models.DateField(
        verbose_name="tanggal dokumen", null=True, blank=True, help_text="Tanggal terbit/berlaku dokumen itu sendiri"
    )
    fetched_at = models.DateTimeField(verbose_name="diambil", default=timezone.now, help_text="Kapan kami mengambilnya")
    indexed_at = models.DateTimeField(
        verbose_name="diindeks", null=True, blank=True, help_text="Kapan selesai diindeks"
    )
    status = models.CharField(
        verbose_name="status",
        max_length=12,
        choices=RevisionStatus.choices,
        default=RevisionStatus.PENDING,
        db_index=True,
    )
    error = models.TextField(verbose_name="galat", blank=True)
    # How far long work on it has got ("OCR: 4 dari 12 halaman"); empty when none runs.
    progress = models.CharField(verbose_name="kemajuan", max_length=200, blank=True, default="", db_default="")
    attempts = models.PositiveSmallIntegerField(verbose_name="jumlah percobaan", default=0)
    chunker_version = models.CharField(verbose_name="versi pemotong", max_length=40, blank=True)
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)
    updated_at = models.DateTimeField(verbose_name="diperbarui", auto_now=True)

    class Meta:
        ordering = ["document__key", "number"]
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="revision_unique_number"),
        ]
        verbose_name = "revisi"
        verbose_name_plural = "revisi"

    def __str__(self) -> str:
        return f"{self.document.key}:r{self.number}"

    @property
    def key(self) -> str:
        return f"{self.document.key}:r{self.number}"


class RevisionScan(models.Model):
    """A scanned PDF as it came, kept until the worker has read it with OCR
    (``retrieval/scans.py``): OCR takes minutes, so it is not done in a web
    request. Apart from ``Revision`` so that reading revisions never loads it."""

    revision = models.OneToOneField(
        Revision, verbose_name="revisi", on_delete=models.CASCADE, related_name="scan", primary_key=True
    )
    data = models.BinaryField(verbose_name="berkas")
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        verbose_name = "pindaian menunggu OCR"
        verbose_name_plural = "pindaian menunggu OCR"

    def __str__(self) -> str:
        return f"{self.revision_id}: {len(self.data)} bita"


class ChunkKind(models.TextChoices):
    PARAGRAPH = "paragraph", "Paragraf"
    LIST = "list", "Daftar"
    TABLE = "table", "Tabel"
    CODE = "code", "Kode"
    MIXED = "mixed", "Campuran"
    HEADING = "heading", "Judul"  # headings with no text under them (chunker v5)


class Chunk(models.Model):
    """A piece of one revision, cut along its structure. ``key`` is the
    evidence id editors see (``D12:r3:p4``); ``char_start``/``char_end`` locate
    it in ``revision.content``."""

    revision = models.ForeignKey(Revision, verbose_name="revisi", on_delete=models.CASCADE, related_name="chunks")
    # Denormalised so search can filter by permission without joining revisions.
    document = models.ForeignKey(Document, verbose_name="dokumen", on_delete=models.CASCADE, related_name="chunks")
    position = models.PositiveIntegerField(verbose_name="posisi")
    key = models.CharField(verbose_name="kunci", max_length=100, unique=True)
    kind = models.CharField(verbose_name="jenis", max_length=10, choices=ChunkKind.choices)
    heading_path = models.TextField(
        verbose_name="jejak judul", blank=True, help_text="Jejak judul, mis. Panduan > Akun > Sandi"
    )
    text = models.TextField(verbose_name="teks")
    token_count = models.PositiveIntegerField(verbose_name="jumlah token")
    char_start = models.PositiveIntegerField(verbose_name="awal karakter")
    char_end = models.PositiveIntegerField(verbose_name="akhir karakter")
    page = models.PositiveIntegerField(
        verbose_name="halaman", null=True, blank=True, help_text="Halaman tempat potongan dimulai (PDF)"
    )
    page_end = models.PositiveIntegerField(
        verbose_name="halaman akhir", null=True, blank=True, help_text="Halaman terakhir yang dicakup potongan (PDF)"
    )
    # Its text, or part of it, was read by OCR from a scan: shown as "hasil OCR".
    # db_default: a process still running the code of before can insert chunks.
    ocr = models.BooleanField(verbose_name="hasil OCR", default=False, db_default=False)
    # Lexemes counted for BM25 (the chunk's "document length").
    lexeme_count = models.PositiveIntegerField(verbose_name="jumlah leksem", default=0)

    class Meta:
        ordering = ["revision", "position"]
        constraints = [
            models.UniqueConstraint(fields=["revision", "position"], name="chunk_unique_position"),
        ]
        verbose_name = "potongan"
        verbose_name_plural = "potongan"

    def __str__(self) -> str:
        return self.key

    def as_draft(self) -> ChunkDraft:
        path = tuple(self.heading_path.split(BREADCRUMB_SEPARATOR)) if self.heading_path else ()
        return ChunkDraft(self.position, self.kind, path, self.text, self.token_count, self.char_start, self.char_end)


class EmbeddingSpace(models.Model):
    """Vectors are only comparable within one space: one provider, model,
    model version and dimension count. A new space is filled in the
    background and then made active, so switching models needs no downtime."""

    provider = models.CharField(verbose_name="penyedia", max_length=20)
    model = models.CharField(verbose_name="model", max_length=200)
    version = models.CharField(verbose_name="versi", max_length=100)
    dimensions = models.PositiveIntegerField(verbose_name="jumlah dimensi")
    is_active = models.BooleanField(verbose_name="aktif", default=False)
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "model", "version", "dimensions"], name="embedding_space_unique"
            ),
            models.UniqueConstraint(
                fields=["is_active"], condition=Q(is_active=True), name="embedding_space_one_active"
            ),
        ]
        verbose_name = "model pencarian makna"
        verbose_name_plural = "model pencarian makna"

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}@{self.version} ({self.dimensions}d)"


class ChunkEmbedding(models.Model):
    """A chunk's vector in one space. The column has no fixed dimension; each
    space gets its own partial HNSW index on ``embedding::vector(n)``."""

    chunk = models.ForeignKey(Chunk, verbose_name="potongan", on_delete=models.CASCADE, related_name="embeddings")
    space = models.ForeignKey(
        EmbeddingSpace, verbose_name="model pencarian makna", on_delete=models.CASCADE, related_name="embeddings"
    )
    embedding = VectorField(verbose_name="vektor makna")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["space", "chunk"], name="chunk_embedding_unique"),
        ]
        verbose_name = "vektor makna potongan"
        verbose_name_plural = "vektor makna potongan"

    def __str__(self) -> str:
        return f"vektor potongan {self.chunk_id} di ruang {self.space_id}"


class EmbeddingCacheEntry(models.Model):
    """Embeddings by what produced them: the text embedded, the model, the
    model version and the chunker version (hashed into ``key``). A content
    hash alone is not enough once the model or the chunker changes."""

    key = models.CharField(verbose_name="kunci", max_length=64, primary_key=True)
    embedding = VectorField(verbose_name="embedding")
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        verbose_name = "entri cache embedding"
        verbose_name_plural = "entri cache embedding"

    def __str__(self) -> str:
        return f"embedding tersimpan {self.key[:12]}…"


class RelationType(models.TextChoices):
    CITES = "cites", "mengutip"
    SUPERSEDES = "supersedes", "menggantikan"
    CONTRADICTS = "contradicts", "bertentangan dengan"
    MOTIVATES = "motivates", "mendasari"
    REJECTS = "rejects", "menolak"
    RELATED = "related", "terkait"


class Relation(models.Model):
    """A typed edge from one document to another, used for bounded graph
    expansion. The target is kept by key too, so a relation declared before
    its target is ingested resolves once the target arrives."""

    source = models.ForeignKey(Document, verbose_name="sumber", on_delete=models.CASCADE, related_name="relations_out")
    type = models.CharField(verbose_name="jenis", max_length=20, choices=RelationType.choices)
    target_key = models.CharField(verbose_name="kunci target", max_length=64)
    target = models.ForeignKey(
        Document, verbose_name="target", null=True, blank=True, on_delete=models.CASCADE, related_name="relations_in"
    )
    note = models.CharField(verbose_name="catatan", max_length=500, blank=True)
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "type", "target_key"], name="relation_unique"),
        ]
        verbose_name = "relasi"
        verbose_name_plural = "relasi"

    def __str__(self) -> str:
        return f"{self.source.key} {self.get_type_display()} {self.target_key}"


class Term(models.Model):
    """The lexical index's vocabulary: a lexeme and its integer id. Postings
    carry the 4-byte id instead of the text (sizes in bench/README.md)."""

    id = models.AutoField(primary_key=True)  # int4: postings are the index's bulk
    lexeme = models.TextField(verbose_name="leksem", unique=True)

    class Meta:
        verbose_name = "istilah"
        verbose_name_plural = "istilah"

    def __str__(self) -> str:
        return self.lexeme


class NarrowForeignKey(models.ForeignKey):
    """A foreign key stored as int4 whatever the target's type. Postings are
    the index's bulk, 100 per chunk: 4 bytes each on every row. (2³¹ chunk ids
    is far past the scale path in bench/README.md.)"""

    def db_type(self, connection) -> str:  # noqa: ANN001
        return "integer"


class RealField(models.FloatField):
    """A 4-byte float: a posting's weight needs no more than 7 digits."""

    def db_type(self, connection) -> str:  # noqa: ANN001
        return "real"


class Posting(models.Model):
    """One term of one chunk, for the lexical arm. ``weight`` is the BM25 term
    weight without IDF, ``tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))``, so
    the top postings of a term can be read straight off the index in impact
    order (see ``retrieval.lexical``).

    The row is as narrow as PostgreSQL allows (int4, int4, float4, int2: 40
    bytes with its header) and the primary key *is* the impact index,
    (term, weight, chunk), read backwards for the highest weights first and
    only from the index. Deleting a chunk's postings goes through a BRIN index
    on the chunk: postings are written chunk by chunk, so their physical
    order follows the chunk id, and a BRIN index costs a few pages where a
    B-tree would cost 20 bytes a posting."""

    pk = models.CompositePrimaryKey("term", "weight", "chunk")
    term = models.ForeignKey(
        Term, verbose_name="istilah", on_delete=models.PROTECT, related_name="postings", db_index=False
    )
    weight = RealField(verbose_name="bobot")
    chunk = NarrowForeignKey(
        Chunk, verbose_name="potongan", on_delete=models.CASCADE, related_name="postings", db_index=False
    )
    tf = models.SmallIntegerField(verbose_name="frekuensi istilah")

    class Meta:
        indexes = [BrinIndex(fields=["chunk"], pages_per_range=16, name="posting_chunk_brin")]
        verbose_name = "posting"
        verbose_name_plural = "posting"

    def __str__(self) -> str:
        return f"istilah {self.term_id} di potongan {self.chunk_id} (bobot {self.weight:.3f})"


class TermStat(models.Model):
    """Document frequency of a term in one collection: the number of its
    chunks containing it. Per collection, so a public dataset loaded for
    evaluation never shifts the editorial archive's IDF (or the reverse)."""

    collection = models.CharField(verbose_name="koleksi", max_length=100)
    term = models.ForeignKey(
        Term, verbose_name="istilah", on_delete=models.PROTECT, related_name="stats", db_index=False
    )
    df = models.PositiveIntegerField(verbose_name="frekuensi dokumen")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "term"], name="termstat_collection_term")]
        verbose_name = "statistik istilah"
        verbose_name_plural = "statistik istilah"

    def __str__(self) -> str:
        return f"istilah {self.term_id} di koleksi {self.collection}: {self.df} potongan"


class LexicalStats(models.Model):
    """Corpus totals for BM25, one row per collection. ``weights_avglen`` is
    the average length the stored posting weights were computed with; weights
    are refreshed when the real average drifts (a periodic task)."""

    collection = models.CharField(verbose_name="koleksi", max_length=100, unique=True)
    chunk_count = models.PositiveIntegerField(verbose_name="jumlah potongan", default=0)
    total_length = models.PositiveBigIntegerField(verbose_name="panjang total", default=0)
    weights_avglen = models.FloatField(verbose_name="panjang rata-rata bobot", default=0)

    class Meta:
        verbose_name = "statistik leksikal"
        verbose_name_plural = "statistik leksikal"

    def __str__(self) -> str:
        return f"statistik leksikal koleksi {self.collection} ({self.chunk_count} potongan)"

    @property
    def avglen(self) -> float:
        return self.total_length / self.chunk_count if self.chunk_count else 0.0
