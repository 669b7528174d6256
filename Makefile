# greenelm: `make book` and `make test` do all the set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)

# The shared data folder of this workplace, when it exists; users elsewhere set GREENELM_DATA
# themselves or let the loaders find the Debian packages / their cache / download.
SHARED_DATA := $(abspath ../shared/data)
ifeq ($(origin GREENELM_DATA), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export GREENELM_DATA := $(SHARED_DATA)
endif
endif

.PHONY: venv system-deps data test smoke references book html bench clean help

help:
	@echo "make book   - set up, execute every chapter at the full profile into book/, build _build/html"
	@echo "make test   - set up, run the unit tests, nbval references and the browser test"
	@echo "make smoke  - execute every chapter at the smoke profile (minutes) and build the HTML"
	@echo "make bench  - run the benchmarks and write benchmarks/report.{json,md}"
	@echo "make references - re-execute the smoke nbval references in tests/notebooks/"

venv: $(STAMP)
$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (greenelm needs Python 3.11; set PYTHON=...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[book,test,dask,backbones]"
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
	$(PY) -m pytest -q

smoke: venv system-deps
	$(PY) -m greenelm.runner run --profile smoke --out _smoke
	$(PY) -m greenelm.runner html --source _smoke

references: venv system-deps
	$(PY) -m greenelm.runner run --profile smoke --out tests/notebooks

book: venv system-deps data
	$(PY) -m greenelm.runner run --profile full --out book
	$(PY) -m greenelm.runner html --source book

bench: venv
	$(PY) -m benchmarks.run

clean:
	rm -rf _build _smoke
