"""Chunking runs: the archive chunked at other sizes into collections of
its own, and retrieval measured on each (``eval_chunking``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from retrieval.models import Revision
from review.evaluation.retrieval_runs import retrieval_evaluate
from review.evaluation.sets import cases_from_set
from review.models import EvalRun, EvalSet

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
