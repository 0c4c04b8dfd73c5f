"""An expected refusal is one line in the server log; a server error keeps
its traceback."""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def request_log():
    lines = Lines()
    logger = logging.getLogger("django.request")
    logger.addHandler(lines)
    yield lines.records
    logger.removeHandler(lines)


def test_a_403_and_a_404_are_logged_without_a_traceback(client, make_user, request_log):
    client.force_login(make_user("pembaca"))
    assert client.get(reverse("dashboard")).status_code == 403
    assert client.get(reverse("answer", args=[999999])).status_code == 404
    statuses = [(r.status_code, r.exc_info) for r in request_log]
    assert (403, None) in statuses and (404, None) in statuses, statuses
    assert all(r.getMessage().count("\n") == 0 for r in request_log)


def test_a_server_error_keeps_its_traceback(request_log):
    from nalarku_site.log_filters import ExpectedRefusalsWithoutTraceback

    try:
        raise RuntimeError("rusak")
    except RuntimeError:
        import sys

        record = logging.LogRecord(
            "django.request", logging.ERROR, __file__, 1, "Internal Server Error: /", None, sys.exc_info()
        )
    record.status_code = 500
    assert ExpectedRefusalsWithoutTraceback().filter(record) and record.exc_info is not None
    record.status_code = 403
    assert ExpectedRefusalsWithoutTraceback().filter(record) and record.exc_info is None
