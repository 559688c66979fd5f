"""A commit's `-U0` hunks as edits of either side's text: the two versions of a file on either
side of a commit are parsed one whole and the other from its tree, told only what changed.
The diffs are real git's (`git diff --no-index`), the parses real tree-sitter's."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchors.history_compare import Version
from anchors.history_git import parse_patch

_LINES = st.lists(
    st.sampled_from(
        [
            b"def f(a):\n", b"    return a\n", b"\n", b"class C:\n", b"    def m(self):\n",
            b"        pass\n", b"x = 1\n", b"# note\n", b"def g():\n", b"    y = [\n",
            b"        1,\n", b"    ]\n",
        ]
    ),
    max_size=14,
)  # fmt: skip


def _text(lines: list[bytes], newline_at_end: bool) -> bytes:
    text = b"".join(lines)
    return text if newline_at_end or not text else text[:-1]


def _diff(tmp: Path, old: bytes, new: bytes) -> bytes:
    (tmp / "a.py").write_bytes(old)
    (tmp / "b.py").write_bytes(new)
    return subprocess.run(
        ["git", "diff", "--no-index", "-U0", "--full-index", "--no-color", "a.py", "b.py"],
        cwd=tmp,
        capture_output=True,
        check=False,
    ).stdout


def _apply(source: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    pieces, at = [], 0
    for start, end, text in edits:
        assert at <= start <= end
        pieces += [source[at:start], text]
        at = end
    return b"".join([*pieces, source[at:]])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_LINES, _LINES, st.booleans(), st.booleans())
def test_the_hunks_turn_each_side_into_the_other(
    tmp_path: Path, old_lines: list[bytes], new_lines: list[bytes], old_end: bool, new_end: bool
) -> None:
    old, new = _text(old_lines, old_end), _text(new_lines, new_end)
    raw = _diff(tmp_path, old, new)
    if old == new:
        assert raw == b""
        return
    patch = parse_patch(raw)
    forward, backward = patch.edits(old, forward=True), patch.edits(new, forward=False)
    assert forward is not None and backward is not None
    assert _apply(old, forward) == new
    assert _apply(new, backward) == old


def _symbols(version: Version) -> list[tuple[str, int, int]]:
    return [(s.name, s.start_line, s.end_line) for s in version.symbols]


def test_the_second_side_parsed_from_the_first_reads_as_parsed_whole(tmp_path: Path) -> None:
    body = [b"def f%d(a):\n    return a + %d\n\n" % (n, n) for n in range(300)]
    old = b"".join(body)
    new_body = list(body)
    new_body[10] = b"def renamed(a):\n    return a * 2\n\n"
    new_body[200:202] = [b"class K:\n    def m(self):\n        pass\n\n"]
    new = b"".join(new_body) + b"x = 1"
    patch = parse_patch(_diff(tmp_path, old, new))
    for first_source, second_source, forward in ((old, new, True), (new, old, False)):
        first = Version("a", first_source, "python")
        second = Version("b", second_source, "python")
        edits = patch.edits(first_source, forward=forward)
        assert edits is not None
        second.lean_on(first, lambda edits=edits: edits)
        first.symbols  # noqa: B018 - parsed first, whole
        assert second._base is first  # parsed from the first's tree
        assert _symbols(second) == _symbols(Version("c", second_source, "python"))
        assert second._base is None  # the tree it leaned on is let go
