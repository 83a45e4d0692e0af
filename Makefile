# Two commands do everything on a fresh machine:
#   make book   create .venv, install, fetch the data, build the book (_build/html)
#   make test   the same set-up, then the test suite
# Data comes from REPRODUCER_DATA_MIRROR (a folder or URL laid out like shared/data) or, unset,
# from the upstream URLs; it is cached in data/ (override with REPRODUCER_DATA_DIR).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup data book test clean-book help

help:
	@echo "make book   set up, fetch data, build the book into _build/html"
	@echo "make test   set up, fetch data, run the tests"

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -r requirements.txt
	touch $(STAMP)

setup: $(STAMP)

data: setup
	$(BIN)/python -m reproducer data fetch all

book: data
	$(BIN)/jupyter-book build . --warningiserror --keep-going
	@echo "The book is in _build/html/index.html"

test: data
	$(BIN)/python -m pytest

clean-book:
	rm -rf _build
