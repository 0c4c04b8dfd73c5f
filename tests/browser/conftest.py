"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright,
against pytest-django's live server, with a real Celery worker thread."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.core.signals import request_finished, request_started

from nalarku_site.celery import app as celery_app
from retrieval.ingestion import revision_index, revision_submit
from retrieval.sources import ManifestEntry, read_manifest

# Playwright's sync API keeps an event loop in this thread; Django's ORM calls
# from the test body are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("NALARKU_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
# The feature-availability story of the demo archive, plus a hukum-only memo.
DEMO_KEYS = {"D11", "D12", "D13", "D14", "D16", "D24"}


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium tidak ada di {CHROMIUM} (scripts/ensure-chromium.sh memasangnya)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        yield browser
        browser.close()


class _RequestsInFlight:
    """Counts the live server's requests under way, from Django's own
    request signals, so that a test's end can wait for the server to be
    quiet."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def started(self, **kwargs) -> None:  # noqa: ANN003
        with self.lock:
            self.count += 1

    def finished(self, **kwargs) -> None:  # noqa: ANN003
        with self.lock:
            self.count = max(0, self.count - 1)

    def wait_quiet(self, timeout: float = 15.0, settle: float = 0.3) -> None:
        deadline = time.monotonic() + timeout
        quiet_since = None
        while time.monotonic() < deadline:
            if self.count == 0:
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since >= settle:
                    return
            else:
                quiet_since = None
            time.sleep(0.05)


_in_flight = _RequestsInFlight()
request_started.connect(_in_flight.started, dispatch_uid="browser-tests-started")
request_finished.connect(_in_flight.finished, dispatch_uid="browser-tests-finished")


@pytest.fixture
def page(browser, live_server, transactional_db):
    """A fresh browser context. It depends on the database so that it closes
    before the test's tables are emptied, and it waits for the requests the
    closing page still makes (the lookup clock's beacon, a progress poll)
    to finish: a request reading while TRUNCATE takes its locks deadlocks
    (CI saw it at a browser test's teardown)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="id-ID")
    context.set_default_timeout(90_000)
    page = context.new_page()
    yield page
    context.close()
    _in_flight.wait_quiet()


@pytest.fixture
def demo_subset(transactional_db, make_user):
    """Part of the real demo archive, indexed in-process, and its users."""
    for entry in read_manifest(ROOT / "demo" / "archive.jsonl"):
        if isinstance(entry, ManifestEntry) and entry.doc_id in DEMO_KEYS:
            result = revision_submit(data=entry.to_input())
            revision_index(revision_id=result.revision.pk)
    return {
        "editor": make_user("editor", "redaksi", reviewer=True),
        "pembaca": make_user("pembaca"),
        "legal": make_user("legal", "redaksi", "hukum", reviewer=True),
    }


@pytest.fixture
def worker(transactional_db):
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        yield
    celery_app.control.purge()


@pytest.fixture
def shoot(tmp_path):
    """Screenshots of the pages a test walks through: in the test's own
    temporary folder, so that a test run leaves the tree as it found it;
    into the README's docs/screenshots/ only when asked (``make
    screenshots`` sets NALARKU_SCREENSHOTS_DIR)."""
    folder = Path(os.environ.get("NALARKU_SCREENSHOTS_DIR") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)

    def save(page, name: str) -> None:  # noqa: ANN001
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return save
