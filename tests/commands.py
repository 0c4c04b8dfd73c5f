"""Running a management command as an admin would, output captured."""

from __future__ import annotations

from io import StringIO

from django.core.management import CommandError, call_command


def run_command(name: str, *args: str) -> tuple[str, str, CommandError | None]:
    """stdout, stderr and the CommandError it ended with (None if it succeeded)."""
    out, err = StringIO(), StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None
