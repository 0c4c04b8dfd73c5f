#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import ProgrammingError

    try:
        execute_from_command_line(sys.argv)
    except ProgrammingError:
        # A command run on a database that was never migrated fails on the
        # first missing table; say what to do instead of a stack trace.
        if not unmigrated():
            raise
        sys.stderr.write(
            "Basis data belum disiapkan: ada migrasi yang belum dijalankan. "
            "Jalankan 'uv run python manage.py migrate', lalu ulangi perintah ini.\n"
        )
        sys.exit(1)


def unmigrated() -> bool:
    """Whether the database lacks migrations this code has."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    connection.close()  # the failed statement left its transaction aborted
    executor = MigrationExecutor(connection)
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))


if __name__ == "__main__":
    main()
