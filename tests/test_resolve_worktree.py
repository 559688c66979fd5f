"""Resolution against the working tree and the index, line-range and file anchors, shallow clones
and anchors that a fetched op-log could carry (paths out of the repository, unknown commits)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from anchors.errors import UsageError
from anchors.record import Anchor
from anchors.resolve import Resolver, map_range, resolve_anchor, resolve_anchors
from anchors.specs import resolve_spec
from tests.conftest import git

CODE = """import os


def load(path):
    with open(path) as handle:
        data = handle.read()
    return data.strip()


def save(path, data):
    with open(path, "w") as handle:
        handle.write(data)
"""


@pytest.fixture
def code(repo: Path) -> Path:
    (repo / "io.py").write_text(CODE)
    (repo / "notes.md").write_text("one\ntwo\nthree\nfour\nfive\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "code")
    return repo


def spec(root: Path, text: str) -> Anchor:
    return resolve_spec(root, text, cwd=root).anchor


def test_unchanged_file_is_fresh_without_parsing(code: Path) -> None:
    anchor = spec(code, "io.py::load")
    with Resolver(code) as resolver:
        verdict = resolver.resolve(anchor)
        assert verdict.status == "fresh"
        assert resolver._parsed == {}  # nothing was read: git says the file did not change


def test_uncommitted_edit_is_stale_with_working_tree_evidence(code: Path) -> None:
    anchor = spec(code, "io.py::load")
    (code / "io.py").write_text(CODE.replace("data.strip()", "data.rstrip()"))
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "stale" and verdict.changes == ["body"]
    assert verdict.commits[0].sha == "" and "working tree" in verdict.commits[0].subject
    assert verdict.location is not None and verdict.location.dirty
    # The same edit, staged, is seen by --staged; the last commit still has the old code.
    git(code, "add", "io.py")
    with Resolver(code, staged=True) as resolver:
        assert resolver.resolve(anchor).status == "stale"
    with Resolver(code, rev="HEAD") as resolver:
        assert resolver.resolve(anchor).status == "fresh"


def test_staged_view_ignores_unstaged_edits(code: Path) -> None:
    anchor = spec(code, "io.py::load")
    (code / "io.py").write_text(CODE.replace("data.strip()", "data.rstrip()"))
    assert resolve_anchors(code, [anchor], staged=True)[0].status == "fresh"


def test_rename_with_git_mv_in_working_tree(code: Path) -> None:
    anchor = spec(code, "io.py::save")
    git(code, "mv", "io.py", "files.py")
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "moved" and verdict.location is not None
    assert verdict.location.path == "files.py"


def test_moved_into_an_untracked_file(code: Path) -> None:
    anchor = spec(code, "io.py::save")
    head, _, tail = CODE.partition("\n\ndef save")
    (code / "io.py").write_text(head + "\n")
    (code / "writer.py").write_text("def save" + tail)
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "moved" and verdict.location is not None
    assert verdict.location.path == "writer.py" and "move" in verdict.changes


def test_local_rename_is_cosmetic_but_a_free_name_is_not(code: Path) -> None:
    anchor = spec(code, "io.py::load")
    (code / "io.py").write_text(CODE.replace("data", "text"))
    assert resolve_anchor(code, anchor).status == "changed"
    (code / "io.py").write_text(CODE.replace("open(path)", "fopen(path)"))
    assert resolve_anchor(code, anchor).status == "stale"


def test_line_range_follows_hunks(code: Path) -> None:
    anchor = spec(code, "io.py#L10-L12")
    (code / "io.py").write_text("# a\n# b\n" + CODE)
    git(code, "commit", "-qam", "header")
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "fresh"
    assert verdict.location is not None and verdict.location.span == [12, 14]
    (code / "io.py").write_text("# a\n# b\n" + CODE.replace('"w"', '"a"'))
    git(code, "commit", "-qam", "append")
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "stale" and verdict.commits[0].subject == "append"
    (code / "io.py").write_text("# a\n# b\n" + CODE.split("\n\n\ndef save")[0] + "\n")
    git(code, "commit", "-qam", "drop save")
    assert resolve_anchor(code, anchor).status == "orphaned"


def test_line_range_whitespace_only_edit_is_fresh(code: Path) -> None:
    anchor = spec(code, "notes.md#L2-L3")
    (code / "notes.md").write_text("one\n  two  \nthree\nfour\nfive\n")
    assert resolve_anchor(code, anchor).status == "fresh"


@pytest.mark.parametrize(
    "hunks,expected",
    [
        ([], (10, 12, False)),
        ([(2, 0, 3, 2)], (12, 14, False)),  # two lines inserted above
        ([(2, 3, 2, 0)], (7, 9, False)),  # three lines deleted above
        ([(11, 1, 11, 1)], (10, 12, True)),  # a line changed inside
        ([(10, 0, 11, 1)], (10, 13, True)),  # a line inserted inside
        ([(20, 1, 20, 3)], (10, 12, False)),  # below
        ([(10, 3, 9, 0)], (10, 9, True)),  # all deleted
    ],
)
def test_map_range(hunks: list[tuple[int, int, int, int]], expected: tuple[int, int, bool]) -> None:
    assert map_range(hunks, 10, 12) == expected


def test_file_anchor(code: Path) -> None:
    anchor = spec(code, "notes.md")
    assert resolve_anchor(code, anchor).status == "fresh"
    git(code, "mv", "notes.md", "NOTES.md")
    git(code, "commit", "-qm", "rename")
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "moved" and verdict.location is not None
    assert verdict.location.path == "NOTES.md"
    (code / "NOTES.md").write_text("one\ntwo\nthree\nfour\nfive\nsix\n")
    assert resolve_anchor(code, anchor).status == "changed"
    git(code, "rm", "-qf", "NOTES.md")
    assert resolve_anchor(code, anchor).status == "orphaned"


def test_bad_rev_is_a_usage_error(code: Path) -> None:
    with pytest.raises(UsageError, match="unknown revision"):
        Resolver(code, rev="no-such-branch")
    with pytest.raises(UsageError):
        Resolver(code, rev="HEAD:io.py")  # a blob, not a commit


def test_anchor_paths_from_untrusted_logs_are_refused(code: Path) -> None:
    for path in ["../outside.py", "/etc/passwd", ".git/config"]:
        anchor = Anchor(path=path, symbol="x", fingerprint={"body": "0"}, commit="")
        assert resolve_anchor(code, anchor).status in ("orphaned", "stale")


def test_unknown_commit_compares_fingerprints_and_says_so(code: Path) -> None:
    anchor = spec(code, "io.py::load")
    anchor.commit = "f" * 40
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "fresh"
    assert "not in this repository" in verdict.notes[0]


def test_shallow_clone_says_what_history_is_missing(code: Path, tmp_path: Path) -> None:
    anchor = spec(code, "io.py::load")
    for i in range(3):
        (code / f"f{i}.txt").write_text(str(i))
        git(code, "add", "-A")
        git(code, "commit", "-qm", f"more {i}")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{code}", str(clone)], check=True)
    verdict = resolve_anchor(clone, anchor)
    assert verdict.status == "fresh"
    assert "shallow clone" in verdict.notes[0] and "unshallow" in verdict.notes[0]


def test_binary_and_huge_files_do_not_crash(code: Path) -> None:
    anchor = spec(code, "io.py::load")
    (code / "io.py").write_bytes(b"\x00" * 10 + b"def load(): pass\n")
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "stale" and "binary" in verdict.detail
    (code / "io.py").write_bytes(b"x = 1\n" * 200_000)
    assert "size cap" in resolve_anchor(code, anchor).detail


def test_syntax_error_elsewhere_leaves_intact_symbols_fresh(code: Path) -> None:
    anchor = spec(code, "io.py::save")
    (code / "io.py").write_text(CODE.replace("data = handle.read()", "data = = handle.read()"))
    assert resolve_anchor(code, anchor).status == "fresh"


def test_symbol_swallowed_by_a_syntax_error_is_not_guessed_away(code: Path) -> None:
    anchor = spec(code, "io.py::save")
    # Here tree-sitter's recovery folds `save` into the broken `load`.
    (code / "io.py").write_text(CODE.replace("def load(path):", "def load(path:"))
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "stale" and "syntax error" in verdict.detail


def test_non_utf8_edit_is_read_with_replacement(code: Path) -> None:
    anchor = spec(code, "io.py::save")
    (code / "io.py").write_bytes((CODE + "\n# caf\xe9\n").encode("latin-1"))
    verdict = resolve_anchor(code, anchor)
    assert verdict.status == "fresh"
