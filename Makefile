# Two commands do everything on a fresh machine:
#   make book   create .venv, install, fetch the data, build the book (_build/html)
#   make test   the same set-up, then the test suite
# Data comes from REPRODUCER_DATA_MIRROR (a folder or URL laid out like shared/data) or, unset,
# from the upstream URLs; it is cached in data/ (override with REPRODUCER_DATA_DIR).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
# the stamp lives beside the interpreter it stamps: `make BIN=<another venv>/bin ...` installs into and stamps that one
STAMP   = $(BIN)/../.installed

NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
OFFLINE  := book/_offline

GPU_PACK := build/gpu-pack

.PHONY: setup data offline book reproduce smoke test clean-book help gpu-pack gpu-run gpu-dry-run

help:
	@echo "make book       set up, fetch data, build the book into _build/html from the committed notebook outputs"
	@echo "make reproduce  execute every notebook in order at the default preset, in place (2 to 5 hours a chapter on 2 CPU cores)"
	@echo "                PRESET=quick: the short path (minutes per model), executed copies in results/<chapter>/quick/"
	@echo "make smoke      execute every notebook at the smoke preset into a temporary folder"
	@echo "make test       set up, fetch data, smoke-run the notebooks, build the book, build the GPU pack, run the tests"
	@echo "make gpu-pack   build $(GPU_PACK)/ (the GPU plan's inputs: corpus ids, vocabulary, task data; about 7 minutes)"
	@echo "make gpu-run    on a GPU machine: the plan (CUDA check, bench, uni-QT at paper sizes, scores) into OUT=<folder>"
	@echo "make gpu-dry-run the same plan at smoke sizes on the CPU (about 2 minutes)"

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(BIN)/..
	$(BIN)/python -m pip install -r requirements.txt
	touch $(STAMP)

setup: $(STAMP)

data: setup
	$(BIN)/python -m reproducer data fetch all

# MathJax, require.js and the widgets HTML manager, from npm, served by the book itself (no CDN).
# Not in _static: Jupyter Book injects every .js found there into every page.
$(OFFLINE)/.stamp: book/package.json book/package-lock.json book/widgets_config.js
	cd book && npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(OFFLINE) && mkdir -p $(OFFLINE)/mathjax $(OFFLINE)/widgets
	cp -r book/node_modules/mathjax/es5 $(OFFLINE)/mathjax/
	cp book/node_modules/requirejs/require.js $(OFFLINE)/require.js
	cp book/widgets_config.js $(OFFLINE)/widgets/config.js
	cd book/node_modules/@jupyter-widgets/html-manager/dist && \
	  cp embed-amd.js *.woff *.woff2 *.ttf *.eot *.svg ../../../../_offline/widgets/
	touch $@

offline: $(OFFLINE)/.stamp

book: data offline
	$(BIN)/python -m reproducer book check $(NOTEBOOKS)
	@# a fresh build each time (about 15 s): Sphinx does not refresh static files it copied before
	rm -rf _build
	$(BIN)/jupyter-book build . --warningiserror --keep-going
	@echo "The book is in _build/html/index.html"

# `make reproduce` executes the book's notebooks in place at the default preset (hours: what the book shows);
# `make reproduce PRESET=quick` (minutes per model) writes each executed copy to results/<chapter>/quick/ (git-ignored:
# its numbers are the results/ files beside it) instead,
# leaving the book's notebooks as they are.
PRESET ?= default
reproduce: data
	@for nb in $(NOTEBOOKS); do \
	  stem=$$(basename $$nb .ipynb); \
	  if [ "$(PRESET)" = default ]; then out=$$nb; else mkdir -p results/$$stem/$(PRESET); out=results/$$stem/$(PRESET)/$$stem.ipynb; fi; \
	  echo "== $$nb ($(PRESET) preset) -> $$out"; \
	  REPRODUCER_QUIET=1 $(BIN)/papermill $$nb $$out -p preset $(PRESET) --cwd notebooks --log-output || exit 1; \
	done

smoke: data
	$(BIN)/python -m reproducer book smoke $(NOTEBOOKS)

# The GPU plan (README, "Running the paper presets on a GPU"): the pack is built here, the run needs only python3
# with torch, numpy, pandas, scikit-learn and scipy (what the lent GPU machine has) and this checkout.
gpu-pack: data
	$(BIN)/python -m reproducer gpu pack --out $(GPU_PACK)

gpu-run:
	sh scripts/gpu_run.sh $(GPU_PACK) $${OUT:-build/gpu-out}

gpu-dry-run: data
	$(BIN)/python -m reproducer gpu pack --scale smoke --out build/gpu-pack-smoke
	$(BIN)/python -m reproducer gpu run --plan smoke --pack build/gpu-pack-smoke --out build/gpu-dry-run --device cpu

test: smoke book gpu-pack
	$(BIN)/python -m pytest

clean-book:
	rm -rf _build
