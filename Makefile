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

.PHONY: setup serve test bench golden lock clean

setup: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
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

golden: setup
	$(BIN)/python -m tests.golden write

lock:
	$(BIN)/python -m pip freeze --exclude-editable | grep -viE "^(pychord|music21)" > requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
