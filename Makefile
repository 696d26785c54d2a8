# The one task runner. `make help` lists the targets.
PYTHON ?= python3
CARGO ?= cargo

.PHONY: help install dev test test-rust test-python test-wheel lint fmt bench bench-rust bench-python bench-vector bench-adapters bench-distributed bench-strength bench-search selfplay clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

install: ## build the engine in release mode and install tapete with its test dependencies
	$(PYTHON) -m pip install -q -e ".[test]"

test: lint test-rust test-python ## lints, Rust tests, Python tests (CI runs this, then test-wheel)

test-rust: ## Rust unit tests and the generic conformance suite (no Python needed)
	$(CARGO) test --release --quiet

test-python: ## the Python suite on both implementations (engine and reference), on every core
	$(PYTHON) -m pytest -q -p no:cacheprovider -n auto --dist loadgroup

# The tests that run against the installed wheel: every public module (engine, evaluators, bots,
# arena, batch environment, records, CLI, adapters) on the engine, without the long lock-step
# suites and the reference model (pure Python, the same files as in the source tree).
WHEEL_TESTS ?= test_api.py test_vector.py test_bots.py test_records.py test_cli_records.py \
	test_cuajo_evaluator.py test_golden.py test_hostile.py test_pettingzoo.py test_gymnasium.py \
	test_cli_terminal.py test_explain_illegal.py test_openspiel.py test_chance.py
WHEEL_VENV ?= /tmp/tapete-wheel-venv

test-wheel: ## build the abi3 wheel and the sdist, install the wheel in a fresh venv, test it there
	rm -rf dist $(WHEEL_VENV) /tmp/tapete-wheel-tests
	$(PYTHON) -m maturin build --release --quiet --out dist
	$(PYTHON) -m maturin sdist --out dist
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install -q "$$(ls dist/*.whl)[test]"
	mkdir /tmp/tapete-wheel-tests && cp -r tests docs README.md /tmp/tapete-wheel-tests/
	cd /tmp/tapete-wheel-tests && $(WHEEL_VENV)/bin/python -c \
		"import tapete, sys; assert '/site-packages/' in tapete.__file__, tapete.__file__"
	cd /tmp/tapete-wheel-tests && $(WHEEL_VENV)/bin/python -m pytest -q -p no:cacheprovider \
		-n auto -k "not reference" $(addprefix tests/,$(WHEEL_TESTS))

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

bench: bench-rust bench-python bench-vector bench-adapters bench-distributed bench-strength bench-search ## all benchmarks (never in CI)

bench-rust: ## criterion: native random playouts per game
	$(CARGO) bench --bench playouts

bench-python: ## Python-driven playouts: engine, reference and (if installed) OpenSpiel side by side
	$(PYTHON) benches/bench_python.py

bench-vector: ## tapete.VectorEnv against the Python loop over states and the write-only limit
	$(PYTHON) benches/bench_vector.py

bench-adapters: ## the PettingZoo and Gymnasium adapters against the raw State loop
	$(PYTHON) benches/bench_adapters.py

bench-strength: ## the bots in the duplicate arena: heuristic vs random, ismcts vs heuristic, per game
	$(PYTHON) benches/bench_strength.py

bench-search: ## the search primitives and IS-MCTS iterations/s, side by side with OpenSpiel's hearts
	$(PYTHON) benches/bench_search.py

bench-distributed: ## tapete.distributed on a local Ray head (1 and 2 workers) against the local arena
	$(PYTHON) benches/bench_distributed.py

selfplay: ## the main job: random self-play of Spoil Five with its results and speed
	tapete selfplay spoil_five --games 20000 --seed 1

clean: ## remove build products
	$(CARGO) clean
	rm -rf .pytest_cache .mypy_cache .ruff_cache .hypothesis
