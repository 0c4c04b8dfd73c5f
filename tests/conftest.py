"""Shared fixtures. Tests run on the real embedded PostgreSQL with pgvector
(under var/test, never the demo's data) and real Redis (database 15)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from datetime import date

import pytest
from django.contrib.auth.models import Group, User

from retrieval.embeddings import token_count
from retrieval.ingestion import RevisionInput, revision_index, revision_submit
from retrieval.models import Revision

_keys = itertools.count(1)


@pytest.fixture
def count() -> Callable[[str], int]:
    """The embedding model's own tokenizer."""
    return token_count


@pytest.fixture
def make_revision(db) -> Callable[..., Revision]:  # noqa: ANN001
    """Submit a revision and index it in-process; returns the fresh revision."""

    def make(
        content: str = "# Judul\n\nIsi dokumen uji.",
        *,
        key: str | None = None,
        index: bool = True,
        title: str = "Dokumen uji",
        groups: tuple[str, ...] = (),
        public: bool = False,
        fmt: str = "markdown",
        document_date: date | None = None,
        **extra: object,
    ) -> Revision:
        data = RevisionInput(
            key=key or f"T{next(_keys)}",
            title=title,
            content=content,
            format=fmt,
            groups=list(groups),
            public=public,
            document_date=document_date,
            **extra,
        )
        result = revision_submit(data=data)
        assert result.revision is not None, "content unchanged: no revision"
        if index:
            revision_index(revision_id=result.revision.pk)
        return Revision.objects.select_related("document").get(pk=result.revision.pk)

    return make


@pytest.fixture(autouse=True)
def _replica_reads_only_where_declared(request, settings):  # noqa: ANN001
    """With read replicas configured (`.ci/run`'s second pass), only tests
    that declare every database (tests/ops/test_replicas.py) read from them:
    Django's test isolation refuses queries to a database a test did not
    declare, and a test's own transaction never reaches a standby."""
    marker = request.node.get_closest_marker("django_db")
    declared = marker.kwargs.get("databases") if marker else None
    if declared != "__all__":
        settings.NALARKU_REPLICA = {**settings.NALARKU_REPLICA, "reads": False}


@pytest.fixture(autouse=True)
def _own_cache_keys(settings):  # noqa: ANN001
    """Each test counts wrong tokens (review.api.throttle) under keys of its own:
    the Redis database is shared between runs, and a count left by an
    earlier run would lock this one out."""
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}


@pytest.fixture(autouse=True)
def _fresh_query_cache():
    """Each test embeds its own queries: a vector cached by an earlier test
    would hide an embedding call (or an embedding outage) from this one."""
    from retrieval import source_types
    from retrieval.embeddings import query_cache_clear

    query_cache_clear()
    source_types.clear()  # labels and ranks read fresh: a test may have changed the table


@pytest.fixture
def make_user(db) -> Callable[..., User]:  # noqa: ANN001
    def make(username: str, *groups: str, reviewer: bool = False, **flags: object) -> User:
        """``reviewer``: the user may review claims (``review.review_claim``)."""
        user = User.objects.create_user(username=username, password="rahasia-uji", **flags)
        user.groups.set([Group.objects.get_or_create(name=name)[0] for name in groups])
        if reviewer:
            from django.contrib.auth.models import Permission

            user.user_permissions.add(Permission.objects.get(content_type__app_label="review", codename="review_claim"))
        return user

    return make
