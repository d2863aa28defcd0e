# Two commands matter: `make run` (the default campaign) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/harem run --config pipeline.yaml

# The tests run with byte-code cached, as an installed package has it, even
# where the shell sets PYTHONDONTWRITEBYTECODE: else every test worker and
# subprocess compiles the package (and pytest rewrites every test module) again.
test: $(STAMP)
	$(BIN)/ruff check harem_pipeline tasks tests bench
	$(BIN)/ruff format --check harem_pipeline tasks tests bench
	$(BIN)/python -m compileall -q harem_pipeline tasks
	$(BIN)/mypy
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	$(BIN)/python bench/bench_measures.py
	$(BIN)/python bench/bench_pipeline.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis .mypy_cache
