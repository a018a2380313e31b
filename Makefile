# Two commands on a fresh machine: `make serve` and `make test`. Both create the venv
# and install what they need first (the project itself editable, for the `pmctl` command).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PM_PORT ?= 8000

.PHONY: serve test check bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	PM_PORT=$(PM_PORT) $(BIN)/python -m chalicelib.local.serve

# Unit tests use moto in-process, whose backends are global to a process: they run in a
# pytest run of their own, apart from the tests that talk to moto's server.
test: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit
	$(BIN)/python -m pytest -n 2 -q tests --ignore=tests/unit

check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
