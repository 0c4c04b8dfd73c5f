"""The editor's desk. Views parse, call one service or selector, render;
htmx requests get the named partial of the same template. Every object is
looked up through a ``visible_to`` QuerySet, so what a reader may not see is
a 404, never a 403 that would confirm it exists. Reviewing needs the
``review.review_claim`` permission on top: a reader who may see a claim but
not judge it gets a 403 (checked after visibility, so it confirms nothing)."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_DOWN, Decimal
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseStopPolling, reswap, retarget
from django_htmx.middleware import HtmxDetails

from retrieval.in_force import archive_starts, as_of_problem
from retrieval.models import Chunk, Document, Revision, RevisionStatus
from retrieval.search import MODES, SearchError, search
from review.asking import contract_for, question_run, question_submit
from review.desk import dashboard, diffing, export
from review.desk.evidence_html import chunk_html, snippet_html
from review.desk.search_floor import floor_check
from review.evaluation.sets import case_from_claim
from review.freshness import (
    STALE_FILTER,
    Freshness,
    asked_again_links,
    contract_now,
    newer_since,
    replaced_source,
    since_sentence,
    with_sources_changed,
)
from review.lookup_times import lookup_stats
from review.lookups import looked_report, lookup_looked, lookup_open, lookups_start
from review.models import Answer, AnswerStatus, Claim, ClaimReview, Question, QuestionState
from review.reviewing import (
    OldSourcesUnconfirmed,
    answers_visible_to,
    can_review,
    categories_visible_to,
    claim_note_save,
    claim_review,
    claims_visible_to,
    lookups_visible_to,
)
from review.tasks import answer_after_commit

STAGES = [
    ("search", "Mencari bukti (leksikal + semantik)"),
    ("generate", "Menyusun klaim dari bukti"),
    ("validate", "Memeriksa kutipan, kesegaran dan konflik"),
    ("persist", "Menyimpan jawaban"),
]


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


NOT_A_REVIEWER = (
    "Ini untuk peninjau: menilai klaim, catatan, antrean dan waktu tinjauan memerlukan hak "
    "peninjau dari admin. Jawaban yang boleh Anda lihat tetap dapat Anda baca."
)


def _claim_error(request: HtmxHttpRequest, pk: int, message: str, status: int) -> HttpResponse:
    """An error about one claim, shown in that claim's alert line (not in
    place of the claim) when asked through htmx."""
    response = HttpResponse(escape(message), status=status)
    if request.htmx:
        retarget(response, f"#claim-error-{pk}")
        reswap(response, "innerHTML")
    return response


def _require_reviewer(request: HttpRequest) -> None:
    if not can_review(request.user):
        raise PermissionDenied(NOT_A_REVIEWER)


# --- asking ---------------------------------------------------------------------


@require_GET
@login_required
def home(request: HtmxHttpRequest) -> HttpResponse:
    """The ask form, with the reader's recent questions."""
    recent = Question.objects.filter(asked_by=request.user).prefetch_related("answers").order_by("-asked_at")[:8]
    context = {
        "recent": recent,
        "today": timezone.localdate(),
        "starts": archive_starts(request.user),
        "categories": categories_visible_to(request.user),
    }
    return render(request, "desk/home.html", context)


@require_POST
@login_required
def ask(request: HtmxHttpRequest) -> HttpResponse:
    text = request.POST.get("question", "")
    as_of_raw = request.POST.get("as_of", "").strip()
    category = request.POST.get("category", "").strip()
    # The page checks its own fields (the form is novalidate): the browser's
    # messages would come in the browser's language.
    try:
        as_of = date.fromisoformat(as_of_raw) if as_of_raw else None
    except ValueError:
        as_of, error = None, "Tanggal tidak valid; gunakan format TTTT-BB-HH."
    else:
        error = as_of_problem(as_of, request.user, timezone.localdate())
    if not text.strip():
        error = "Tulis pertanyaan Anda dulu: kolom pertanyaan masih kosong."
    elif not error and len(category) > 50:
        error = f"Kategori paling banyak 50 karakter (terisi {len(category)})."
    if not error:
        try:
            question = question_submit(text=text, user=request.user, as_of=as_of, category=category)
        except SearchError as exc:
            error = f"Pertanyaan tidak dapat diproses: {exc}."
        else:
            _asked_again_from(request, question)
            answer_after_commit(question.pk)
            url = reverse("question", args=[question.pk])
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    recent = Question.objects.filter(asked_by=request.user).order_by("-asked_at")[:8]
    return render(
        request,
        "desk/home.html",
        {
            "recent": recent,
            "error": error,
            "question": text,
            "as_of": as_of_raw,
            "category": category,
            "today": timezone.localdate(),
            "starts": archive_starts(request.user),
            "categories": categories_visible_to(request.user),
        },
        status=400,
    )


@require_GET
@login_required
def question(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Progress of one's own question, stage by stage; the answer when done."""
    item = get_object_or_404(Question, pk=pk, asked_by=request.user)
    answer = item.answers.order_by("-pk").first()
    if item.state == QuestionState.DONE and answer is not None:
        url = reverse("answer", args=[answer.pk])
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    stage_names = [name for name, _ in STAGES]
    current = stage_names.index(item.stage) if item.stage in stage_names else -1
    context = {
        "item": item,
        "stages": [(label, i < current, i == current) for i, (_, label) in enumerate(STAGES)],
        "waiting_long": item.state == QuestionState.QUEUED and _age_seconds(item) > 10,
        "poll_ms": settings.NALARKU_PROGRESS_POLL_MS,
    }
    if request.htmx:
        response = render(request, "desk/question.html#progress", context)
        return HttpResponseStopPolling(response.content) if item.state == QuestionState.FAILED else response
    return render(request, "desk/question.html", context)


@require_POST
@login_required
def question_run_now(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """No worker took the question: answer it in this request."""
    item = get_object_or_404(
        Question, pk=pk, asked_by=request.user, state__in=[QuestionState.QUEUED, QuestionState.FAILED]
    )
    Question.objects.filter(pk=item.pk).update(state=QuestionState.QUEUED, error="")
    question_run(question_id=item.pk)
    return redirect("question", pk=item.pk)


def _asked_again_from(request: HttpRequest, question: Question) -> None:
    """The "Tanyakan lagi" button sends ``dari``, the answer whose sources changed: the
    new question remembers it, if the asker may open that answer (else it is
    ignored, saying nothing about it)."""
    raw = request.POST.get("dari", "")
    if raw.isdigit() and answers_visible_to(request.user).filter(pk=int(raw)).exists():
        Question.objects.filter(pk=question.pk).update(asked_again_from_id=int(raw))


def _age_seconds(item: Question) -> float:
    return (timezone.now() - item.asked_at).total_seconds()


# --- answers and review ----------------------------------------------------------------


def _claims_for(answer: Answer, reader: HttpRequest) -> list[Claim]:
    return list(claims_visible_to(reader.user).filter(answer=answer).select_related("reviewer").order_by("position"))


@require_GET
@login_required
def answer_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    answer = get_object_or_404(answers_visible_to(request.user).select_related("question"), pk=pk)
    claims = _claims_for(answer, request)
    reviewer = can_review(request.user)
    if reviewer:  # the lookup clock runs for those who judge the claims
        lookups_start(answer=answer, editor=request.user, claims=claims)
    return _answer_page(request, answer, claims)


def _answer_page(
    request: HttpRequest, answer: Answer, claims: list[Claim], *, confirm: dict | None = None, status: int = 200
) -> HttpResponse:
    """The answer as the reader may see it now: its evidence checked against
    the revisions in force, the way to ask again when they changed, and the
    answers it was asked again from or as."""
    fresh = contract_now(contract_for(answer, request.user), request.user, as_of=answer.question.as_of)
    contract = fresh.contract
    texts = _evidence_texts(contract, request)
    rows = _claim_rows(claims, contract, texts, answer, fresh)
    older, newer = asked_again_links(answer, request.user)
    return render(
        request,
        "desk/answer.html",
        {
            "answer": answer,
            "contract": contract,
            "rows": rows,
            # Said per source ("D08 r1 kini r2"), not per chunk: one line however many chunks it gave.
            "changed": list(
                dict.fromkeys(replaced_source(eid, fresh.changed[eid]) for row in rows for eid in row["changed"])
            ),
            "since": since_sentence(since) if (since := newer_since(fresh)) else "",
            "asked_again_from": older,
            "asked_again": newer,
            "confirm": confirm,
            "technical": request.user.is_staff or request.user.is_superuser,
            "can_review": can_review(request.user),
            "open_first": 2,
            "conflicts": [_conflict_row(c, contract) for c in contract.conflicts],
            "uncited": [
                (eid, e, chunk_html(texts.get(eid, "")))
                for eid, e in contract.evidence.items()
                if not any(eid in c.evidence_ids for c in contract.claims)
            ],
        },
        status=status,
    )


def _claim_rows(claims: list[Claim], contract, texts: dict[str, str], answer: Answer, fresh: Freshness) -> list[dict]:  # noqa: ANN001
    """Each claim with its evidence: the chunk rendered as its source reads,
    the claim's unit marked, and the link to the revision with it marked too;
    ``old``: one "Revisi lama — kini rN" per document whose cited revision is
    no longer in force, ``changed``: the evidence that stopped being so since
    the answer was made."""
    by_text = {c.text: c for c in contract.claims}
    rows = []
    for claim in claims:
        stored = by_text.get(claim.text)
        if stored is None:  # withheld from this reader by contract_for
            continue
        evidence = []
        for eid in stored.evidence_ids:
            if eid not in contract.evidence:
                continue
            span = stored.spans.get(eid)
            link = (
                reverse("evidence", args=[eid])
                + f"?jawaban={answer.pk}"
                + (f"&sorot={span[0]}-{span[1]}" if span else "")
            )
            evidence.append((eid, contract.evidence[eid], chunk_html(texts.get(eid, ""), span), link))
        shown = [eid for eid, *_ in evidence]
        old = {contract.evidence[eid].document: (eid, now) for eid, now in fresh.old_sources(shown)}
        rows.append(
            {"claim": claim, "evidence": evidence, "old": list(old.values()), "changed": fresh.changed_in(shown)}
        )
    return rows


def _evidence_texts(contract, request: HttpRequest) -> dict[str, str]:  # noqa: ANN001
    """Chunk texts of the contract's evidence, read again under the reader's
    permissions (contract_for already dropped what they may not see)."""
    return dict(
        Chunk.objects.filter(
            key__in=list(contract.evidence), document__in=Document.objects.visible_to(request.user)
        ).values_list("key", "text")
    )


def _conflict_row(conflict, contract) -> dict:  # noqa: ANN001
    """A conflict as the desk shows it: each side under what it says, its
    sources newest first, its newest date and its best source type's rank,
    which side is newer ("tanggal sama" when the dates are one) and which
    more authoritative. Contracts stored before sides were weighed: each
    evidence id its own side, weighed here from its source type and date."""
    from retrieval import source_types

    seen = {eid for eid in conflict.evidence_ids if eid in contract.evidence}
    groups = conflict.sides or [[eid] for eid in conflict.evidence_ids]
    sides = []
    for n, ids in enumerate(groups):
        cards = sorted(
            [(eid, contract.evidence[eid]) for eid in ids if eid in seen],
            key=lambda card: card[1].document_date or "",
            reverse=True,
        )
        if not cards:
            continue  # withheld from this reader by contract_for
        best = min((e for _, e in cards), key=lambda e: source_types.authority(e.source_type))
        label = conflict.labels[n] if n < len(conflict.labels) else conflict.values.get(cards[0][0], "")
        rank = conflict.ranks[n] if n < len(conflict.ranks) else source_types.authority(best.source_type)
        sides.append(
            {
                "label": label or f"Sisi {n + 1}",
                "cards": cards,
                "newest": cards[0][1].document_date or "",
                "type": source_types.label(best.source_type).lower(),
                "rank": rank,
            }
        )
    dates = {side["newest"] for side in sides}
    top = max(dates, default="")
    ranks = [side["rank"] for side in sides]
    for side in sides:
        side["newer"] = len(dates) > 1 and side["newest"] == top and [x["newest"] for x in sides].count(top) == 1
        side["authoritative"] = len(set(ranks)) > 1 and side["rank"] == min(ranks) and ranks.count(min(ranks)) == 1
    newer = next((side for side in sides if side["newer"]), None)
    strong = next((side for side in sides if side["authoritative"]), None)
    if len(sides) < 2:
        when = authority = ""
    else:
        when = (
            f"Lebih baru: “{newer['label']}” ({newer['newest']})."
            if newer
            else f"Tanggal sama ({top or 'tidak diketahui'})."
            if len(dates) == 1
            else f"Tanggal terbaru sama di lebih dari satu sisi ({top})."
        )
        others = ", ".join(f"{side['type']}, peringkat {side['rank']}" for side in sides if side is not strong)
        authority = (
            f"Lebih berwenang: “{strong['label']}” — {strong['type']}, peringkat {strong['rank']} (di atas {others})."
            if strong
            else f"Sama berwenang: peringkat {min(ranks)} di kedua sisi."
            if len(sides) == 2
            else f"Sama berwenang: peringkat {min(ranks)} di sisi teratas."
        )
    return {"conflict": conflict, "sides": sides, "when": when, "authority": authority}


EXPORTS = {
    "json": (export.answer_export_json, "application/json; charset=utf-8"),
    "md": (export.answer_export_markdown, "text/markdown; charset=utf-8"),
}


@require_GET
@login_required
def answer_export(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """``?format=json`` (default) or ``md``: the answer as the reader may see it."""
    answer = get_object_or_404(answers_visible_to(request.user).select_related("question"), pk=pk)
    fresh = contract_now(contract_for(answer, request.user), request.user, as_of=answer.question.as_of)
    claims = _claims_for(answer, request)
    ext = "md" if request.GET.get("format") == "md" else "json"
    build, kind = EXPORTS[ext]
    body = build(
        answer=answer,
        contract=fresh.contract,
        claims=claims,
        reviews=can_review(request.user),
        changed=fresh.changed,
        since=newer_since(fresh),
    )
    response = HttpResponse(body, content_type=kind)
    response["Content-Disposition"] = f'attachment; filename="jawaban-{answer.pk}.{ext}"'
    return response


@require_POST
@login_required
def claim_decide(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    claim = get_object_or_404(claims_visible_to(request.user).select_related("answer"), pk=pk)
    _require_reviewer(request)
    # Only the two decision buttons (or d / t) send a status; the note's own
    # button, which Enter in the note field presses, sends none and decides nothing.
    status, note = request.POST.get("status", ""), request.POST.get("note", "")
    if report := looked_report(request.POST):  # the page's lookup clock, sent with every press
        lookup_looked(claim=claim, editor=request.user, looked_ms=report[0], seen_ms=report[1])
    try:
        if status:
            confirmed = bool(request.POST.get("confirm"))
            claim = claim_review(claim=claim, reviewer=request.user, status=status, note=note, confirmed=confirmed)
        else:
            claim = claim_note_save(claim=claim, editor=request.user, note=note)
    except OldSourcesUnconfirmed as exc:
        # Nothing saved: the claim comes back asking to confirm, in its row
        # (htmx) or on the answer's page; the lookup stays open.
        confirm = {"claim": claim.pk, "status": status, "note": note, "old": exc.old}
        if not request.htmx:
            return _answer_page(request, claim.answer, _claims_for(claim.answer, request), confirm=confirm, status=409)
        return _claim_partial(request, claim, confirm=confirm, status=409)
    except ValueError as exc:
        return _claim_error(request, claim.pk, str(exc), 400)
    if status:
        saved = "Penilaian klaim disimpan."
    elif claim.review_status == ClaimReview.PENDING:
        saved = "Catatan disimpan; klaim belum dinilai."
    else:
        saved = "Catatan disimpan; penilaian tidak berubah."
    if not request.htmx:
        messages.success(request, saved)
        return redirect("answer", pk=claim.answer_id)
    return _claim_partial(request, claim, saved=saved)


def _claim_partial(
    request: HttpRequest, claim: Claim, *, saved: str = "", confirm: dict | None = None, status: int = 200
) -> HttpResponse:
    """One claim's row after a decision, a note or a request to confirm, with
    the answer's status swapped out of band."""
    answer = Answer.objects.select_related("question").get(pk=claim.answer_id)
    fresh = contract_now(contract_for(answer, request.user), request.user, as_of=answer.question.as_of)
    texts = _evidence_texts(fresh.contract, request)
    row = next(r for r in _claim_rows([claim], fresh.contract, texts, answer, fresh))
    context = {"row": row, "answer": answer, "can_review": True, "saved": saved, "confirm": confirm}
    return render(request, "desk/answer.html#claim-decided", context, status=status)


@require_POST
@login_required
def claim_to_case(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One click: a claim marked needs_review becomes a regression case."""
    claim = get_object_or_404(claims_visible_to(request.user).select_related("answer__question"), pk=pk)
    _require_reviewer(request)
    try:
        case = case_from_claim(claim=claim, user=request.user)
    except ValueError as exc:
        return _claim_error(request, claim.pk, str(exc), 400)
    message = f"Tersimpan sebagai kasus evaluasi {case.case_id} (set {case.eval_set.name})."
    if request.htmx:
        return HttpResponse(f'<p class="message" role="status">{escape(message)}</p>')
    messages.success(request, message)
    return redirect("answer", pk=claim.answer_id)


@require_POST
@login_required
def claim_evidence_opened(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    claim = get_object_or_404(claims_visible_to(request.user), pk=pk)
    _require_reviewer(request)
    lookup_open(claim=claim, editor=request.user)
    return HttpResponse(status=204)


@require_POST
@login_required
def claim_looked(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The lookup clock's beacon (tab hidden, page left): the looking so far
    is kept, so that it counts when the answer is reopened and decided."""
    claim = get_object_or_404(claims_visible_to(request.user), pk=pk)
    _require_reviewer(request)
    report = looked_report(request.POST)
    if report is None:
        return HttpResponse("looked_ms dan seen_ms harus bilangan bulat ≥ 0.", status=400)
    lookup_looked(claim=claim, editor=request.user, looked_ms=report[0], seen_ms=report[1])
    return HttpResponse(status=204)


@require_GET
@login_required
def evidence(request: HtmxHttpRequest, evidence_id: str) -> HttpResponse:
    """``D12:r3:p4`` → the revision page scrolled to that chunk; ``sorot`` (the
    cited unit's span) and ``jawaban`` (the answer it came from) go along."""
    chunk = get_object_or_404(
        Chunk.objects.select_related("document", "revision"),
        key=evidence_id,
        document__in=Document.objects.visible_to(request.user),
    )
    url = reverse("revision", args=[chunk.document.key, chunk.revision.number])
    params = {"potongan": chunk.position, **{k: request.GET[k] for k in ("sorot", "jawaban") if k in request.GET}}
    return redirect(f"{url}?{urlencode(params)}#p{chunk.position}")


@require_GET
@login_required
def review_queue(request: HtmxHttpRequest) -> HttpResponse:
    _require_reviewer(request)
    queue = with_sources_changed(
        answers_visible_to(request.user)
        .filter(Q(status=AnswerStatus.NEEDS_REVIEW) | Q(claims__review_status=ClaimReview.PENDING))
        .distinct(),
        request.user,
    )
    # "sumber berubah": answers resting on a revision replaced since, apart and counted.
    counts = {"all": queue.count(), "changed": queue.filter(sources_changed=True).count()}
    changed_only = request.GET.get("sumber") == STALE_FILTER
    answers = (
        (queue.filter(sources_changed=True) if changed_only else queue)
        .select_related("question", "question__asked_by")
        .annotate(open_claims=Count("claims", filter=~Q(claims__review_status=ClaimReview.SUPPORTED), distinct=True))
        .order_by("-sources_changed", "-created_at")
    )
    page = Paginator(answers, 25).get_page(request.GET.get("halaman"))
    return render(
        request,
        "desk/queue.html",
        {"page": page, "counts": counts, "changed_only": changed_only, "stale": STALE_FILTER},
    )


@require_GET
@login_required
def history(request: HtmxHttpRequest) -> HttpResponse:
    filters = {k: request.GET.get(k, "").strip() for k in ("q", "status", "category", "mine", "from", "to")}
    answers = answers_visible_to(request.user).select_related("question", "question__asked_by")
    if filters["q"]:
        answers = answers.filter(question__text__icontains=filters["q"])
    if filters["status"] in AnswerStatus.values:
        answers = answers.filter(status=filters["status"])
    if filters["category"]:
        answers = answers.filter(question__category=filters["category"])
    if filters["mine"]:
        answers = answers.filter(question__asked_by=request.user)
    for name, lookup in (("from", "created_at__date__gte"), ("to", "created_at__date__lte")):
        try:
            answers = answers.filter(**{lookup: date.fromisoformat(filters[name])}) if filters[name] else answers
        except ValueError:
            filters[name] = ""
    answers = with_sources_changed(answers, request.user)
    page = Paginator(answers.order_by("-created_at"), 25).get_page(request.GET.get("halaman"))
    # Filter choices from what the reader may open, never from every question.
    categories = categories_visible_to(request.user)
    template = "desk/history.html#results" if request.htmx else "desk/history.html"
    return render(
        request,
        template,
        {"page": page, "filters": filters, "statuses": AnswerStatus.choices, "categories": categories},
    )


@require_GET
@login_required
def lookup_dashboard(request: HtmxHttpRequest) -> HttpResponse:
    _require_reviewer(request)
    sections = []
    for title, by in (("Per editor", "editor"), ("Per kategori pertanyaan", "category")):
        stats = lookup_stats(by, lookups=lookups_visible_to(request.user))
        height, bars = dashboard.chart_bars(stats)
        sections.append({"title": title, "id": f"chart-{by}", "stats": stats, "height": height, "bars": bars})
    return render(request, "desk/dashboard.html", {"sections": sections})


@require_GET
@login_required
def report(request: HtmxHttpRequest) -> HttpResponse:
    """The evaluation report, as ``make report`` writes it, with inline plots,
    computed from what the reader may see. It holds aggregate figures only —
    no document text."""
    from review.evaluation.report import build_report, report_html

    technical = request.user.is_staff or request.user.is_superuser
    body = report_html(build_report(request.user), inline=True, technical=technical)
    return render(request, "evaluation/report.html", {"body": body, "technical": technical})


# --- search ------------------------------------------------------------------------

SEARCH_PAGE_SIZE = 10
MODE_NAMES = [("hybrid", "Hibrida"), ("lexical", "Leksikal"), ("vector", "Semantik")]
# Each way of searching, as the editor says it (the mode codes stay in the URL).
SEARCH_WAYS = {"hybrid": "gabungan kata persis dan makna", "lexical": "kata persis", "vector": "makna"}
# Other names a mode goes by, typed in a URL: the page's names and the plain English ones.
MODE_ALIASES = {
    "semantic": "vector",
    "semantik": "vector",
    "makna": "vector",
    "leksikal": "lexical",
    "hibrida": "hybrid",
    "gabungan": "hybrid",
}


def _search_mode(raw: str) -> tuple[str, str]:
    """The mode a URL asks for, and what the page says when it is none it knows."""
    typed = raw.strip().lower() or "hybrid"
    mode = MODE_ALIASES.get(typed, typed)
    if mode in MODES:
        return mode, ""
    known = ", ".join(f"{code} ({name})" for code, name in MODE_NAMES)
    return "hybrid", f"Cara mencari “{raw[:40]}” tidak dikenal; dicari dengan cara Hibrida. Pilihan: {known}."


def _similarity(score: float | None) -> str:
    """A hit's similarity as the editor reads it, "0,83": cut, never rounded
    up, so a hit under the floor never reads as reaching it (0,8396 is
    0,83 beside a floor of 0,84, not 0,84)."""
    if score is None:
        return ""
    return str(Decimal(str(score)).quantize(Decimal("0.01"), rounding=ROUND_DOWN)).replace(".", ",")


def _fusion() -> dict[str, object]:
    """The configured fusion and its parameters (k, weights), as search() uses them."""
    method = settings.NALARKU_FUSION["method"]
    return {"method": method, **settings.NALARKU_FUSION.get(method, {})}


@require_GET
@login_required
def search_page(request: HtmxHttpRequest) -> HttpResponse:
    """The search desk: results ten per page (``halaman``), each chunk shown
    as its source reads (a table as a table)."""
    query = request.GET.get("q", "").strip()
    mode, mode_note = _search_mode(request.GET.get("mode", "hybrid"))
    page_number = min(max(_int_param(request, "halaman") or 1, 1), 100 // SEARCH_PAGE_SIZE)
    technical = request.user.is_staff or request.user.is_superuser
    context = {
        "q": query,
        "mode": mode,
        "mode_note": mode_note,
        "modes": [(code, name, SEARCH_WAYS[code]) for code, name in MODE_NAMES],
        # Fusion, its k and weights, and each hit's scores: for staff, under "rincian teknis".
        "technical": technical,
        "fusion": _fusion() if technical else None,
    }
    if query:
        try:
            response = search(
                query,
                request.user,
                k=page_number * SEARCH_PAGE_SIZE,
                mode=mode,
                include_superseded=bool(request.GET.get("lama")),
            )
        except SearchError as exc:
            context["error"] = str(exc)
        else:
            first = (page_number - 1) * SEARCH_PAGE_SIZE
            shown = response.results[first : first + SEARCH_PAGE_SIZE]
            params = {k: v for k, v in request.GET.items() if k != "halaman"}
            weak = (
                None
                if request.GET.get("semua")
                else floor_check(
                    response,
                    shown,
                    reader=request.user,
                    first=first,
                    include_superseded=bool(request.GET.get("lama")),
                )
            )
            if weak is not None:
                context["weak"] = weak
                context["anyway"] = urlencode({**params, "semua": "1"})
                shown = weak.exact
            context.update(
                response=response,
                way=SEARCH_WAYS.get(response.mode, response.mode),
                took_ms=sum(response.timings_ms.values()),
                first=first,
                hits=[(h, snippet_html(h.text, query=response.query), _similarity(h.semantic_score)) for h in shown],
                previous=urlencode({**params, "halaman": page_number - 1}) if page_number > 1 else "",
                next=urlencode({**params, "halaman": page_number + 1})
                if len(response.results) >= first + SEARCH_PAGE_SIZE and page_number < 100 // SEARCH_PAGE_SIZE
                else "",
                page_number=page_number,
            )
    # A history restore (Back after the snapshot left htmx's cache) needs the whole page.
    partial = request.htmx and not request.htmx.history_restore_request
    template = "desk/search.html#results" if partial else "desk/search.html"
    return render(request, template, context)


# --- documents ---------------------------------------------------------------------


def _document(request: HttpRequest, key: str) -> Document:
    return get_object_or_404(Document.objects.visible_to(request.user).prefetch_related("groups"), key=key)


@require_GET
@login_required
def archive(request: HtmxHttpRequest) -> HttpResponse:
    documents = (
        Document.objects.visible_to(request.user)
        .filter(current_revision__status=RevisionStatus.ACTIVE)
        .select_related("current_revision")
        .order_by("key")
    )
    return render(request, "desk/archive.html", {"documents": documents})


@require_GET
@login_required
def document_detail(request: HtmxHttpRequest, key: str) -> HttpResponse:
    document = _document(request, key)
    revisions = document.revisions.order_by("-number").annotate(chunk_count=Count("chunks"))
    return render(request, "desk/document.html", {"document": document, "revisions": revisions})


@require_GET
@login_required
def revision_detail(request: HtmxHttpRequest, key: str, number: int) -> HttpResponse:
    document = _document(request, key)
    revision = get_object_or_404(
        document.revisions.prefetch_related(Prefetch("chunks", queryset=Chunk.objects.order_by("position"))),
        number=number,
    )
    cited, span = _int_param(request, "potongan"), _span_param(request)
    chunks = [(c, chunk_html(c.text, span if c.position == cited else None)) for c in revision.chunks.all()]
    # The way back to the answer the reader came from, if they may open it.
    answer_id = _int_param(request, "jawaban")
    back = answer_id if answer_id and answers_visible_to(request.user).filter(pk=answer_id).exists() else None
    return render(
        request,
        "desk/revision.html",
        {"document": document, "revision": revision, "chunks": chunks, "cited": cited, "back": back},
    )


def _int_param(request: HttpRequest, name: str) -> int | None:
    raw = request.GET.get(name, "")
    return int(raw) if raw.isdigit() else None


def _span_param(request: HttpRequest) -> tuple[int, int] | None:
    start, _, end = request.GET.get("sorot", "").partition("-")
    return (int(start), int(end)) if start.isdigit() and end.isdigit() else None


@require_GET
@login_required
def revision_diff(request: HtmxHttpRequest, key: str) -> HttpResponse:
    document = _document(request, key)
    numbers = list(document.revisions.order_by("number").values_list("number", flat=True))
    try:
        old = int(request.GET.get("dari") or (numbers[-2] if len(numbers) > 1 else numbers[0]))
        new = int(request.GET.get("ke") or numbers[-1])
    except (ValueError, IndexError):
        raise Http404 from None
    a = get_object_or_404(Revision, document=document, number=old)
    b = get_object_or_404(Revision, document=document, number=new)
    return render(
        request,
        "desk/diff.html",
        {"document": document, "a": a, "b": b, "numbers": numbers, "lines": diffing.line_diff(a.content, b.content)},
    )
