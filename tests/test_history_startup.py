"""`tether history` races `git log -L`: its way through the program imports none of the modules
that cost milliseconds and that it does not need (docs/benchmarks.md, "History accuracy and
speed"). This keeps it so, and checks the answer given that way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git

# Modules `tether history` used to import on its way (each ~0.5-5 ms): `typing` (also through the
# `tree_sitter` package's __init__), `pathlib`, `dataclasses` with `inspect`, `contextlib`, `re`
# (through its own patterns, `difflib` and tree-sitter's compiled module: `anchors.lazy`), `heapq`
# and the `importlib` package.
AVOIDED = (
    "typing", "pathlib", "dataclasses", "inspect", "tree_sitter", "contextlib", "re", "difflib",
    "heapq", "importlib",
)  # fmt: skip

RUN = """
import io, sys
from anchors.cli.main import main
out = io.BytesIO()
class Stdout:
    buffer = out
    def write(self, text): out.write(text.encode())
    def flush(self): pass
    def isatty(self): return False
real, sys.stdout = sys.stdout, Stdout()
try:
    code = main(sys.argv[1:])
finally:
    sys.stdout = real
print(code, sorted(m for m in {avoided!r} if m in sys.modules), file=sys.stderr)
sys.stderr.write(out.getvalue().decode())
"""


def _history(repo: Path, *args: str) -> tuple[str, list[str], dict[str, object]]:
    code, imported, out = _history_text(repo, *args)
    return code, imported, json.loads(out)


def _history_text(repo: Path, *args: str) -> tuple[str, list[str], str]:
    env = {**os.environ, "TETHER_COMMIT_GRAPH": "0"}
    result = subprocess.run(
        [sys.executable, "-c", RUN.format(avoided=AVOIDED), *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    first, _, rest = result.stderr.partition("\n")
    code, _, imported = first.partition(" ")
    return code, eval(imported), rest  # noqa: S307 - our own repr of a list


def test_history_imports_none_of_the_slow_modules_and_answers(repo: Path) -> None:
    (repo / "pkg").mkdir()
    source = repo / "pkg" / "calc.py"
    source.write_text("def total(xs):\n    return sum(xs)\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "add total")
    source.write_text("def total(xs, start=0):\n    return sum(xs, start)\n")
    git(repo, "commit", "-qam", "start")
    source.write_text("def total(xs, start=0):\n    # a comment only\n    return sum(xs, start)\n")
    git(repo, "commit", "-qam", "comment")

    code, imported, doc = _history(repo / "pkg", "history", "calc.py::total", "--json")

    assert code == "0"
    assert imported == []
    assert doc["path"] == "pkg/calc.py" and doc["symbol"] == "total"
    commits = doc["commits"]
    assert isinstance(commits, list)
    assert [c["changes"] for c in commits] == [["body", "signature"], ["introduced"]]
    assert commits[0]["commit"] == git(repo, "rev-parse", "HEAD~1").strip()


def test_history_as_a_table_imports_none_of_them_either(repo: Path) -> None:
    """The table (plain lines when piped) is printed through `anchors.cli.output`, which
    imports `typing` only for the type checker."""
    (repo / "calc.py").write_text("def total(xs):\n    return sum(xs)\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "add total")
    code, imported, out = _history_text(repo, "history", "calc.py::total")
    assert code == "0"
    assert imported == []
    assert out.split("\t")[0] == git(repo, "rev-parse", "HEAD").strip()[:12]
    assert "introduced" in out


def test_the_slow_modules_are_the_ones_a_plain_import_would_bring(repo: Path) -> None:
    """The test above can fail: importing the package as usual brings every avoided module."""
    code = f"import sys, tree_sitter, dataclasses, pathlib, contextlib, difflib, importlib; print(sorted(m for m in {AVOIDED!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert eval(result.stdout) == sorted(AVOIDED)  # noqa: S307


def test_history_of_javascript_and_java_imports_none_of_them(repo: Path) -> None:
    """Their outlines look for definitions in callbacks and for local classes by text, without
    `re` (`anchors.outline.callback_defines`, `java_declares_type`); a rename check reads the
    diff's words without it too (`history_walk._switched`)."""
    (repo / "app.js").write_text(
        "describe('x', () => {\n  const helper = (a) => a + 1;\n  function named() {}\n});\n"
        "function start(port) {\n  return listen(port);\n}\n"
    )
    (repo / "Main.java").write_text(
        "class Main {\n  void run() {\n    Runnable r = new Runnable() {\n"
        "      public void run() {}\n    };\n    class Local {}\n  }\n}\n"
    )
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "add")
    (repo / "app.js").write_text(
        "describe('x', () => {\n  const helper = (a) => a + 2;\n  function named() {}\n});\n"
        "function begin(port) {\n  return listen(port);\n}\n"
    )
    git(repo, "commit", "-qam", "rename start")
    code, imported, doc = _history(repo, "history", "app.js::begin", "--json")
    assert (code, imported) == ("0", [])
    assert [c["changes"] for c in doc["commits"]] == [["rename"], ["introduced"]]
    code, imported, doc = _history(repo, "history", "Main.java::Main.run", "--json")
    assert (code, imported) == ("0", [])
    assert [c["changes"] for c in doc["commits"]] == [["introduced"]]
