"""A command run on a database nobody migrated says what to do, in
Indonesian, instead of a stack trace."""

from __future__ import annotations

import pytest

from tests.test_backup import empty_database, manage, spare_server  # noqa: F401 (fixtures)


@pytest.mark.slow
def test_a_command_on_an_unmigrated_database_names_migrate_and_shows_no_trace(empty_database):  # noqa: F811
    done = manage("demo_setup", "--users-only", database_url=empty_database)
    assert done.returncode == 1
    assert "manage.py migrate" in done.stderr and "Traceback" not in done.stderr, done.stderr
    # Once migrated, the same command runs.
    assert manage("migrate", "--no-input", "-v", "0", database_url=empty_database).returncode == 0
    again = manage("demo_setup", "--users-only", database_url=empty_database)
    assert again.returncode == 0, again.stderr
