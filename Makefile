# greenelm: `make book` and `make test` do all the set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | md5sum | cut -c1-8)

# The shared data folder of this workplace, when it exists; users elsewhere set GREENELM_DATA
# themselves or let the loaders find the Debian packages / their cache / download.
SHARED_DATA := $(abspath ../shared/data)
ifeq ($(origin GREENELM_DATA), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export GREENELM_DATA := $(SHARED_DATA)
endif
endif

# OpenBLAS's SkylakeX kernels (picked on AVX-512 machines) crashed in a 16,000-wide syrk on this
# project's machines; the Haswell kernels are stable (and ~1.5x slower in GEMM). Every run the
# Makefile starts (tests, chapters, benchmarks) uses them unless the caller chose a core type.
ifeq ($(shell uname -m),x86_64)
export OPENBLAS_CORETYPE ?= Haswell
endif
# torch's idle OpenMP threads sleep instead of spinning beside other work (10-40x slower otherwise)
export OMP_WAIT_POLICY ?= PASSIVE

.PHONY: venv system-deps data test test-oldest smoke references book book-full html bench clean help

help:
	@echo "make book   - set up, re-execute only stale chapters (full profile) into book/ from the cache of record (book/cache), build _build/html"
	@echo "make book-full - set up, recompute every chapter at the full profile from scratch (hours), build _build/html"
	@echo "make test   - set up, run the unit tests, nbval references and the browser test, then test-oldest"
	@echo "make test-oldest - the library's tests at the oldest numpy/scipy/scikit-learn allowed"
	@echo "make smoke  - execute every chapter at the smoke profile (minutes) and build the HTML"
	@echo "make bench  - run the benchmarks and write benchmarks/report.{json,md}"
	@echo "make references - re-execute the smoke nbval references in tests/notebooks/"

venv: $(STAMP)
# The library (editable) with the book's and the tests' extras, at the exact versions of
# constraints.txt; greenelm_book/ (not part of the distribution) is put on the venv's path by a .pth.
$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (the book's environment is Python 3.11; set PYTHON=...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[book,test]"
	echo "$(CURDIR)" > "$$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/greenelm-book.pth"
	rm -f $(VENV)/.installed-* && touch $@

# Fashion-MNIST (Debian package dataset-fashion-mnist) and Chromium for the browser test.
system-deps:
	@missing=""; \
	[ -d /usr/share/datasets/fashion-mnist ] || missing="$$missing dataset-fashion-mnist"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null || missing="$$missing chromium-driver"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian packages:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) \
	      || echo "warning: could not install$$missing; the tests that need them will be skipped"; \
	  else echo "note: missing Debian packages:$$missing (apt-get install them; tests that need them are skipped)"; fi; \
	fi

data: venv system-deps
	$(PY) -m greenelm.data --check

test: venv system-deps
	$(PY) -m pytest -q --durations=25
	$(MAKE) --no-print-directory test-oldest

# The library alone, at the oldest versions pyproject.toml allows, with no optional stack (no
# torch, pandas, dask, tqdm, book): the lower bounds are what this target tests.
OLDEST := numpy==1.26.4 scipy==1.11.4 scikit-learn==1.6.1
OLDEST_VENV := .venv-oldest
OLDEST_STAMP := $(OLDEST_VENV)/.installed-$(shell echo "$(OLDEST)" | cat - pyproject.toml | md5sum | cut -c1-8)
# test files that import neither the book's machinery nor an optional stack at module level
LIBRARY_TESTS := $(filter-out tests/test_layers.py,$(shell grep -L "greenelm_book\|^import torch\|^from torch\|^import pandas\|nbformat" tests/test_*.py))

$(OLDEST_STAMP): pyproject.toml
	test -x $(OLDEST_VENV)/bin/python || $(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet $(OLDEST) pytest hypothesis==6.170.17
	$(OLDEST_VENV)/bin/python -m pip install --quiet --no-deps -e .
	rm -f $(OLDEST_VENV)/.installed-* && touch $@

test-oldest: $(OLDEST_STAMP)
	@echo "library tests at $(OLDEST): $(LIBRARY_TESTS)"
	$(OLDEST_VENV)/bin/python -m pytest -q -o addopts="-p no:cacheprovider" $(LIBRARY_TESTS)

smoke: venv system-deps
	$(PY) -m greenelm_book.running.runner run --profile smoke --out _smoke
	$(PY) -m greenelm_book.running.runner html --source _smoke

references: venv system-deps
	$(PY) -m greenelm_book.running.runner run --profile smoke --out tests/notebooks

# Renders the committed executed chapters, re-executing only the stale ones (minutes on a fresh clone:
# their results come from the committed cache of record, book/cache, where their keys still match).
book: venv system-deps
	$(PY) -m greenelm_book.running.runner run --profile full --out book --stale-only
	$(PY) -m greenelm_book.running.runner html --source book

# Recomputes every chapter at the full profile, ignoring the cache of record and the local cache
# (hours on two cores), rewrites the record, then renders.
book-full: venv system-deps data
	$(PY) -m greenelm_book.running.runner run --profile full --out book --recompute
	$(PY) -m greenelm_book.running.runner html --source book

bench: venv
	$(PY) -m benchmarks.run

clean:
	rm -rf _build _smoke
