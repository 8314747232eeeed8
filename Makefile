# Two commands do all the set-up on a fresh machine with python3, make and git:
#   make serve   (creates .venv when missing, then runs the service on SQLite)
#   make test    (creates .venv when missing, then ruff, mypy and pytest)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 2

.PHONY: setup serve test bench bench-voicing golden docs lock clean conformance

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# --no-deps: the lock pins every package; tinysoundfont's metadata asks for pyaudio (no Linux
	# wheel, only needed for its own live playback, which we do not use).
	$(BIN)/python -m pip install -q --no-deps -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

serve: setup
	$(BIN)/harmony serve --host $(HOST) --port $(PORT) --workers $(WORKERS)

test: setup
	$(BIN)/ruff check engine server tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python -m pip install -q -r requirements-bench.lock
	$(BIN)/python -m pytest bench --benchmark-enable
	for s in bench/run_*.py; do $(BIN)/python $$s || exit 1; done

# Every voicing figure of issue 37 (docs/voicing.md) in one command: the corpus-wide figures
# (colour, bass lines, resolutions, register moves by place, motion, speed, remaining cases)
# and where each style sits.
bench-voicing: setup
	$(BIN)/python bench/run_voicing_context.py
	$(BIN)/python bench/run_voicing_register.py

# The official MCP conformance suite against `harmony serve --no-auth` (installs Node 22 and the
# suite from the npm registry into .venv/conformance on first use).
conformance: setup
	bench/run_conformance.sh

golden: setup
	$(BIN)/python -m tests.golden write

docs: setup  # docs/api.md from the schema table
	$(BIN)/python -m server.http.apidoc write

lock:  # resolve pyproject's dependencies (and dev extras) afresh in a scratch venv and pin them
	rm -rf .lockenv && $(PY) -m venv .lockenv
	.lockenv/bin/python -m pip install -q --upgrade pip setuptools
	.lockenv/bin/python -m pip install -q --no-deps tinysoundfont==0.3.7
	.lockenv/bin/python -m pip install -q '.[dev]'
	{ echo '# Pinned environment for the service and its tests (make setup installs exactly this).'; \
	  echo '# Regenerate: make lock'; \
	  .lockenv/bin/python -m pip freeze --all | grep -viE '^(pip==|harmony-engine)'; } > requirements.lock
	rm -rf .lockenv

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
