"""Review models: API tokens, questions, answers, claims and their evidence."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A bearer token for scripts, issued per user. Only its SHA-256 is kept;
    the token itself is shown once, when it is issued (``review.tokens``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="pengguna", on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(verbose_name="nama", max_length=100, help_text="Untuk apa token ini, mis. 'skrip evaluasi'")
    prefix = models.CharField(
        verbose_name="awalan", max_length=12, editable=False, help_text="Awal token, untuk mengenalinya"
    )
    digest = models.CharField(verbose_name="digest SHA-256", max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)
    last_used_at = models.DateTimeField(verbose_name="terakhir dipakai", null=True, blank=True, editable=False)
    revoked = models.BooleanField(
        verbose_name="dicabut", default=False, help_text="Token yang dicabut tidak lagi diterima"
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "token API"
        verbose_name_plural = "token API"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user}, {self.name})"


class QuestionState(models.TextChoices):
    QUEUED = "queued", "menunggu"
    RUNNING = "running", "diproses"
    DONE = "done", "selesai"
    FAILED = "failed", "gagal"


class Question(models.Model):
    """A question an editor asked, as of a date (None: now). ``state`` and
    ``stage`` show the editor where the answer pipeline is."""

    text = models.TextField(verbose_name="teks")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="penanya", null=True, on_delete=models.SET_NULL, related_name="questions"
    )
    asked_at = models.DateTimeField(verbose_name="ditanyakan", auto_now_add=True)
    as_of = models.DateField(
        verbose_name="per tanggal", null=True, blank=True, help_text="Jawab menurut arsip pada tanggal ini"
    )
    category = models.CharField(
        verbose_name="kategori", max_length=50, blank=True, help_text="Kategori untuk dasbor waktu pencarian"
    )
    state = models.CharField(
        verbose_name="keadaan", max_length=10, choices=QuestionState.choices, default=QuestionState.DONE
    )
    stage = models.CharField(verbose_name="tahap", max_length=20, blank=True, help_text="Tahap yang sedang berjalan")
    error = models.TextField(verbose_name="galat", blank=True)
    # "Tanyakan lagi" on an answer whose sources changed: the new question
    # remembers the answer it was asked again from, so each page links the other.
    asked_again_from = models.ForeignKey(
        "Answer",
        verbose_name="ditanyakan lagi dari",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="asked_again",
        help_text="Jawaban lama yang sumbernya berubah, tempat pertanyaan ini ditanyakan lagi",
    )

    class Meta:
        ordering = ["-asked_at"]
        verbose_name = "pertanyaan"
        verbose_name_plural = "pertanyaan"

    def __str__(self) -> str:
        return f"Q{self.pk}: {self.text[:80]}"

    @property
    def public_id(self) -> str:
        return f"Q{self.pk}"


class AnswerStatus(models.TextChoices):
    ANSWERED = "answered", "terjawab"
    NEEDS_REVIEW = "needs_review", "perlu ditinjau"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence", "bukti tidak cukup"


class Answer(models.Model):
    """One drafted answer with everything needed to reproduce and audit it."""

    question = models.ForeignKey(Question, verbose_name="pertanyaan", on_delete=models.CASCADE, related_name="answers")
    status = models.CharField(verbose_name="status", max_length=30, choices=AnswerStatus.choices)
    generator = models.CharField(verbose_name="generator", max_length=50)
    retrieval = models.JSONField(
        verbose_name="pengaturan pencarian", default=dict, help_text="Pengaturan pencarian yang dipakai"
    )
    timings_ms = models.JSONField(verbose_name="waktu (ms)", default=dict)
    degraded = models.JSONField(verbose_name="degradasi", default=list)
    contract = models.JSONField(verbose_name="kontrak", default=dict, help_text="Kontrak jawaban lengkap saat dibuat")
    raw_output = models.TextField(
        verbose_name="keluaran mentah", blank=True, help_text="Teks asli model bahasa sebelum diolah (hanya admin)"
    )
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "jawaban"
        verbose_name_plural = "jawaban"

    def __str__(self) -> str:
        return f"Jawaban {self.pk} untuk Q{self.question_id} ({self.get_status_display()})"


class ClaimReview(models.TextChoices):
    PENDING = "pending", "belum ditinjau"
    SUPPORTED = "supported", "didukung"
    NEEDS_REVIEW = "needs_review", "perlu ditinjau"


class Claim(models.Model):
    answer = models.ForeignKey(Answer, verbose_name="jawaban", on_delete=models.CASCADE, related_name="claims")
    position = models.PositiveIntegerField(verbose_name="posisi")
    text = models.TextField(verbose_name="teks")
    flags = models.JSONField(
        verbose_name="tanda", default=list, help_text="Temuan validasi, mis. weak_support, conflict"
    )
    review_status = models.CharField(
        verbose_name="status tinjauan", max_length=20, choices=ClaimReview.choices, default=ClaimReview.PENDING
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="peninjau",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviewed_claims",
    )
    review_note = models.TextField(verbose_name="catatan tinjauan", blank=True)
    reviewed_at = models.DateTimeField(verbose_name="ditinjau", null=True, blank=True)

    class Meta:
        ordering = ["answer", "position"]
        constraints = [models.UniqueConstraint(fields=["answer", "position"], name="claim_position_unique")]
        verbose_name = "klaim"
        verbose_name_plural = "klaim"
        # The editor's right: decide claims, write notes, make evaluation
        # cases, see others' notes, the review queue and the lookup times.
        permissions = [("review_claim", "Dapat meninjau klaim (menilai, mencatat, antrean, waktu tinjauan)")]

    def __str__(self) -> str:
        return self.text[:80]


class ClaimEvidence(models.Model):
    """A chunk a claim cites. The evidence id is kept as text too: a chunk
    row may be replaced by re-indexing, the citation must not change."""

    claim = models.ForeignKey(Claim, verbose_name="klaim", on_delete=models.CASCADE, related_name="evidence")
    evidence_id = models.CharField(verbose_name="ID bukti", max_length=100)
    document = models.ForeignKey(
        "retrieval.Document", verbose_name="dokumen", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    revision = models.ForeignKey(
        "retrieval.Revision", verbose_name="revisi", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    chunk = models.ForeignKey(
        "retrieval.Chunk", verbose_name="potongan", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    rank = models.PositiveIntegerField(
        verbose_name="peringkat", help_text="Urutan bukti ini di antara bukti yang dibaca mesin jawaban"
    )
    semantic_score = models.FloatField(verbose_name="skor semantik", null=True)
    rrf_score = models.FloatField(verbose_name="skor gabungan peringkat", null=True)
    rerank_score = models.FloatField(verbose_name="skor rerank", null=True)
    superseded = models.BooleanField(verbose_name="digantikan", default=False)
    conflict = models.BooleanField(verbose_name="bertentangan", default=False)
    via_graph = models.BooleanField(verbose_name="lewat graf", default=False)

    class Meta:
        ordering = ["claim", "rank"]
        verbose_name = "bukti klaim"
        verbose_name_plural = "bukti klaim"

    def __str__(self) -> str:
        return self.evidence_id


class EvidenceLookup(models.Model):
    """How long an editor spent looking at a claim's evidence, as the desk's
    page measured it (``review/lookups.py`` says how): one record per
    editor and claim, with the raw times kept for audit."""

    editor = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="editor", on_delete=models.CASCADE, related_name="lookups"
    )
    claim = models.ForeignKey(Claim, verbose_name="klaim", on_delete=models.CASCADE, related_name="lookups")
    shown_at = models.DateTimeField(verbose_name="ditampilkan")
    seen_at = models.DateTimeField(verbose_name="pertama terlihat", null=True, blank=True)
    opened_at = models.DateTimeField(verbose_name="dibuka", null=True, blank=True)
    decided_at = models.DateTimeField(verbose_name="diputuskan", null=True, blank=True)
    looked_ms = models.PositiveIntegerField(verbose_name="waktu melihat (ms)", default=0)
    duration_ms = models.PositiveIntegerField(verbose_name="durasi (ms)", null=True, blank=True)
    outcome = models.CharField(verbose_name="hasil", max_length=20, choices=ClaimReview.choices, blank=True)

    class Meta:
        ordering = ["-shown_at"]
        constraints = [
            # One record per editor and claim: a second look adds to it.
            models.UniqueConstraint(fields=["editor", "claim"], name="lookup_one_per_editor_claim"),
        ]
        verbose_name = "waktu pencarian bukti"
        verbose_name_plural = "waktu pencarian bukti"

    def __str__(self) -> str:
        return f"{self.editor} · klaim {self.claim_id} · {self.duration_ms or '–'} ms"


# --- evaluation ------------------------------------------------------------------------


class EvalCategory(models.TextChoices):
    EXACT_IDENTIFIER = "exact_identifier", "identifikasi persis"
    PARAPHRASE = "paraphrase", "parafrasa"
    NEAR_DUPLICATE_OLD_REVISION = "near_duplicate_old_revision", "revisi lama yang mirip"
    MIXED_LANGUAGE = "mixed_language", "campuran Indonesia-Inggris"
    NO_ANSWER = "no_answer", "tanpa jawaban"
    RESTRICTED = "restricted", "terbatas"
    REGRESSION = "regression", "regresi dari tinjauan"
    # The editor-style dev set (demo/editor-dev.jsonl): how editors ask.
    FRAME = "frame", "kerangka pertanyaan"
    YES_NO = "yes_no", "ya/tidak"
    ENGLISH = "english", "bahasa Inggris"
    EXACT_STRING = "exact_string", "teks persis"
    TABLE = "table", "nilai tabel"
    NOW = "now", "keadaan sekarang"
    AS_OF = "as_of", "per tanggal"
    NEAR_MISS = "near_miss", "nyaris cocok"
    KEYWORD = "keyword", "kata kunci"
    OTHER = "other", "lainnya"


class EvalSet(models.Model):
    """A named set of evaluation questions with gold evidence."""

    name = models.SlugField(verbose_name="nama", max_length=100, unique=True)
    description = models.TextField(verbose_name="deskripsi", blank=True)
    collection = models.CharField(
        verbose_name="koleksi",
        max_length=100,
        default="editorial",
        help_text="Koleksi yang ditanyai: arsip redaksi, atau dataset publik yang dimuat "
        "terpisah (eval_import --squad)",
    )
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "set evaluasi"
        verbose_name_plural = "set evaluasi"

    def __str__(self) -> str:
        return self.name


class EvalCase(models.Model):
    """One question: who asks it (permissions matter), as of when, which
    document revisions (or chunks) answer it, and the status expected."""

    eval_set = models.ForeignKey(EvalSet, verbose_name="set evaluasi", on_delete=models.CASCADE, related_name="cases")
    case_id = models.CharField(verbose_name="ID kasus", max_length=50)
    question = models.TextField(verbose_name="pertanyaan")
    category = models.CharField(
        verbose_name="kategori", max_length=40, choices=EvalCategory.choices, default=EvalCategory.OTHER
    )
    username = models.CharField(
        verbose_name="nama pengguna", max_length=150, blank=True, help_text="Penanya; kosong = pembaca anonim"
    )
    as_of = models.DateField(verbose_name="per tanggal", null=True, blank=True)
    gold = models.JSONField(
        verbose_name="bukti acuan",
        default=list,
        help_text='[{"document": "D13", "revision": 3}] atau [{"chunk": "D13:r3:p1"}]',
    )
    expected_status = models.CharField(
        verbose_name="status yang diharapkan", max_length=30, choices=AnswerStatus.choices
    )
    answers = models.JSONField(
        verbose_name="kunci jawaban",
        default=list,
        blank=True,
        help_text='Kunci jawaban: teks yang harus dimuat klaim yang benar, mis. ["30 jam"]',
    )
    conflict = models.BooleanField(
        verbose_name="konflik", default=False, help_text="Sumber yang bertentangan harus terdeteksi"
    )
    note = models.TextField(verbose_name="catatan", blank=True)
    source_claim = models.ForeignKey(
        Claim,
        verbose_name="klaim asal",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="eval_cases",
        help_text="Klaim tinjauan asal kasus regresi",
    )

    class Meta:
        ordering = ["eval_set", "case_id"]
        constraints = [models.UniqueConstraint(fields=["eval_set", "case_id"], name="eval_case_unique")]
        verbose_name = "kasus evaluasi"
        verbose_name_plural = "kasus evaluasi"

    def __str__(self) -> str:
        return f"{self.case_id}: {self.question[:60]}"


class EvalRun(models.Model):
    """One evaluation run with everything needed to reproduce it."""

    kind = models.CharField(
        verbose_name="jenis", max_length=20, choices=[("retrieval", "pencarian"), ("answers", "jawaban")]
    )
    label = models.CharField(verbose_name="label", max_length=200, blank=True)
    eval_set = models.ForeignKey(
        EvalSet, verbose_name="set evaluasi", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    dataset = models.CharField(
        verbose_name="dataset", max_length=300, blank=True, help_text="Direktori BEIR, bila bukan set evaluasi"
    )
    config = models.JSONField(verbose_name="konfigurasi", default=dict)
    metrics = models.JSONField(
        verbose_name="metrik", default=dict, help_text="{mode: {measure: nilai}} dan per kategori"
    )
    created_at = models.DateTimeField(verbose_name="dibuat", auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "run evaluasi"
        verbose_name_plural = "run evaluasi"

    def __str__(self) -> str:
        return f"run {self.pk} ({self.kind}, {self.label or self.dataset or self.eval_set})"


class EvalResult(models.Model):
    """One query of a run in one mode: its ranked candidates and measures,
    so two runs can be compared query by query."""

    run = models.ForeignKey(EvalRun, verbose_name="run", on_delete=models.CASCADE, related_name="results")
    case_id = models.CharField(verbose_name="ID kasus", max_length=100)
    mode = models.CharField(verbose_name="mode", max_length=30)
    category = models.CharField(verbose_name="kategori", max_length=40, blank=True)
    candidates = models.JSONField(verbose_name="kandidat", default=list)
    measures = models.JSONField(verbose_name="ukuran", default=dict)
    latency_ms = models.FloatField(verbose_name="latensi (ms)", null=True)

    class Meta:
        ordering = ["run", "mode", "case_id"]
        indexes = [models.Index(fields=["run", "mode"], name="eval_result_run_mode")]
        verbose_name = "hasil evaluasi"
        verbose_name_plural = "hasil evaluasi"

    def __str__(self) -> str:
        return f"hasil run {self.run_id}, kasus {self.case_id}, mode {self.mode}"
