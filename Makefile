# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run cluster test lint bench tui-bench snapshots clean

run: $(VENV)/.run
	$(BIN)/emq-dive batches-03

# the dive on a three-node Valkey cluster started from the embedded Valkey: the store pane shows the queue's slot
cluster: $(VENV)/.run
	$(BIN)/emq-dive batches-03 --backend cluster

test: $(VENV)/.test
	$(BIN)/python -m pytest -q

# ruff (rules chosen in pyproject.toml) over the checkout, then mypy over emq_dive/
lint: $(VENV)/.test
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(VENV)/.run
	$(BIN)/emq-dive bench

# the dive's speed where a learner feels it, each figure beside its baseline in one run (needs tmux; the serve
# section needs chromium): `make tui-bench BENCH="--quick"` for a smoke run, `BENCH="--only startup,keys
# --against ../old"` to pick sections and compare an older checkout; the in-process figures: benchmarks/tui_bench.py
tui-bench: $(VENV)/.test
	$(BIN)/python benchmarks/bench_harness.py $(BENCH)

snapshots: $(VENV)/.test
	$(BIN)/python -m pytest -q tests/test_snapshots.py --snapshot-update

$(VENV)/.run: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.test: pyproject.toml $(VENV)/.run
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) build dist .pytest_cache
