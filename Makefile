# Two commands for a newcomer: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck bench setup clean vscode

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python demo/demo.py

test: $(STAMP)
	$(BIN)/ruff check anchors lsp_server hooks tests bench
	$(BIN)/ruff format --check anchors lsp_server hooks tests bench
	$(BIN)/mypy
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory vscode; \
	else echo "npm not found: skipping the VS Code extension build"; fi
	$(BIN)/python -m pytest -m "not e2e" -q
	$(BIN)/python -m pytest -m e2e -q

# The VS Code extension: install, build, unit tests, package to a .vsix.
vscode:
	cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error && npm run build && npm test && npm run package

lint: $(STAMP)
	$(BIN)/ruff check anchors lsp_server hooks tests bench
	$(BIN)/ruff format --check anchors lsp_server hooks tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m bench.run_all

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
