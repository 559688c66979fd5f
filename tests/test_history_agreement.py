"""`tether history`: cases found by comparing its histories with the exhaustive sweep
(bench/anchors/sweep.py) on random functions of repositories new to it, each a synthetic history
in a real git repository, walked the three ways of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, log_kind  # noqa: F401  (log_kind: autouse)


def test_methods_made_functions_with_the_class_line_outside_the_hunk(tmp_path: Path) -> None:
    """werkzeug's a13a92f8 removed the test class `TestTest` and made its methods functions. git's
    `-U0` diff pairs the blank lines between them, so the hunk of a later method does not hold the
    class line: its old lines, parsed alone, read as a function of the same name. It was a method:
    the commit renamed it (`Suite.test_b` became `test_b`), and the older commits are the
    method's, under its name."""
    r = Repo(tmp_path / "r")
    method = "    def test_b(self):\n        y = {n}\n        return y\n"
    r.write(
        "test_x.py",
        "class Suite(Base):\n    def test_a(self):\n        x = 1\n        return x\n\n"
        + method.format(n=1),
    )
    born = r.commit("suite")
    r.write(
        "test_x.py",
        "class Suite(Base):\n    def test_a(self):\n        x = 1\n        return x\n\n"
        + method.format(n=2),
    )
    edited = r.commit("y = 2")
    r.write(
        "test_x.py",
        "def test_a():\n    x = 1\n    return x\n\ndef test_b():\n    y = 2\n    return y\n",
    )
    flattened = r.commit("no class")
    history = symbol_history(r.path, "test_x.py", "test_b")
    assert [e.commit for e in history.commits] == [flattened, edited, born]
    assert "rename" in history.commits[0].changes
    assert [e.symbol for e in history.commits[1:]] == ["Suite.test_b", "Suite.test_b"]
