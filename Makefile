# Two commands on a fresh machine: `make serve` and `make test`. Both create the venv
# and install what they need first (the project itself editable, for the `pmctl` command).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PM_PORT ?= 8000

STAGE ?= dev
PACKAGE_DIR ?= build/package

.PHONY: serve demo docs generate lock test test-long test-all check bench bench-smoke fuzz mutate install clean package lint-template lambda-check deploy

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# --no-compile: a module is compiled when first imported instead of all of every package at
# install (10 s of a fresh install; the tests import a fraction of moto and botocore). That
# needs bytecode to be written: these machines set PYTHONDONTWRITEBYTECODE=1, with which every
# process (each test worker, every `make serve` and pmctl a test starts) compiled moto, botocore
# and the app again from source, 4.5 s each before the first test ran.
unexport PYTHONDONTWRITEBYTECODE
# uv installs (it does not compile either): the same versions as pip resolves (pip freeze
# compared), in 8 s instead of pip's 42 s, a sixth of a fresh clone's `make test` target of 4 min.
# pip stays in the venv, the newest below 26.3: chalice 1.34 packages through it and needs < 26.3.
UV := $(BIN)/uv pip install --quiet --python $(BIN)/python
# What is installed is requirements.lock, the whole dependency set at exact versions; the
# requirements files name what the project asks for, and `make lock` compiles the lock from them
# (the versions installed now kept where they still fit: `-c` the venv's own freeze).
$(STAMP): requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv==0.13.9
	$(UV) --upgrade-package pip "pip<26.3" -r requirements.lock
	$(UV) --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

LOCK_HEAD := \# The whole dependency set, exact (make install installs it; `make lock` compiles it anew from the\n\# requirements files after one of them changed). setuptools is left to the venv (chalice packages with it).
lock: $(STAMP)
	$(BIN)/uv pip freeze --python $(BIN)/python | grep -v '^-e\|^uv=\|^setuptools=' > $(VENV)/installed.txt
	{ printf '$(LOCK_HEAD)\n'; $(BIN)/uv pip compile --python $(BIN)/python --python-version 3.11.7 \
	  requirements-dev.txt -c $(VENV)/installed.txt --no-header --no-annotate --no-emit-package setuptools; } > requirements.lock

# The browser tests (tests/browser) drive Debian's Chromium through Playwright (whose own browser
# download cannot be fetched here): its headless shell, the build Playwright runs headless by
# default (a quarter less CPU than the full browser), and the full browser for the one test the
# shell cannot take (tests/browser/conftest.py). The targets are the binaries themselves (one
# rule makes both): apt runs only when one is missing, `apt-get update` only when the install
# fails on missing or stale package lists. Only `make test-long` needs them, not `make serve` or `make test`.
CHROMIUM := /usr/bin/chromium
HEADLESS_SHELL := /usr/bin/chromium-headless-shell
BROWSER_PACKAGES := chromium chromium-headless-shell
APT_GET = $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get
$(CHROMIUM) $(HEADLESS_SHELL) &:
	$(APT_GET) install -y --no-install-recommends $(BROWSER_PACKAGES) \
	  || { $(APT_GET) update && $(APT_GET) install -y --no-install-recommends $(BROWSER_PACKAGES); }
	test -x $(CHROMIUM) -a -x $(HEADLESS_SHELL)

serve: $(STAMP)
	PM_PORT=$(PM_PORT) $(BIN)/python -m chalicelib.local.serve

# The same, with a sandbox of the demo company to sign in to (chalicelib/local/demo.py).
demo: $(STAMP)
	PM_DEMO=1 PM_PORT=$(PM_PORT) $(BIN)/python -m chalicelib.local.serve

# Everything derived from the registry and the code that is committed (generate/: the argument
# types, the reference pages, the merge template, the tool search's vectors): rewrites what is
# stale. `make check` runs it in its check mode, which names each stale file and fails.
generate: $(STAMP)
	$(BIN)/python -m generate

# The docs site (mkdocs.yml, Material theme) into build/site: the generated files brought up to
# date (the reference pages among them), then a strict build, in which a warning (a broken link or
# anchor, a page missing from the nav) fails. `make serve` serves the site at /docs.
docs: generate
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The suite's tiers (tests/tiers.py, docs/getting-started.md "The suite's time"): `make test` is the
# developer's run, which guards everything cheaply (every test marked none of browser, e2e, fuzz,
# slow, quiet), on the Hypothesis profile `dev`; `make test-long` the rest, on `ci`; `make
# test-all` both (CI). Unit tests use moto's mock, whose backends are global to a process: they run
# in a pytest run of their own, beside the run of the functional and contract tests; their report
# is printed after the other's. `--maxschedchunk 2` hands tests out two at a time as workers
# finish: xdist's default sends each worker a first run of a quarter of its share in collection
# order, so the tests marked slow, which go first, all went to one worker (28 November). Any run
# failing fails the target.
TIER_DEFAULT := $(shell $(PYTHON) -m tests.tiers default)
TIER_LONG := $(shell $(PYTHON) -m tests.tiers long)
TIER_FOLDERS := $(shell $(PYTHON) -m tests.tiers folders)
UNIT_LOG := $(VENV)/unit-tests.log
FUNCTIONAL := tests --ignore=tests/unit --ignore=tests/lambda_check
TEST_WORKERS ?= 2
test: $(STAMP)
	@export HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-dev}; \
	$(BIN)/python -m pytest -q -m "$(TIER_DEFAULT)" tests/unit > $(UNIT_LOG) 2>&1 & unit=$$!; \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --maxschedchunk 2 -q -m "$(TIER_DEFAULT)" $(TIER_FOLDERS); others=$$?; \
	wait $$unit; units=$$?; echo "--- unit tests (tests/unit), run beside the above:"; cat $(UNIT_LOG); \
	test $$others -eq 0 -a $$units -eq 0

# The long tier: four workers on two cores, since its tests wait on browsers, spawned servers,
# receivers and the stream much of the time. The tests marked `quiet` measure a delay that one
# tenant's traffic must not cause another (2 s), or run on a 2-s clock, which two busy cores shared
# by several runs can exceed on their own: they run last, alone (only the files that hold them are
# collected for that run: the whole tree took 10 s). `pytest -m` picks no test of a file that has
# none of the marks (exit 5, "no tests ran"), which counts as passed here for the unit tests.
# The recovery across a receiver's outage runs the issue's 500 changes here (PM_RECOVER_TEST_CHANGES;
# a run of the file alone, 50: tests/functional/test_change_feed.py).
# The direct path (chalicelib/local/moto_direct.py) must answer as moto's own parse does: the cross-check
# compares the two on every run, and these run with the path off, on moto's HTTP parse alone.
WSGI_FILES := tests/functional/test_audit.py tests/functional/test_upserts.py
QUIET_FILES := $(shell grep -rl --include='*.py' 'mark\.quiet' tests)
test-long: $(STAMP) $(CHROMIUM) $(HEADLESS_SHELL)
	@export HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-ci}; \
	export PM_RECOVER_TEST_CHANGES=$${PM_RECOVER_TEST_CHANGES:-500}; \
	$(BIN)/python -m pytest -q -m "($(TIER_LONG)) and not quiet" tests/unit > $(UNIT_LOG) 2>&1 & unit=$$!; \
	$(BIN)/python -m pytest -n 4 --maxschedchunk 2 -q -m "($(TIER_LONG)) and not quiet" $(FUNCTIONAL); others=$$?; \
	wait $$unit; units=$$?; test $$units -eq 5 && units=0; \
	echo "--- unit tests (tests/unit), run beside the above:"; cat $(UNIT_LOG); \
	echo "--- the delay measurements (marked quiet), run alone:"; \
	$(BIN)/python -m pytest -q -m quiet $(QUIET_FILES); quiet=$$?; \
	echo "--- a write-heavy file with the local stack's direct path to moto off (PM_LOCAL_TRANSPORT=wsgi):"; \
	PM_LOCAL_TRANSPORT=wsgi $(BIN)/python -m pytest -n 2 -q $(WSGI_FILES); wsgi=$$?; \
	test $$others -eq 0 -a $$units -eq 0 -a $$quiet -eq 0 -a $$wsgi -eq 0

test-all: test test-long

check: $(STAMP)
	$(BIN)/python -m generate --check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports  # layers and cycles (pyproject.toml [tool.importlinter], ARCHITECTURE.md)

bench: $(STAMP)
	$(BIN)/python -m bench

# Every benchmark at a tiny size (PM_BENCH_SMOKE=1), asserting only that each runs to the end
# with no failed item and prints its table: catches a benchmark that no longer runs. Figures
# from it mean nothing. `make bench-smoke BENCH="uploads load"` runs some.
bench-smoke: $(STAMP)
	$(BIN)/python -m bench --smoke $(BENCH)

# Random generation at length: the tests marked fuzz (schema fuzzing, the isolation properties) on
# the Hypothesis profile `nightly` (200 generated cases per operation, 100 stateful scenarios, 30
# drawn sequences per property; tests/profiles.py). Takes a while.
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=nightly $(BIN)/python -m pytest -n 2 -q -m fuzz tests/functional

# Mutation testing of the guards (tenants, scopes, sessions, limits) with mutmut: each group of
# modules against the test files about it (tests/mutation.py), fresh each run; prints killed /
# total per module and every mutant not killed, and writes build/mutants/report.md. The auth group
# takes 17 to 24 minutes on two shared cores; `make mutate MUTATE=auth` (a group) or
# `MUTATE=chalicelib/throttle.py` (one module) runs less. Not part of `make test` or CI.
MUTATE_STAMP := $(VENV)/.mutate-installed
$(MUTATE_STAMP): requirements-mutate.txt $(STAMP)
	$(BIN)/python -m pip install --quiet --no-compile -r requirements-mutate.txt
	touch $(MUTATE_STAMP)

mutate: $(MUTATE_STAMP)
	MUTATE_JOBS=$(or $(MUTATE_JOBS),2) $(BIN)/python -m tests.mutation $(MUTATE)

# The deployment artifacts (deployment.zip for the API and workers, mcp-deployment.zip for
# the MCP function) and their SAM template (sam.json) in PACKAGE_DIR, with a size report; no
# AWS account needed.
package: generate
	STAGE=$(STAGE) PACKAGE_DIR=$(PACKAGE_DIR) $(BIN)/python -m infra.package

# cfn-lint on the packaged template: zero errors and warnings, or the target fails.
lint-template: package
	$(BIN)/cfn-lint $(PACKAGE_DIR)/sam.json

# The bundles run as Lambda runs them (infra/lambda_check, tests/lambda_check): each function of
# the packaged template started from its own read-only bundle in a bare Python 3.11, with the
# template's environment resolved against moto's server, invoked with AWS-shaped events; then
# the same check shown failing on a bundle missing a module, a renamed handler and a dropped
# variable. Prints each function's cold start and peak memory.
lambda-check: package
	PM_LAMBDA_PACKAGE=$(PACKAGE_DIR) $(BIN)/python -m pytest -q -p no:xdist tests/lambda_check
	@cat $(PACKAGE_DIR)/lambda-logs/summary.txt

# Needs an AWS account, the AWS CLI v2 and ARTIFACT_BUCKET (an S3 bucket for the code);
# see docs/deployment.md. Not run in CI.
deploy: lint-template
	@test -n "$(ARTIFACT_BUCKET)" || (echo "set ARTIFACT_BUCKET=<an S3 bucket of yours for deployment artifacts>"; exit 2)
	aws cloudformation package --template-file $(PACKAGE_DIR)/sam.json --s3-bucket $(ARTIFACT_BUCKET) \
	  --output-template-file $(PACKAGE_DIR)/packaged.json --use-json
	# the search models set aside from the MCP bundle, under their digest: in place before the stack
	# update starts a function that reads them (chalicelib/search/model_files.py)
	aws s3 sync $(PACKAGE_DIR)/search-models s3://$(ARTIFACT_BUCKET)/search-models
	aws cloudformation deploy --template-file $(PACKAGE_DIR)/packaged.json --stack-name pm-$(STAGE) \
	  --capabilities CAPABILITY_IAM CAPABILITY_AUTO_EXPAND \
	  --parameter-overrides Stage=$(STAGE) SearchModelBucket=$(ARTIFACT_BUCKET) $(PARAMETERS)
	STAGE=$(STAGE) $(BIN)/python -m infra.after_deploy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
