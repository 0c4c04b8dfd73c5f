"""Exports of a reviewed answer, for the desk that publishes it: the answer
contract as JSON (with each claim's review status) and a Markdown summary
that cites every source with its revision and date. Both are built from
``contract_for``, so an export holds only what the reader may see now, and
checked against the revisions in force now (``review.freshness``): each
source says whether its revision still is, and ``changed`` (evidence id →
revision in force) the sources replaced since the answer was made."""

from __future__ import annotations

import json

from answering.contract import AnswerContract
from review.desk.templatetags.nalarku import label, pages, repeats, safe_href
from review.freshness import replaced_source, since_sentence
from review.models import Answer, Claim


def answer_export_json(
    *,
    answer: Answer,
    contract: AnswerContract,
    claims: list[Claim],
    reviews: bool = True,
    changed: dict[str, int] | None = None,
    since: dict[str, int] | None = None,
) -> str:
    """``reviews``: the reader may see editors' decisions and notes (the
    review permission); else the claims come without them."""
    stored_by_text = {c.text: c for c in claims}
    changed = changed or {}
    data = contract.model_dump(mode="json")
    data["question"] = answer.question.text
    data["as_of"] = answer.question.as_of.isoformat() if answer.question.as_of else None
    for item in data["evidence"].values():
        item["in_force"] = not item["superseded"]
    for claim in data["claims"]:
        claim["old_revisions"] = [
            eid for eid in claim["evidence_ids"] if data["evidence"].get(eid, {}).get("superseded")
        ]
    cited = {eid for claim in contract.claims for eid in claim.evidence_ids}
    data["sources_changed"] = sorted(eid for eid in changed if eid in cited)
    data["newer_since"] = since or {}
    for claim in data["claims"] if reviews else []:
        stored = stored_by_text.get(claim["text"])
        claim["review"] = {
            "status": stored.review_status if stored else "pending",
            "note": stored.review_note if stored else "",
            "reviewed_at": stored.reviewed_at.isoformat() if stored and stored.reviewed_at else None,
        }
    return json.dumps(data, ensure_ascii=False, indent=2)


def answer_export_markdown(
    *,
    answer: Answer,
    contract: AnswerContract,
    claims: list[Claim],
    reviews: bool = True,
    changed: dict[str, int] | None = None,
    since: dict[str, int] | None = None,
) -> str:
    stored_by_text = {c.text: c for c in claims}
    cited = {eid for claim in contract.claims for eid in claim.evidence_ids}
    replaced = list(
        dict.fromkeys(replaced_source(eid, now) for eid, now in sorted((changed or {}).items()) if eid in cited)
    )
    lines = [
        f"# {_one_line(answer.question.text)}",
        "",
        f"Status: **{label(contract.status.value)}** · {contract.question_id}",
        "",
    ]
    if answer.question.as_of:
        dated = (
            f"Menurut arsip per {answer.question.as_of:%Y-%m-%d}: revisi yang berlaku pada tanggal itu yang dikutip."
        )
        lines += [f"> {dated}" + (f" {since_sentence(since)}" if since else ""), ""]
    if replaced:
        lines += [f"> **Sumber berubah sejak jawaban ini dibuat** ({', '.join(replaced)}). Tanyakan lagi.", ""]
    if contract.claims:
        lines += ["## Klaim", ""]
    for n, claim in enumerate(contract.claims, 1):
        stored = stored_by_text.get(claim.text)
        review = label(stored.review_status) if stored else label("pending")
        cites = ", ".join(_cite(eid, claim.pages.get(eid, "")) for eid in claim.evidence_ids)
        old = sorted({f"Revisi lama — kini r{e.current_revision}" for e in _old(contract, claim.evidence_ids)})
        lines.append(
            f"{n}. {_one_line(claim.text)} {cites}"
            + "".join(f" **{mark}**" for mark in old)
            + (f" — _{review}_" if reviews else "")
        )
    if contract.conflicts:
        lines += ["", "## Sumber bertentangan", ""]
        for c in contract.conflicts:
            lines.append(f"- {_one_line(c.note)} ({', '.join(c.evidence_ids)})")
            lines += _conflict_sides(c)
    if contract.missing:
        lines += ["", "## Yang belum ada buktinya", ""] + [f"- {_one_line(m)}" for m in contract.missing]
    if contract.evidence:
        lines += ["", "## Sumber", ""]
    for eid, e in contract.evidence.items():
        page = f", hlm. {on}" if (on := pages(e)) else ""
        page += f", {also}" if (also := repeats(e)) else ""
        page += ", hasil OCR" if e.ocr else ""
        where = f"{e.title}, revisi {e.revision}{page}, tanggal {e.document_date or 'tidak diketahui'}"
        flag = f" (sudah diganti; berlaku r{e.current_revision})" if e.superseded and e.current_revision else ""
        flag = flag or (" (revisi lama)" if e.superseded else " (revisi berlaku)")
        url = safe_href(e.url)
        lines.append(f"- [{eid}] {_one_line(where)}{flag}" + (f" <{url}>" if url else ""))
    return "\n".join(lines) + "\n"


def _old(contract: AnswerContract, evidence_ids: list[str]) -> list:
    """The evidence among ``evidence_ids`` whose revision is no longer in force."""
    return [e for eid in evidence_ids if (e := contract.evidence.get(eid)) and e.superseded and e.current_revision]


def _conflict_sides(conflict) -> list[str]:  # noqa: ANN001
    """Each side under what it says, its sources newest first, its best
    rank, and which side is newer or more authoritative — as the desk shows."""
    out = []
    for n, side in enumerate(conflict.sides if len(conflict.sides) > 1 else []):
        label = conflict.labels[n] if n < len(conflict.labels) else f"Sisi {n + 1}"
        rank = f" (peringkat {conflict.ranks[n]})" if n < len(conflict.ranks) else ""
        marks = [
            mark
            for mark, on in (("lebih berwenang", conflict.authoritative == n), ("lebih baru", conflict.newer == n))
            if on
        ]
        out.append(f"  - {_one_line(label)}: {', '.join(side)}{rank}" + (f" — {', '.join(marks)}" if marks else ""))
    return out


def _cite(evidence_id: str, page: str) -> str:
    """``[D12:r3:p4, hlm. 2]``: the page of what the claim quotes, which may
    be narrower than the source's page range listed under "Sumber"."""
    return f"[{evidence_id}, hlm. {page}]" if page else f"[{evidence_id}]"


_MARKUP = str.maketrans({c: "\\" + c for c in "\\`*_[]<>!|#"})


def _one_line(text: str) -> str:
    """Quoted text stays text: on one line, with the characters that would
    open Markdown or HTML of its own (links, images, tags) escaped."""
    return " ".join((text or "").split()).translate(_MARKUP)
