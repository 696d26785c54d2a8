# The one task runner. `make help` lists the targets.
PYTHON ?= python3
CARGO ?= cargo

.PHONY: help install dev test test-rust test-python lint fmt bench bench-rust bench-python bench-vector bench-distributed selfplay clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

install: ## build the engine in release mode and install tapete with its test dependencies
	$(PYTHON) -m pip install -q -e ".[test]"

test: lint test-rust test-python ## everything CI runs: lints, Rust tests, Python tests

test-rust: ## Rust unit tests and the generic conformance suite (no Python needed)
	$(CARGO) test --release --quiet

test-python: ## the Python suite on both implementations (engine and reference), on every core
	$(PYTHON) -m pytest -q -p no:cacheprovider -n auto --dist loadgroup

lint: ## rustfmt, clippy, ruff, mypy --strict and the stub check
	$(CARGO) fmt --check
	$(CARGO) clippy --quiet --all-targets --features python -- -D warnings
	ruff check python tests benches
	ruff format --check python tests benches
	$(PYTHON) -m mypy --strict python/tapete
	$(PYTHON) -m mypy.stubtest tapete._core --allowlist .stubtest-allowlist

fmt: ## format Rust and Python sources
	$(CARGO) fmt
	ruff format python tests benches

bench: bench-rust bench-python bench-vector bench-distributed ## all benchmarks (never in CI)

bench-rust: ## criterion: native random playouts per game
	$(CARGO) bench --bench playouts

bench-python: ## Python-driven playouts: engine, reference and (if installed) OpenSpiel side by side
	$(PYTHON) benches/bench_python.py

bench-vector: ## tapete.VectorEnv against the Python loop over states and the write-only limit
	$(PYTHON) benches/bench_vector.py

bench-distributed: ## tapete.distributed on a local Ray head (1 and 2 workers) against the local arena
	$(PYTHON) benches/bench_distributed.py

selfplay: ## the main job: random self-play of Spoil Five with its results and speed
	tapete selfplay spoil_five --games 20000 --seed 1

clean: ## remove build products
	$(CARGO) clean
	rm -rf .pytest_cache .mypy_cache .ruff_cache .hypothesis
