# The two commands users need: `make run` and `make test`. Both install first when needed.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint typecheck bench model constraints clean

install: $(STAMP)

# constraints.txt pins every package to the versions the model and the tests were made with.
$(STAMP): pyproject.toml setup.py indexer/_kernels.pyx constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
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

# After upgrading a package in .venv and passing `make test` (and retraining if the model's
# features moved): write the installed versions back, keeping the file's header comment.
constraints: $(STAMP)
	{ grep '^#' constraints.txt; $(BIN)/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) var .mypy_cache .pytest_cache .ruff_cache
