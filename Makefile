# Two commands do all the set-up: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: all venv demo test pytest lit lint bench differential clean

all: test

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python scripts/demo.py examples

test: pytest lit

pytest: $(STAMP)
	$(BIN)/python -m pytest tests

lit: $(STAMP)
	$(BIN)/lit -v tests/filecheck

# pyright cannot follow setuptools' package-dir mapping of an editable install, so
# it reads the package through a tree of links laid out as installed: links to files
# (`cp -rs`), since pyright does not look inside a linked folder for the files to check.
TYPECHECK_TREE := build/typecheck/gpu_alloc

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	rm -rf build/typecheck && mkdir -p $(TYPECHECK_TREE)
	ln -s $(CURDIR)/core/*.py $(TYPECHECK_TREE)/
	for d in syntax dialect transforms packing lowering tools sim targets; do cp -rs $(CURDIR)/$$d $(TYPECHECK_TREE)/$$d; done
	$(BIN)/pyright

bench: $(STAMP)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/sim_bench.py
	$(BIN)/python bench/driver_bench.py
	$(BIN)/python bench/startup.py
	$(BIN)/python tests/fuzz_cli.py --cases 3000 --first 1000

# The OpenCL differential at full size: all 24 Halide-style kernels and the examples,
# fused/flattened/lowered, on the simulator, PoCL and Oclgrind, and the planted faults;
# prints the agreement table (needs the [run] extra). The suite runs a fixed sample.
differential: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[run]'
	$(BIN)/python scripts/opencl_differential.py

clean:
	rm -rf $(VENV) build *.egg-info
