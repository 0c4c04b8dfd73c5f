"""Retrieval evaluation, apart from answers: evaluation sets (import, export
as JSONL or BEIR), runs of every search mode over the same cases with the
same k, measures from ``ir_measures`` (not hand-written formulas), and every
run stored with its configuration and per-query candidates so two runs can
be compared query by query.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import ir_measures
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import Max, Sum
from ir_measures import RR, P, R, Success, nDCG
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from retrieval.chunking import CHUNKER_VERSION
from retrieval.models import Chunk, EmbeddingSpace, LexicalStats, Revision
from retrieval.search import Hit, search
from review.answers.answer_keys import answer_in_claims
from review.answers.pipeline import hits_as_of
from review.models import AnswerStatus, EvalCase, EvalCategory, EvalResult, EvalRun, EvalSet

MEASURES = [nDCG @ 10, R @ 5, R @ 10, P @ 10, RR @ 10, Success @ 10]
MODES = ("lexical", "vector", "hybrid", "hybrid+rerank")


# --- evaluation sets -------------------------------------------------------------------


class GoldEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    document: str | None = None
    revision: int | None = None
    chunk: str | None = None


class CaseLine(BaseModel):
    """One JSONL line of an evaluation set (see demo/eval.jsonl)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=50)
    question: str = Field(min_length=1, max_length=2000)
    category: EvalCategory = EvalCategory.OTHER
    user: str = ""
    as_of: date | None = None
    gold: list[GoldEntry] = Field(default_factory=list)
    expected_status: AnswerStatus
    answers: list[str] = Field(default_factory=list)  # strings a correct claim must contain (any one)
    conflict: bool = False
    note: str = ""


class EvalImportError(ValueError):
    """A line that cannot be imported; the message names the file and line."""


@transaction.atomic
def evalset_import(
    *, path: Path, name: str, description: str = "", collection: str = "editorial"
) -> tuple[EvalSet, int]:
    """Create or replace the set ``name`` from a JSONL file, asked of
    ``collection``; all lines or none."""
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            lines.append(CaseLine.model_validate_json(raw))
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "baris"
            raise EvalImportError(f"{path.name} baris {number}: {where}: {problem['msg']}") from None
    ids = [line.id for line in lines]
    if len(ids) != len(set(ids)):
        raise EvalImportError(f"{path.name}: id kasus ganda: {sorted({i for i in ids if ids.count(i) > 1})}")
    eval_set, _ = EvalSet.objects.update_or_create(
        name=name, defaults={"description": description, "collection": collection}
    )
    eval_set.cases.filter(source_claim__isnull=True).delete()
    EvalCase.objects.bulk_create(
        [
            EvalCase(
                eval_set=eval_set,
                case_id=line.id,
                question=line.question,
                category=line.category,
                username=line.user,
                as_of=line.as_of,
                gold=[g.model_dump(exclude_none=True) for g in line.gold],
                expected_status=line.expected_status,
                answers=line.answers,
                conflict=line.conflict,
                note=line.note,
            )
            for line in lines
        ]
    )
    return eval_set, len(lines)


def evalset_import_squad(
    *, path: Path, name: str, collection: str, progress: Callable | None = None
) -> tuple[EvalSet, int]:
    """A SQuAD 2.0-format file (IDK-MRC) as an isolated public collection —
    one document per paragraph, indexed like any other — and an evaluation
    set of its questions: gold = the question's paragraph, answer keys = its
    answer texts, expected ``insufficient_evidence`` for an unanswerable one."""
    from retrieval.beir import document_key, load_passages
    from review.answers.training import squad_passages, squad_read

    paragraphs = squad_read(path)
    passages = squad_passages(paragraphs)
    loaded = load_passages(passages=passages, collection=collection, id_as_title=False, progress=progress)
    if loaded.failed:
        raise EvalImportError(
            f"{path.name}: {len(loaded.failed)} paragraf gagal diindeks, mis. "
            f"{loaded.failed[0][0]}: {loaded.failed[0][1]}"
        )
    with transaction.atomic():
        eval_set, _ = EvalSet.objects.update_or_create(
            name=name,
            defaults={"description": f"SQuAD 2.0 {path.name}, koleksi {collection}", "collection": collection},
        )
        eval_set.cases.filter(source_claim__isnull=True).delete()
        cases = []
        for n, paragraph in enumerate(paragraphs):
            for qa in paragraph["qas"]:
                impossible = bool(qa.get("is_impossible"))
                cases.append(
                    EvalCase(
                        eval_set=eval_set,
                        case_id=str(qa["id"])[:50],
                        question=qa["question"][:2000],
                        category=EvalCategory.NO_ANSWER if impossible else EvalCategory.OTHER,
                        gold=[] if impossible else [{"document": document_key(collection, passages[n].id)}],
                        answers=[] if impossible else list(dict.fromkeys(a["text"] for a in qa.get("answers", []))),
                        expected_status=AnswerStatus.INSUFFICIENT_EVIDENCE if impossible else AnswerStatus.ANSWERED,
                        note=f"SQuAD {path.name}",
                    )
                )
        EvalCase.objects.bulk_create(cases)
    return eval_set, len(cases)


@transaction.atomic
def evalset_import_beir(*, directory: Path, split: str, name: str, collection: str) -> tuple[EvalSet, int]:
    """A BEIR dataset's judged queries as a stored set, gold = the documents
    of ``collection`` (as loaded by ``load_beir``), category "beir"."""
    from retrieval.beir import document_key, read_qrels, read_queries

    queries, qrels = read_queries(directory), read_qrels(directory, split)
    eval_set, _ = EvalSet.objects.update_or_create(
        name=name, defaults={"description": f"BEIR {directory.name} ({split}), koleksi {collection}"}
    )
    eval_set.cases.filter(source_claim__isnull=True).delete()
    cases = [
        EvalCase(
            eval_set=eval_set,
            case_id=qid[:50],
            question=queries[qid][:2000],
            category=EvalCategory.OTHER,
            gold=[{"document": document_key(collection, doc)} for doc, score in judged.items() if score > 0],
            expected_status=AnswerStatus.ANSWERED,
            note=f"BEIR {directory.name}",
        )
        for qid, judged in sorted(qrels.items())
        if qid in queries and any(v > 0 for v in judged.values())
    ]
    EvalCase.objects.bulk_create(cases)
    return eval_set, len(cases)


def evalset_export_jsonl(*, eval_set: EvalSet, path: Path) -> int:
    cases = list(eval_set.cases.order_by("case_id"))
    with path.open("w", encoding="utf-8") as out:
        for case in cases:
            out.write(
                json.dumps(
                    {
                        "id": case.case_id,
                        "question": case.question,
                        "category": case.category,
                        "user": case.username,
                        "as_of": case.as_of.isoformat() if case.as_of else None,
                        "gold": case.gold,
                        "expected_status": case.expected_status,
                        "answers": case.answers,
                        "conflict": case.conflict,
                        "note": case.note,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    return len(cases)


def evalset_export_beir(*, eval_set: EvalSet, directory: Path, collection: str = "editorial") -> int:
    """corpus.jsonl (every active or superseded revision of the collection,
    ``_id`` = ``D13:r3``), queries.jsonl and qrels/test.tsv of the set's
    cases that have gold evidence."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "qrels").mkdir(exist_ok=True)
    revisions = (
        Revision.objects.filter(document__collection=collection, status__in=["active", "superseded"])
        .select_related("document")
        .order_by("document__key", "number")
    )
    with (directory / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for rev in revisions:
            out.write(
                json.dumps(
                    {"_id": f"{rev.document.key}:r{rev.number}", "title": rev.title, "text": rev.content},
                    ensure_ascii=False,
                )
                + "\n"
            )
    cases = [c for c in eval_set.cases.order_by("case_id") if c.gold]
    with (directory / "queries.jsonl").open("w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps({"_id": case.case_id, "text": case.question}, ensure_ascii=False) + "\n")
    with (directory / "qrels" / "test.tsv").open("w", encoding="utf-8") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        for case in cases:
            for unit in sorted(gold_units(case.gold)):
                out.write(f"{case.case_id}\t{unit}\t1\n")
    return len(cases)


def gold_units(gold: list[dict]) -> set[str]:
    """Gold as unit ids: ``D13:r3`` for a revision, the evidence id for a chunk."""
    units = set()
    for entry in gold:
        if entry.get("chunk"):
            units.add(entry["chunk"])
        elif entry.get("document"):
            units.add(f"{entry['document']}:r{entry['revision']}" if entry.get("revision") else entry["document"])
    return units


# --- cases ---------------------------------------------------------------------------


@dataclass
class Case:
    case_id: str
    question: str
    category: str
    reader: AbstractBaseUser | None
    gold: set[str]
    as_of: date | None = None
    unit: Callable[[Hit], str] = field(default=lambda hit: f"{hit.document}:r{hit.revision}")


def cases_from_set(eval_set: EvalSet) -> list[Case]:
    """The set's cases that have gold evidence (retrieval cannot be measured
    on questions without an answer; eval_answers measures abstention)."""
    users = {u.username: u for u in get_user_model().objects.all()}
    out = []
    for case in eval_set.cases.order_by("case_id"):
        gold = gold_units(case.gold)
        if not gold:
            continue
        out.append(
            Case(
                case.case_id,
                case.question,
                case.category,
                users.get(case.username),
                gold,
                case.as_of,
                unit=_unit_for(case.gold),
            )
        )
    return out


def _unit_for(gold: list[dict]) -> Callable[[Hit], str]:
    """Gold decides the unit: chunks, document revisions, or whole documents."""
    if any("chunk" in g for g in gold):
        return lambda hit: hit.evidence_id
    if any(g.get("revision") for g in gold):
        return lambda hit: f"{hit.document}:r{hit.revision}"
    return lambda hit: hit.document


def cases_from_beir(*, queries: dict[str, str], qrels: dict[str, dict[str, int]], collection: str) -> list[Case]:
    """BEIR queries over a collection loaded by ``load_beir``: units are the
    documents' keys (``{collection}:{_id}``)."""
    from retrieval.beir import document_key

    return [
        Case(
            qid,
            queries[qid],
            "beir",
            None,
            {document_key(collection, doc) for doc, score in qrels[qid].items() if score > 0},
            unit=lambda hit: hit.document,
        )
        for qid in sorted(qrels)
        if qid in queries
    ]


# --- runs ------------------------------------------------------------------------------


def index_state(collection: str) -> dict:
    chunks = Chunk.objects.filter(document__collection=collection, revision__status="active")
    stats = (
        LexicalStats.objects.filter(collection=collection)
        .values("chunk_count", "total_length", "weights_avglen")
        .first()
    )
    space = EmbeddingSpace.objects.filter(is_active=True).first()
    return {
        "collection": collection,
        "active_chunks": chunks.count(),
        "tokens": chunks.aggregate(n=Sum("token_count"))["n"] or 0,
        "last_indexed_at": (
            Revision.objects.filter(document__collection=collection).aggregate(t=Max("indexed_at"))["t"] or ""
        ).__str__(),
        "lexical_stats": stats or {},
        "embedding_space": {
            "id": space.pk,
            "provider": space.provider,
            "model": space.model,
            "version": space.version,
            "dimensions": space.dimensions,
        }
        if space
        else None,
    }


def retrieval_evaluate(
    *,
    cases: list[Case],
    modes: Iterable[str],
    k: int = 10,
    pool: int = 50,
    fusion: str | None = None,
    rrf_k: int | None = None,
    collection: str = "editorial",
    label: str = "",
    eval_set: EvalSet | None = None,
    dataset: str = "",
    progress: Callable[[int], None] | None = None,
) -> EvalRun:
    """Run every case in every mode with the same k, store the run."""
    modes = list(modes)
    reranker = settings.NALARKU_RERANK.get("provider") or None
    fusion = fusion or settings.NALARKU_FUSION["method"]
    fusion_weights = {**settings.NALARKU_FUSION[fusion], **({"rrf_k": rrf_k} if rrf_k else {})}
    config = {
        "k": k,
        "pool": pool,
        "fusion": fusion,
        "fusion_weights": fusion_weights,
        "modes": modes,
        "chunker_version": CHUNKER_VERSION,
        "chunk_max_tokens": settings.NALARKU_CHUNK_MAX_TOKENS,
        "reranker": reranker,
        "rerank_threshold": settings.NALARKU_RERANK.get("threshold"),
        "rerank_depth": settings.NALARKU_RERANK.get("depth"),
        "index": index_state(collection),
        "cases": len(cases),
        "measures": [str(m) for m in MEASURES],
    }
    run = EvalRun.objects.create(kind="retrieval", label=label, eval_set=eval_set, dataset=dataset, config=config)
    qrels = [ir_measures.Qrel(c.case_id, unit, 1) for c in cases for unit in c.gold]
    results, metrics = [], {}
    for mode in modes:
        if mode == "hybrid+rerank" and not reranker:
            metrics[mode] = {"skipped": "tidak ada reranker yang dikonfigurasi (NALARKU_RERANK_PROVIDER)"}
            continue
        scored, latencies, ranked_by_case = [], {}, {}
        for case in cases:
            started = time.perf_counter()
            ranked = _ranked_units(case, mode=mode, k=k, pool=pool, fusion=fusion, rrf_k=rrf_k, collection=collection)
            latencies[case.case_id] = (time.perf_counter() - started) * 1000
            ranked_by_case[case.case_id] = ranked
            scored += [ir_measures.ScoredDoc(case.case_id, unit, float(k - i)) for i, unit in enumerate(ranked)]
            if progress:
                progress(1)
        per_query = _per_query(qrels, scored, [c.case_id for c in cases])
        metrics[mode] = _aggregate(per_query, cases, latencies)
        results += [
            EvalResult(
                run=run,
                case_id=c.case_id,
                mode=mode,
                category=c.category,
                candidates=ranked_by_case[c.case_id],
                measures=per_query[c.case_id],
                latency_ms=round(latencies[c.case_id], 2),
            )
            for c in cases
        ]
    EvalResult.objects.bulk_create(results, batch_size=1000)
    run.metrics = metrics
    run.save(update_fields=["metrics"])
    return run


def _ranked_units(
    case: Case, *, mode: str, k: int, pool: int, fusion: str, rrf_k: int | None, collection: str
) -> list[str]:
    """The first k distinct units (document revisions, documents or chunks)
    of the mode's ranking; more chunks are read so k units remain after
    chunks of one unit collapse."""
    chunks = min(100, max(3 * k, k))
    response = search(
        case.question,
        case.reader,
        k=chunks,
        pool=max(pool, chunks),
        fusion=fusion,
        rrf_k=rrf_k,
        mode="hybrid" if mode == "hybrid+rerank" else mode,
        rerank=mode == "hybrid+rerank",
        include_superseded=case.as_of is not None,
        expand=False,
        collection=collection,
    )
    hits = hits_as_of(response.results, case.as_of) if case.as_of else response.results
    return list(dict.fromkeys(case.unit(h) for h in hits))[:k]


def _per_query(qrels: list, scored: list, case_ids: list[str]) -> dict[str, dict[str, float]]:
    """Per-query measures; a query with nothing retrieved scores 0 (the
    library leaves such queries out, which would inflate the mean)."""
    values = {cid: {str(m): 0.0 for m in MEASURES} for cid in case_ids}
    for metric in ir_measures.iter_calc(MEASURES, qrels, scored):
        values[metric.query_id][str(metric.measure)] = round(float(metric.value), 6)
    return values


def _aggregate(per_query: dict[str, dict[str, float]], cases: list[Case], latencies: dict[str, float]) -> dict:
    def mean(ids: list[str]) -> dict[str, float]:
        return {str(m): round(statistics.fmean(per_query[i][str(m)] for i in ids), 4) for m in MEASURES}

    everything = [c.case_id for c in cases]
    by_category: dict[str, list[str]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case.case_id)
    ordered = sorted(latencies.values())
    return {
        "all": mean(everything),
        "queries": len(everything),
        "by_category": {cat: {**mean(ids), "queries": len(ids)} for cat, ids in sorted(by_category.items())},
        "latency_ms": {
            "p50": round(statistics.median(ordered), 1),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        },
    }


# --- comparison --------------------------------------------------------------------------


@dataclass
class QueryDelta:
    case_id: str
    mode: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return round(self.after - self.before, 4)


def runs_compare(*, a: EvalRun, b: EvalRun, measure: str = "nDCG@10") -> dict[str, list[QueryDelta]]:
    """Per mode, every query measured in both runs with its change."""
    before = {(r.mode, r.case_id): r.measures.get(measure, 0.0) for r in a.results.all()}
    out: dict[str, list[QueryDelta]] = {}
    for r in b.results.order_by("mode", "case_id"):
        if (r.mode, r.case_id) in before:
            out.setdefault(r.mode, []).append(
                QueryDelta(r.case_id, r.mode, before[(r.mode, r.case_id)], r.measures.get(measure, 0.0))
            )
    return out


# --- answers ---------------------------------------------------------------------------

ANSWER_GENERATORS = ("sentence", "cosine", "extractive")


def answers_evaluate(
    *,
    eval_set: EvalSet,
    label: str = "",
    limit: int | None = None,
    judge: object | None = None,
    generators: Iterable[str] = ANSWER_GENERATORS,
    progress: Callable[[int], None] | None = None,
) -> EvalRun:
    """Ask every case as its user with each generator, side by side in one
    run, and measure the answers by their content: the answer key in the
    claims, refusals where there is no answer, ``answered`` without the
    answer, conflicts found, citations valid, claims supported. Answers are
    rolled back so evaluation never fills the editors' history."""
    from review.answers.generators import READER_NAMES, generator_from_config
    from review.answers.scorer import artefact_used

    generators = list(generators)
    users = {u.username: u for u in get_user_model().objects.all()}
    cases = list(eval_set.cases.order_by("case_id"))[:limit] if limit else list(eval_set.cases.order_by("case_id"))
    run = EvalRun.objects.create(
        kind="answers",
        label=label,
        eval_set=eval_set,
        config={
            "generators": generators,
            "context": settings.NALARKU_CONTEXT,
            "collection": eval_set.collection,
            "extractive": settings.NALARKU_EXTRACTIVE,
            "answerer": settings.NALARKU_ANSWERER,
            "reader": settings.NALARKU_READER,
            "sentence": settings.NALARKU_SENTENCE,
            "support": settings.NALARKU_SUPPORT,
            "chunker_version": CHUNKER_VERSION,
            "index": index_state(eval_set.collection),
            "cases": len(cases),
            "judge": getattr(judge, "name", None),
        },
    )
    rows = []
    for name in generators:
        # "extractive@answerer-v6": a generator scored by a named artefact,
        # so two artefacts are measured side by side in one run.
        # "reader@reader-v3": the reader of a named artefact.
        # "reader+int8@reader-v3": that reader with int8 matrix products.
        kind, _, artefact_name = name.partition("@")
        kind = "reader" if kind in READER_NAMES else kind
        generator = generator_from_config(name if kind == "reader" else kind)
        scorer = artefact_used(artefact_name) if artefact_name and kind != "reader" else nullcontext()
        with scorer:
            for case in cases:
                row = _answer_row(
                    run,
                    case,
                    generator,
                    users,
                    judge if kind in ("extractive", "reader") else None,
                    eval_set.collection,
                )
                row.mode = name
                rows.append(row)
                if progress:
                    progress(1)
    EvalResult.objects.bulk_create(rows)
    run.metrics = {name: _answer_metrics([r for r in rows if r.mode == name]) for name in generators}
    run.save(update_fields=["metrics"])
    return run


def _answer_row(
    run: EvalRun, case: EvalCase, generator: object, users: dict, judge: object | None, collection: str
) -> EvalResult:
    from review.answers.features import question_word
    from review.answers.pipeline import question_ask

    with transaction.atomic():
        started = time.perf_counter()
        asked = question_ask(
            text=case.question,
            user=users.get(case.username),
            as_of=case.as_of,
            generator=generator,
            search_options={"collection": collection},
        )
        latency = (time.perf_counter() - started) * 1000
        contract = asked.contract
        timings = asked.answer.timings_ms
        scorer_record = asked.answer.retrieval.get("scorer") or {}
        verdicts = judge.verdicts(contract, _texts(contract)) if judge else []
        transaction.set_rollback(True)
    cited = {e for c in contract.claims for e in c.evidence_ids}
    units = {f"{contract.evidence[e].document}:r{contract.evidence[e].revision}" for e in cited} | cited
    units |= {contract.evidence[e].document for e in cited}
    gold = gold_units(case.gold)
    flags = [f for c in contract.claims for f in c.flags]
    refused = contract.status == AnswerStatus.INSUFFICIENT_EVIDENCE
    no_answer = case.expected_status == AnswerStatus.INSUFFICIENT_EVIDENCE
    holds = answer_in_claims(case.answers, [c.text for c in contract.claims]) if case.answers else None
    if no_answer:
        correct = refused
    elif holds is not None:
        correct = holds and not refused
    else:
        correct = not refused and (bool(gold & units) if gold else True)
    measures = {
        "status_ok": float(contract.status == case.expected_status),
        "abstained": float(refused),
        "answered": float(contract.status == AnswerStatus.ANSWERED),
        "answer_in_claims": None if holds is None else float(holds and not refused),
        "confident_wrong": float(contract.status == AnswerStatus.ANSWERED and (no_answer or holds is False)),
        "decision_correct": float(correct),
        "conflict_found": float(bool(contract.conflicts)),
        "claims": len(contract.claims),
        "citations_valid": float(cited <= set(contract.evidence)),
        "ids_removed": sum(f == "evidence_removed" for f in flags),
        "claims_supported": sum(not ({"unsupported_fact", "weak_support"} & set(c.flags)) for c in contract.claims),
        "gold_cited": float(bool(gold & units)) if gold else None,
        "judge_supported": sum(v for v in verdicts) if verdicts else None,
        "answer_stage_ms": round(sum(timings.get(s, 0.0) for s in ANSWER_STAGES), 2),
    }
    return EvalResult(
        run=run,
        case_id=case.case_id,
        mode=generator.name,
        category=case.category,
        candidates=sorted(cited),
        latency_ms=round(latency, 1),
        measures={
            **measures,
            "status": contract.status,
            "expected": case.expected_status,
            "expect_conflict": case.conflict,
            "question_word": question_word(case.question),
            # The scorer's calibrated probability that the evidence answers:
            # a bar can be replayed on a run without asking again.
            "answerable_p": scorer_record.get("answerable"),
            "doubt_to_editor": scorer_record.get("doubt_to_editor"),
        },
    )


# The answer stage: everything after retrieval and before saving.
ANSWER_STAGES = ("context", "score", "read", "generate", "validate")


def _texts(contract) -> dict[str, str]:  # noqa: ANN001
    return dict(Chunk.objects.filter(key__in=list(contract.evidence)).values_list("key", "text"))


def _rate(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def _answer_metrics(rows: list[EvalResult]) -> dict:
    m = [r.measures for r in rows]
    no_answer = [x for x in m if x["expected"] == AnswerStatus.INSUFFICIENT_EVIDENCE]
    answerable = [x for x in m if x["expected"] != AnswerStatus.INSUFFICIENT_EVIDENCE]
    claims = sum(x["claims"] for x in m)
    judged = [x for x in m if x["judge_supported"] is not None]
    latencies = sorted(r.latency_ms for r in rows)
    stage = sorted(x["answer_stage_ms"] for x in m)
    flagged = [x for x in m if x["conflict_found"]]
    expected = [x for x in m if x["expect_conflict"]]

    def core(xs: list[dict]) -> dict:
        yes = [x for x in xs if x["expected"] != AnswerStatus.INSUFFICIENT_EVIDENCE]
        no = [x for x in xs if x["expected"] == AnswerStatus.INSUFFICIENT_EVIDENCE]
        return {
            "cases": len(xs),
            "answer_in_claims": _rate([x["answer_in_claims"] for x in yes if x["answer_in_claims"] is not None]),
            "wrong_refusal_rate": _rate([x["abstained"] for x in yes]),
            "refusal_rate_unanswerable": _rate([x["abstained"] for x in no]),
            "answered_unanswerable": _rate([x["answered"] for x in no]),
            "confident_wrong_rate": _rate([x["confident_wrong"] for x in xs]),
            "decision_accuracy": _rate([x["decision_correct"] for x in xs]),
        }

    by_word: dict[str, list[dict]] = {}
    by_category: dict[str, list[dict]] = {}
    for row in rows:
        by_word.setdefault(row.measures["question_word"], []).append(row.measures)
        by_category.setdefault(row.category, []).append(row.measures)
    return {
        **core(m),
        "status_accuracy": _rate([x["status_ok"] for x in m]),
        "abstention_accuracy": _rate([x["abstained"] for x in no_answer]),
        "false_abstention_rate": _rate([x["abstained"] for x in answerable]),
        "conflict_precision": _rate([x["expect_conflict"] for x in flagged]) if expected else None,
        "conflict_recall": _rate([x["conflict_found"] for x in expected]),
        "conflict_false_alarm_rate": _rate([x["conflict_found"] for x in answerable if not x["expect_conflict"]]),
        "citation_validity": _rate([x["citations_valid"] for x in m if x["claims"]]),
        "ids_removed": sum(x["ids_removed"] for x in m),
        "claim_support_rate": round(sum(x["claims_supported"] for x in m) / claims, 4) if claims else None,
        "gold_cited_rate": _rate([x["gold_cited"] for x in m if x["gold_cited"] is not None]),
        "judge_faithfulness": (
            round(sum(x["judge_supported"] for x in judged) / max(sum(x["claims"] for x in judged), 1), 4)
            if judged
            else None
        ),
        "by_question_word": {w: core(xs) for w, xs in sorted(by_word.items())},
        "by_category": {
            cat: {**core(xs), "status_accuracy": _rate([x["status_ok"] for x in xs])}
            for cat, xs in sorted(by_category.items())
        },
        "latency_ms": _percentiles(latencies),
        "answer_stage_ms": _percentiles(stage),
    }


def _percentiles(ordered: list[float]) -> dict:
    if not ordered:
        return {"p50": None, "p95": None}
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
    }


# --- regression cases from review ----------------------------------------------------------

REGRESSION_SET = "regresi"


def case_from_claim(*, claim, user=None) -> EvalCase:  # noqa: ANN001
    """A claim an editor marked ``needs_review`` becomes an evaluation case:
    the same question, asked by the same person as of the same date, which
    must not come back ``answered`` with that claim unchallenged."""
    from review.models import ClaimReview

    if claim.review_status != ClaimReview.NEEDS_REVIEW:
        raise ValueError("hanya klaim yang ditandai 'perlu ditinjau' yang menjadi kasus regresi")
    question = claim.answer.question
    eval_set, _ = EvalSet.objects.get_or_create(
        name=REGRESSION_SET, defaults={"description": "Kasus dari klaim yang ditandai editor perlu ditinjau"}
    )
    case, _ = EvalCase.objects.update_or_create(
        eval_set=eval_set,
        case_id=f"C{claim.pk}",
        defaults={
            "question": question.text,
            "category": EvalCategory.REGRESSION,
            "username": question.asked_by.username if question.asked_by else "",
            "as_of": question.as_of,
            "gold": [],
            "expected_status": AnswerStatus.NEEDS_REVIEW,
            "source_claim": claim,
            "note": f"Klaim “{claim.text[:300]}” ditandai perlu ditinjau oleh "
            f"{claim.reviewer or user or '—'}" + (f": {claim.review_note}" if claim.review_note else ""),
        },
    )
    return case


# --- chunking experiments ------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkingSetting:
    max_tokens: int
    breadcrumbs: bool = True

    @property
    def name(self) -> str:
        return f"{self.max_tokens}" + ("" if self.breadcrumbs else "-tanpa-breadcrumb")

    @property
    def collection(self) -> str:
        return f"chunking-{self.name}"


def chunking_collection_build(
    *, setting: ChunkingSetting, source: str = "editorial", progress: Callable[[int], None] | None = None
) -> int:
    """Copy every indexed revision of ``source`` into the setting's own
    collection (same groups, dates and revision numbers; keys prefixed by the
    collection), chunked and embedded with that setting. Returns chunks."""
    from auditlog.context import disable_auditlog

    from retrieval.beir import drop_collection
    from retrieval.ingestion import RevisionInput, revision_index, revision_submit
    from retrieval.lexical import weights_refresh

    drop_collection(collection=setting.collection)
    revisions = (
        Revision.objects.filter(document__collection=source, status__in=["active", "superseded"])
        .select_related("document")
        .prefetch_related("document__groups")
        .order_by("document__key", "number")
    )
    chunks = 0
    for rev in revisions:
        doc = rev.document
        data = RevisionInput(
            key=f"{setting.collection}:{doc.key}"[:64],
            title=rev.title,
            content=rev.content,
            format=rev.format,
            source_type=doc.source_type_id,
            url=doc.url,
            document_date=rev.document_date,
            groups=[g.name for g in doc.groups.all()],
            public=doc.public,
            collection=setting.collection,
        )
        with disable_auditlog():  # an experiment's copy, not a change to the archive
            submitted = revision_submit(data=data)
        if submitted.revision is not None:
            chunks += revision_index(
                revision_id=submitted.revision.pk, max_tokens=setting.max_tokens, breadcrumbs=setting.breadcrumbs
            ).chunks
        if progress:
            progress(1)
    # Weights were written as the copy grew; score it like the archive, against
    # its final average chunk length.
    weights_refresh(drift=0)
    return chunks


def chunking_evaluate(
    *, eval_set: EvalSet, setting: ChunkingSetting, k: int = 10, modes: Iterable[str] = ("lexical", "vector", "hybrid")
) -> EvalRun:
    """The set's cases against the setting's collection; gold units are the
    original ``D13:r3`` ids, so the copy's key prefix is taken off."""
    prefix = len(f"{setting.collection}:")
    cases = cases_from_set(eval_set)
    for case in cases:
        case.unit = lambda hit, p=prefix: f"{hit.document[p:]}:r{hit.revision}"
    run = retrieval_evaluate(
        cases=cases,
        modes=modes,
        k=k,
        collection=setting.collection,
        label=f"chunking:{setting.name}",
        eval_set=eval_set,
    )
    run.config.update({"chunk_max_tokens": setting.max_tokens, "breadcrumbs": setting.breadcrumbs})
    run.save(update_fields=["config"])
    return run
