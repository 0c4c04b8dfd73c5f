"""Labels the editor reads instead of internal codes."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django import template

from answering.sentences import plain
from retrieval import source_types
from retrieval.pages import page_label
from retrieval.repeats import repeats_label
from review import labels

register = template.Library()


@register.filter
def label(code: object) -> str:
    return labels.label(code)


# What sources disagree about, as the conflict box's badge says it.
CONFLICT_KINDS = {
    "status": "Status ketersediaan",
    "number": "Angka berbeda",
    "date": "Tanggal berbeda",
    "meaning": "Arti berbeda",
}


@register.filter
def conflict_kind(kind: object) -> str:
    return CONFLICT_KINDS.get(str(kind), str(kind).capitalize())


# Answer engines that quote units of the evidence as claims (answering.generators).
QUOTING_ENGINES = {"answerer", "reader", "sentence", "cosine"}


@register.filter
def answer_method(generator: object) -> str:
    """How an answer was made, in the editor's words: engines that quote the
    evidence, or a language model writing from it (the engine's own name
    is technical detail, for staff)."""
    name = str(generator or "").partition("@")[0]
    return "kutipan dari sumber" if name in QUOTING_ENGINES else "disusun model bahasa dari sumber"


@register.filter
def source_label(key: object) -> str:
    """A source type's label, as admins named it."""
    return source_types.label(str(key))


@register.filter
def tone(code: object) -> str:
    """CSS tone of a badge."""
    return {
        "answered": "ok",
        "supported": "ok",
        "needs_review": "warn",
        "insufficient_evidence": "bad",
        "conflict": "warn",
        "superseded_evidence": "warn",
        "unsupported_fact": "bad",
        "weak_support": "warn",
        "evidence_removed": "bad",
        "via_graph": "info",
    }.get(str(code), "muted")


@register.filter
def get_item(mapping: dict | None, key: str) -> object:
    return (mapping or {}).get(key)


@register.filter
def readable(text: str) -> str:
    """Chunk text without Markdown markup (the template still escapes it)."""
    return plain(text or "")


def _crumbs(text: str) -> list[str]:
    return [p.strip().lower() for p in re.split(r"\s[>›]\s", text or "") if p.strip()]


@register.filter
def trail(heading_path: str, title: str) -> str:
    """The heading path without what the title already says, so a breadcrumb
    is shown once: a leading heading that repeats the title, or the title's
    own breadcrumb ("Panduan > Akun > Mengganti kata sandi" as a title)."""
    parts = [p for p in (heading_path or "").split(" > ") if p]
    whole = (title or "").strip().lower()
    while parts and parts[0].strip().lower() == whole:
        parts.pop(0)
    named = _crumbs(title)
    if len(named) > 1 and [p.strip().lower() for p in parts[: len(named)]] == named:
        parts = parts[len(named) :]
    return " › ".join(parts)


@register.filter
def safe_href(url: str) -> str:
    """A document's URL as a link target only if it is http(s): a manifest or
    form could carry ``javascript:`` or ``data:``, which escaping alone does
    not disarm in an ``href``."""
    url = (url or "").strip()
    return url if urlsplit(url).scheme.lower() in ("http", "https") else ""


@register.filter
def pages(item: object) -> str:
    """A chunk's pages as "3" or "1–2" (empty without pages), for anything
    carrying ``page``/``page_end``: a search hit, a contract's evidence."""
    return page_label(getattr(item, "page", None), getattr(item, "page_end", None))


@register.filter
def repeats(item: object) -> str:
    """Where else the same text stands in its revision ("juga di hlm. 3,
    11"), for a search hit or a contract's evidence; empty when nowhere."""
    return repeats_label(getattr(item, "repeat_pages", None) or [], getattr(item, "repeats", None) or [])


@register.simple_tag
def claim_pages(answer: object, claim: object) -> dict[str, str]:
    """The page labels of what ``claim`` (a stored claim row) quotes, by
    evidence id, from its answer's stored contract, matched by text as the
    desk matches claims; empty for contracts stored before claims had them."""
    text = getattr(claim, "text", None)
    stored = getattr(answer, "contract", None) or {}
    for item in stored.get("claims", []) if isinstance(stored, dict) else []:
        if item.get("text") == text:
            return dict(item.get("pages") or {})
    return {}


@register.simple_tag
def evidence_pages(evidence: object, evidence_id: str, quoted: dict[str, str] | None = None) -> str:
    """What an evidence card shows after "hlm.": the page of the claim's
    quoted span (``quoted``, from ``claim_pages``) when the card is shown
    for a claim, else the chunk's pages."""
    return (quoted or {}).get(evidence_id) or pages(evidence)
