# The two commands users need: `make run` and `make test`. Both install first when needed.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint typecheck bench model clean

install: $(STAMP)

$(STAMP): pyproject.toml setup.py indexer/_kernels.pyx
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/jobdedup serve

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/ingest.py

# Rebuild the shipped classifier artifact from ../shared/data (fixed seed: same model.txt).
model: $(STAMP)
	$(BIN)/jobdedup train

clean:
	rm -rf $(VENV) var .mypy_cache .pytest_cache .ruff_cache
