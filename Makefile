# Nalarku — the two commands a fresh machine needs: `make demo`, `make test`.
SHELL := /bin/bash

.PHONY: install demo stop lint format test screenshots bench report clean-test

# uv comes from PATH, else from the bootstrap virtualenv scripts/ensure-uv.sh
# makes under var/ (a stock Debian or Ubuntu Python refuses `pip install`).
export PATH := $(PATH):$(CURDIR)/var/bootstrap/bin

install:  ## Python 3.11 environment with every dependency, from uv.lock (uv installed under var/ if missing)
	@scripts/ensure-uv.sh
	uv sync --frozen

demo: install  ## embedded PostgreSQL + demo archive + worker + web server (Ctrl-C stops the server and worker)
	scripts/demo.sh

stop:  ## stop what `make demo` started: web server, worker, embedded PostgreSQL, the Redis it started
	@scripts/stop.sh

lint: install  ## ruff: lint rules and format, as .ci/run checks them before the tests ("make format" fixes)
	uv run --frozen ruff check .
	uv run --frozen ruff format --check .

format: install  ## ruff: sort imports, apply the safe fixes, format
	uv run --frozen ruff check --fix .
	uv run --frozen ruff format .

test: install  ## the whole suite, on real PostgreSQL+pgvector, real Redis, real Chromium, real OCR
	REDIS_URL=$${REDIS_TEST_URL:-redis://127.0.0.1:6379/15} scripts/ensure-redis.sh
	scripts/ensure-chromium.sh
	scripts/ensure-ocr.sh
	REDIS_URL=$${REDIS_TEST_URL:-redis://127.0.0.1:6379/15} uv run --frozen python -m pytest $(PYTEST_ARGS)

screenshots: install  ## the README's screenshots (docs/screenshots/), from the editor's walk in Chromium
	REDIS_URL=$${REDIS_TEST_URL:-redis://127.0.0.1:6379/15} scripts/ensure-redis.sh
	scripts/ensure-chromium.sh
	NALARKU_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots REDIS_URL=$${REDIS_TEST_URL:-redis://127.0.0.1:6379/15} \
		uv run --frozen python -m pytest tests/browser/test_editor_flow.py

bench: install  ## benchmarks that print figures (see bench/README.md)
	uv run --frozen python bench/ingest.py

.PHONY: load
load: install  ## load benchmark: 20 readers with tokens on gunicorn, /api/search + /api/ask (bench/README.md); LOAD_ARGS="--saturate"
	uv run --frozen python bench/load.py $(LOAD_ARGS)

report: install  ## evaluate the demo archive's set and write reports/report.{md,html} with plots
	scripts/report.sh

clean-test:  ## stop and delete the test run's embedded PostgreSQL
	uv run --frozen python -c "from pathlib import Path; from nalarku_site.embedded_db import stop_embedded_database as s; s(Path('var/test'))" || true
	rm -rf var/test
