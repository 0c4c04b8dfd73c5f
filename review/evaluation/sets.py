"""Evaluation sets: imported (JSONL, SQuAD 2.0, BEIR), exported (JSONL,
BEIR), read as cases; and a claim an editor marked becoming a regression case."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from retrieval.hits import Hit
from retrieval.models import Revision
from review.models import AnswerStatus, EvalCase, EvalCategory, EvalSet

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
    from retrieval.beir import document_key, load_passages, squad_passages, squad_read

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
