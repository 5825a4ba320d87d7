# precmp: statistical comparison of classifiers. `make help` lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV := $(VENV)/.dev
TORCH := $(VENV)/.torch
SPARK := $(VENV)/.spark
BAYES := $(VENV)/.bayes
# worker processes for `make test` and `make report` (default: the cores of this machine)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BROWSER_STAMP := $(VENV)/.browser
# One BLAS/OpenMP thread per process: tests and notebooks run side by side on few cores, and
# oversubscribed thread pools make small fits many times slower.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1

# The package is installed editable; with a C compiler present, that also builds the optional
# label-coding loops (precmp_lib/core/_native.c, see setup.py) next to their source. The setuptools
# notice about editable installs is silenced. JupyterLab's settings overrides turn off its news
# feed and update check: the lab asks nobody to fetch anything from outside (classrooms may be
# offline).
$(STAMP): requirements.txt pyproject.toml setup.py precmp_lib/core/_native.c scripts/jupyterlab_overrides.json
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (precmp)" >/dev/null
	@mkdir -p $(VENV)/share/jupyter/lab/settings
	cp scripts/jupyterlab_overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	@touch $(STAMP)

# Developer tools (tests, lint, type checks, the API reference, the peers the tests call):
# `make test`, `make lint` and `make docs` install them; `make report` does not.
$(DEV): requirements-dev.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(DEV)

# PyTorch (CPU) for notebook 09's training path: `make test` installs it, `make report` does
# not need it (notebook 09 then uses the shipped deep_digits_predictions.csv).
$(TORCH): requirements-torch.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-torch.txt
	@touch $(TORCH)

# PySpark for the Spark engine's tests (needs Java 17): `make test` installs it, `make report`
# does not need it.
$(SPARK): requirements-spark.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-spark.txt
	@touch $(SPARK)

# NumPyro for the hierarchical Bayesian model across data sets (--hierarchical): `make test`
# installs it, `make report` does not need it.
$(BAYES): requirements-bayes.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-bayes.txt
	@touch $(BAYES)

.PHONY: help venv report check test docs browser-test lab data bench lint clean

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

venv: $(STAMP) ## create .venv from requirements.txt (done by every target that needs it)

report: $(STAMP) ## run every notebook (JOBS at a time) and render build/reports/index.html
	$(PY) -m precmp_lib.course.site build-site --out build/reports --jobs $(JOBS)

# The inner loop: what `make test` runs but the notebooks and the Spark tests (marks `notebook`
# and `spark`, tests/conftest.py), about 2.5 minutes on two cores; workers steal queued tests
# from each other, so the two long Hypothesis tests of degenerate files do not end on one worker.
check: $(DEV) ## the fast loop: lint, unit tests and doctests; no notebooks, no Spark
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -n $(JOBS) --dist worksteal -m "not notebook and not spark" -p no:cacheprovider tests precmp_lib

# `make test` runs each notebook once at its defaults: the contract test marked runs_notebook(name)
# runs it, and nbval skips it (tests/conftest.py); nbval runs the others.
test: $(DEV) $(TORCH) $(SPARK) $(BAYES) ## lint, unit tests, doctests, Spark, every notebook once (contract test or nbval)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -n $(JOBS) --dist loadfile --nbval-lax -p no:cacheprovider tests precmp_lib notebooks

docs: $(DEV) ## API reference from the docstrings (and docs/coming_from*.md) into build/reports/api
	$(PY) docs/build_api.py build/reports/api

# Selenium for the real-browser test; the browser and its driver are Debian's chromium and
# chromium-driver (.ci/run installs them when missing).
$(BROWSER_STAMP): requirements-browser.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-browser.txt
	@touch $(BROWSER_STAMP)

browser-test: $(BROWSER_STAMP) ## JupyterLab in headless Chromium: run a notebook, move a slider
	$(PY) scripts/browser_test.py --out build/browser-test

lab: $(STAMP) ## open the notebooks in JupyterLab
	$(VENV)/bin/jupyter lab notebooks

data: $(STAMP) ## download the UCI datasets into the user cache (PRECMP_DATA, else ~/.cache/precmp)
	$(PY) -W "ignore::RuntimeWarning:runpy" -m precmp_lib.course.download download

bench: $(STAMP) ## benchmarks: tables of speed ratios
	@for f in bench/bench_*.py; do echo "== $$f"; $(PY) $$f; done

lint: $(DEV) ## ruff (style, complexity, docstrings) over everything; mypy over the library
	$(PY) -m ruff check .
	$(PY) -m mypy

clean: ## remove build outputs (keeps .venv and the data cache)
	rm -rf build
