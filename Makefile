# lambdafuzz developer entry points. Everything runs inside .venv, created on demand.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# the runtime package alone (`make demo`); STAMP adds the dev extras (`make test`, `make bench`)
RUNTIME := $(VENV)/.runtime
# setuptools' notice that an editable install is one (the only warning the install printed)
QUIET_INSTALL := PYTHONWARNINGS="ignore:Editable installation"

.PHONY: venv runtime test docs docs-serve lint format demo bench bench-study test-localstack clean

venv: $(STAMP)

runtime: $(RUNTIME)

# $(VENV) with a Python 3.12+ and a current pip (recreated when its Python is older)
define make_venv
	@PYTHON=$$(scripts/find-python) || exit 1; \
	if [ ! -x $(PY) ] || ! $(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)'; then \
	  rm -rf $(VENV); echo "creating $(VENV) with $$PYTHON"; $$PYTHON -m venv $(VENV) || exit 1; \
	fi
	$(PY) -m pip install --quiet --upgrade pip
endef

$(RUNTIME): pyproject.toml
	$(make_venv)
	$(QUIET_INSTALL) $(PY) -m pip install --quiet -e .
	@touch $(RUNTIME)

$(STAMP): pyproject.toml
	$(make_venv)
	$(QUIET_INSTALL) $(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP) $(RUNTIME)

# the documentation site (mkdocs.yml): built with --strict, so a broken link, anchor or
# generated reference fails `make test` before the suite runs
MKDOCS := NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs

test: venv
	$(MKDOCS) build --strict --quiet --site-dir .site
	$(PY) -m pytest -q

docs: venv
	$(MKDOCS) build --strict --site-dir .site

# serves the site on http://127.0.0.1:8000 and rebuilds it as the pages change
docs-serve: venv
	$(MKDOCS) serve

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

DEMO_LAMBDA ?= gradebook
DEMO_SECONDS ?= 30

# Exit status 1 means "failures found", which is what a demo hopes to show.
demo: runtime
	@rm -rf out/demo
	$(VENV)/bin/lambdafuzz fuzz benchmarks/lambdas/$(DEMO_LAMBDA) --time $(DEMO_SECONDS) --out out/demo; \
	  status=$$?; [ $$status -le 1 ] || exit $$status
	@echo ""
	@echo "Replay a bug:      $(VENV)/bin/lambdafuzz repro out/demo/failures/<bug>.json"
	@echo "Shrink it:         $(VENV)/bin/lambdafuzz minimize out/demo/failures/<bug>.json"

bench: venv
	$(PY) benchmarks/reset_load.py
	$(PY) benchmarks/choices_throughput.py --seconds 1
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/zero_mutations.py
	$(PY) benchmarks/edge_values.py --inputs 200 --rounds 5
	$(PY) benchmarks/sam_constructs.py --seeds 0,1,2
	$(PY) benchmarks/cost.py --execs 300 --max-seconds 120 --overhead-execs 150 --paired 200 --lambdas csv_loader,s3_thumbnail
	$(PY) benchmarks/aws_path.py
	$(PY) benchmarks/file_generators.py --draws 500 --erroneous-draws 5000 --edge-draws 2000
	$(PY) benchmarks/ray_scaling.py --execs 3000 --rounds 3
	$(PY) benchmarks/ray_scaling.py --execs 3000 --rounds 3 --warm-execs 3000 --local-too
	$(PY) benchmarks/handled_cost.py --tests 150 --rounds 5
	$(PY) benchmarks/bugbench.py --execs 300 --seeds 0 --strategies frontier,zest
	$(PY) benchmarks/isolation_cost.py --rounds 5
	$(PY) benchmarks/oracle_cost.py --execs 300 --rounds 5

bench-study: venv
	$(PY) benchmarks/run.py

test-localstack: venv
	scripts/test-localstack

clean:
	rm -rf $(VENV) out .pytest_cache .site
