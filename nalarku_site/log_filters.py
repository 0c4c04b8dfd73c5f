"""Logging filters. An expected refusal (403, 404, 401) is one line in the
server log: Django's request logger attaches the exception that became the
response, and a traceback for every reader who followed a stale link buries
the errors that matter. Server errors (5xx) keep theirs."""

from __future__ import annotations

import logging


class ExpectedRefusalsWithoutTraceback(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if status is not None and status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
