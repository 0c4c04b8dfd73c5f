"""Answer runs: each case asked as its user, rolled back (evaluation never
fills the history), and measured from what the answer says: the answer key
in the claims, refusals, conflicts, citations, each stage's latency."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from contextlib import nullcontext

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from answering.answer_keys import answer_in_claims
from retrieval.chunking import CHUNKER_VERSION
from retrieval.models import Chunk
from review.evaluation.retrieval_runs import index_state
from review.evaluation.sets import gold_units
from review.models import AnswerStatus, EvalCase, EvalResult, EvalRun, EvalSet

# --- answers ---------------------------------------------------------------------------

ANSWER_GENERATORS = ("sentence", "cosine", "answerer")


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
    from answering.answerer import artefact_used
    from answering.generators import READER_NAMES, generator_from_config

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
            "claims": settings.NALARKU_CLAIMS,
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
        # "answerer@answerer-v6": a generator scored by a named artefact,
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
                    judge if kind in ("answerer", "reader") else None,
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
    from answering.features import question_word
    from review.asking import question_ask

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
    precise = _claims_precise(contract, case.answers or [], gold)
    sides = {e for c in contract.conflicts for e in c.evidence_ids}
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
        # Per claim, in claim order: whether it answers (claim precision), and
        # the engine's probability for it, so a claim bar can be replayed.
        "claims_precise": precise,
        "claim_scores": [c.score for c in contract.claims],
        "claims_holding": [bool(case.answers) and answer_in_claims(case.answers, [c.text]) for c in contract.claims],
        "claims_side": [bool(sides & set(c.evidence_ids)) for c in contract.claims],
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


def _claims_precise(contract, answers: list[str], gold: set[str]) -> list[bool]:  # noqa: ANN001
    """Each claim answers: it holds an answer key, cites a gold revision (or
    the gold document, or chunk), or is a side of a conflict shown."""
    sides = {e for c in contract.conflicts for e in c.evidence_ids}
    out = []
    for claim in contract.claims:
        cited = set(claim.evidence_ids)
        units = cited | {contract.evidence[e].document for e in cited if e in contract.evidence}
        units |= {
            f"{contract.evidence[e].document}:r{contract.evidence[e].revision}" for e in cited if e in contract.evidence
        }
        out.append(
            bool(answers and answer_in_claims(answers, [claim.text])) or bool(gold & units) or bool(sides & cited)
        )
    return out


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
        **_precision(m),
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


def _precision(m: list[dict]) -> dict:
    """Claim precision (the share of claims shown that answer) and the share
    of answers (not refused) with a claim that does not."""
    said = [x["claims_precise"] for x in m if x.get("claims_precise")]
    claims = sum(len(p) for p in said)
    return {
        "claim_precision": round(sum(sum(p) for p in said) / claims, 4) if claims else None,
        "answers_with_offtopic_claim": _rate([float(not all(p)) for p in said]),
    }


def _percentiles(ordered: list[float]) -> dict:
    if not ordered:
        return {"p50": None, "p95": None}
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
    }
