"""The text matchers on `tether history`'s way, written with `bytes` and `str` methods so that it
never imports `re` (anchors.lazy), find what the regular expressions they stand for find:
git's diff headers, difflib's similarity, the outlines' searches for definitions inside
callbacks and methods, the rename check's whole words. Each is compared with the original on
generated input, and tree-sitter's `#match?` predicates still work with `re` loaded late."""

from __future__ import annotations

import difflib
import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from anchors.fingerprint import similarity
from anchors.history_git import _blobs, parse_patch
from anchors.history_walk import _names_something, _replaced, _whole_words
from anchors.outline import callback_defines, java_declares_type

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_INDEX = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)", re.MULTILINE)
_RAW = re.compile(rb"^:\d+ \d+ ([0-9a-f]+) ([0-9a-f]+) ", re.MULTILINE)


def _patch_by_regex(patch: bytes) -> tuple[object, ...]:
    old_blob = new_blob = None
    match = _INDEX.search(patch)
    if match:
        old_blob, new_blob = match.group(1).decode(), match.group(2).decode()
        if not old_blob.strip("0"):
            old_blob = None
    elif patch.strip():
        old_blob = new_blob = "same"
    hunks: list[tuple[int, int, int, int]] = []
    bodies: list[tuple[int, int]] = []
    for m in _HUNK.finditer(patch):
        a, b, c, d = m.groups()
        hunks.append((int(a), int(b) if b else 1, int(c), int(d) if d else 1))
        body = patch.find(b"\n", m.end()) + 1 or len(patch)
        if bodies:
            bodies[-1] = (bodies[-1][0], m.start())
        bodies.append((body, len(patch)))
    return old_blob, new_blob, hunks, bodies


def _raw_by_regex(raw: bytes) -> tuple[str | None, str | None]:
    match = _RAW.search(raw)
    if match is None:
        return None, None
    old: str | None = match.group(1).decode()
    new: str | None = match.group(2).decode()
    if old == new:
        return "same", "same"
    return (None if not old or not old.strip("0") else old), (
        None if not new or not new.strip("0") else new
    )


# Lines of a `-U0` diff: headers (some broken), changed lines that look like headers.
_DIFF_LINES = st.lists(
    st.sampled_from(
        [
            b"diff --git a/x b/x", b"index 0000000..1a2b3c 100644", b"index abc..def",
            b"index zz..12", b"old mode 100644", b"--- a/x", b"+++ b/x", b"@@ -1 +1 @@",
            b"@@ -10,2 +12,0 @@ def f():", b"@@ -0,0 +1,3 @@", b"@@ -1,x +2 @@", b"@@ -3 +4 @",
            b"-@@ -1 +1 @@", b"+index 1..2", b"-old line", b"+new line", b" context",
            b"\\ No newline at end of file", b"",
        ]
    ),
    max_size=12,
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(_DIFF_LINES, st.booleans())
def test_diff_headers_are_read_as_the_regular_expressions_read_them(
    lines: list[bytes], final_newline: bool
) -> None:
    patch = b"\n".join(lines) + (b"\n" if final_newline else b"")
    got = parse_patch(patch)
    assert (got.old_blob, got.new_blob, got.hunks, got.bodies) == _patch_by_regex(patch)


_RAW_LINES = st.lists(
    st.sampled_from(
        [
            b":100644 100644 abc123 def456 M\tx", b":100644 100755 abc abc M\tx",
            b":000000 100644 0000000 abc A\tx", b":100644 000000 abc 0000000 D\tx",
            b":1 2 3", b":x 1 ab cd M\tx", b"commit abc", b"",
        ]
    ),
    max_size=4,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_RAW_LINES)
def test_raw_lines_are_read_as_the_regular_expression_reads_them(lines: list[bytes]) -> None:
    raw = b"\n".join(lines)
    got = _blobs(raw)
    assert (got.old_blob, got.new_blob) == _raw_by_regex(raw)


def _difflib_similarity(a: str, b: str) -> float:
    if a == b:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a.split("\n"), b.split("\n"), autojunk=False)
    if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
        return matcher.quick_ratio()
    return matcher.ratio()


_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "(", ")", "<self>", "x", ""]), max_size=40)


@settings(max_examples=800, deadline=None)
@given(_TOKENS, _TOKENS, st.lists(st.integers(0, 39), max_size=5))
def test_similarity_is_difflibs(a: list[str], b: list[str], edits: list[int]) -> None:
    alike = list(a)  # also pairs that differ in a few tokens: past the quick bounds
    for at in edits:
        if alike:
            alike[at % len(alike)] = "z"
    for left, right in ((a, b), (a, alike)):
        x, y = "\n".join(left), "\n".join(right)
        assert similarity(x, y) == _difflib_similarity(x, y)


_JS_DEFINES = [
    re.compile(rb"function\s*\*?\s*[A-Za-z_$]"),
    re.compile(rb"class\s+[A-Za-z_$]"),
    re.compile(rb"=\s*(?:async\s*)?(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=;{]*)?=>"),
]
_JS_PIECES = st.lists(
    st.sampled_from(
        [b" ", b"\n", b"\t", b"=", b">", b"=>", b"(", b")", b":", b";", b"{", b"a", b"x1",
         b"$", b"*", b"function", b"class", b"async", b"_", b"."]
    ),
    max_size=16,
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(_JS_PIECES, st.integers(0, 80), st.integers(0, 80))
def test_callback_definitions_are_found_as_the_regular_expressions_find_them(
    pieces: list[bytes], a: int, b: int
) -> None:
    source = b"".join(pieces)
    start, end = sorted((min(a, len(source)), min(b, len(source))))
    expected = any(
        source.find(word, start, end) >= 0 and pattern.search(source, start, end) is not None
        for word, pattern in zip((b"function", b"class", b"=>"), _JS_DEFINES, strict=True)
    )
    assert callback_defines(source, start, end) == expected


_JAVA_NESTED = re.compile(rb"\)\s*\{|\b(?:class|record|enum|interface)\s+[A-Za-z_$]")
_JAVA_LOCAL = re.compile(rb"\b(?:class|record|enum|interface)\s+[A-Za-z_$]")
_JAVA_PIECES = st.lists(
    st.sampled_from(
        [b" ", b"\n", b")", b"{", b"(", b"class", b"record", b"enum", b"interface", b"a", b"1",
         b"_", b"$", b"."]
    ),
    max_size=12,
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(_JAVA_PIECES, st.integers(0, 60), st.integers(0, 60))
def test_local_classes_are_found_as_the_regular_expressions_find_them(
    pieces: list[bytes], a: int, b: int
) -> None:
    source = b"".join(pieces)
    start, end = sorted((min(a, len(source)), min(b, len(source))))
    assert java_declares_type(source, start, end, anonymous=True) == (
        _JAVA_NESTED.search(source, start, end) is not None
    )
    assert java_declares_type(source, start, end, anonymous=False) == (
        _JAVA_LOCAL.search(source, start, end) is not None
    )


_NAMING = re.compile(
    r"(?<![\w$])(?!(?:this|self|return|await|def|fn|func|function)(?![\w$]))[A-Za-z_$][\w$]*"
)
_TEXT = st.lists(
    st.sampled_from(
        ["a", "b", "ab", "$", "_", "1", "é", "٣", " ", ".", "(", ")", "this", "self", "func",
         "function", "fn", "x", "Ⅷ"]
    ),
    max_size=10,
).map("".join)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(_TEXT, st.sampled_from(["a", "ab", "$a", "é", "a.b", "x"]), st.sampled_from(["Q", "zz"]))
def test_whole_words_are_found_and_replaced_as_the_regular_expressions_do(
    text: str, word: str, new: str
) -> None:
    pattern = re.compile(rf"(?<![\w$]){re.escape(word)}(?![\w$])")
    where = _whole_words(text, word)
    assert bool(where) == bool(pattern.search(text))
    assert _replaced(text, word, where, "") == pattern.sub("", text)
    assert _replaced(text, word, where, new) == pattern.sub(new, text)
    assert _names_something(text) == bool(_NAMING.findall(text))


def test_match_predicates_work_though_re_is_loaded_late() -> None:
    """tree-sitter's compiled module takes `re.compile` when it loads (for `#match?`); it is
    given one that imports `re` at its first call (anchors.treesitter)."""
    code = (
        "import sys\n"
        "from anchors.treesitter import Parser, Query, QueryCursor\n"
        "from anchors.languages import grammar\n"
        "assert 're' not in sys.modules\n"
        "query = Query(grammar('python'), '((identifier) @x (#match? @x \"^fo+$\"))')\n"
        "tree = Parser(grammar('python')).parse(b'foo = bar\\nfooo = 1\\nfox = 2\\n')\n"
        "found = QueryCursor(query).captures(tree.root_node).get('x', [])\n"
        "print(sorted(n.text.decode() for n in found), 're' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["['foo',", "'fooo']", "True"]


# Sources with comments where a search for their openers can go wrong: openers in strings,
# regular expressions and other comments, doc comments (children in some grammars), nested
# block comments, a comment right at the start.
_COMMENTED = {
    "python": b'# top\ndef f(a):  # trailing\n    s = "# not one"  # one\n    """doc # no"""\n'
    b"    return a  # end\n#\n",
    "javascript": b'// top\nfunction f(a) { // x\n  const u = "http://x/*y*/"; /* b // c */\n'
    b"  const r = /\\/\\//g; return `//${a}/*`; /** doc */\n}\n/*\n*/\n",
    "typescript": b"/* a */ function f(a: number): number { // x\n  return a /* b */ + 1; }\n"
    b'const s = "/*"; // "x"\n',
    "go": b'// Package x\npackage x\n\nfunc F(a int) int { // x\n\ts := "//"; /* b */\n'
    b"\treturn a // c\n}\n",
    "rust": b"/// doc\n//! inner\nfn f(a: i32) -> i32 { /* a /* nested */ b */ // c\n"
    b'    let s = "/* no */"; a }\n/** block doc */\nfn g() {}\n',
    "java": b'/** doc */\nclass A { // x\n  int f() { String s = "//"; /* b */ return 1; } }\n',
    "c": b'/* a */ int f(int a) { // x\n  char *s = "/* no */"; return a; /* b */ }\n',
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_COMMENTED)), st.integers(0, 200), st.integers(0, 200))
def test_comments_found_by_their_openers_are_the_ones_a_query_captures(
    language: str, a: int, b: int
) -> None:
    from anchors.history_compare import _comment_marks
    from anchors.languages import SUPPORTED, grammar, parser_for
    from anchors.treesitter import Query, QueryCursor

    source = _COMMENTED[language]
    start, end = sorted((min(a, len(source)), min(b, len(source))))
    tree = parser_for(language).parse(source)
    kinds = " ".join(f"({t}) @c" for t in sorted(SUPPORTED[language].comment_types))
    cursor = QueryCursor(Query(grammar(language), kinds))
    cursor.set_byte_range(start, end)
    expected = sorted(
        (max(n.start_byte, start), min(n.end_byte, end), b"")
        for nodes in cursor.captures(tree.root_node).values()
        for n in nodes
        if n.end_byte > start and n.start_byte < end
    )
    got = _comment_marks(tree.root_node, source, start, end, language)
    assert sorted(got) == expected
    assert len(expected) >= (1 if (start, end) == (0, len(source)) else 0)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"\n")), st.lists(st.integers(0, 60)))
def test_edit_points_counted_in_one_pass_are_each_ones(source: bytes, offsets: list[int]) -> None:
    from anchors.history_compare import _point, _points

    ordered = sorted(min(o, len(source)) for o in offsets)
    assert _points(source, ordered) == [_point(source, o) for o in ordered]


def test_hunk_headers_are_read_as_git_writes_them() -> None:
    """`@@ -a[,b] +c[,d] @@`: a count left out is 1; what is not such a header is None."""
    from anchors.history_git import _hunk_header

    assert _hunk_header(b"@@ -1,2 +3,4 @@ def f():", 0) == ((1, 2, 3, 4), 15)
    assert _hunk_header(b"@@ -10 +11 @@\n", 0) == ((10, 1, 11, 1), 13)
    assert _hunk_header(b"x\n@@ -5,0 +6 @@\n", 2) == ((5, 0, 6, 1), 15)
    for broken in (b"@@ -a +1 @@", b"@@ -1,2 @@", b"@@ -1, +2 @@", b"@@ -1 +2"):
        assert _hunk_header(broken, 0) is None
