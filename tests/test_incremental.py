"""Incremental re-parsing of an edited buffer (UTF-16 positions) and re-resolution against it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from anchors.incremental import ParsedDocument, resolve_in_document
from anchors.languages import parser_for
from anchors.specs import resolve_spec
from anchors.symbols import extract_symbols
from tests.conftest import git

PY = '''import os


def greet(name):
    """Say hello 👋 to someone."""
    message = "héllo " + name
    return message.upper()


class Box:
    def put(self, item):
        self.items.append(item)
        return len(self.items)
'''

TS = """// 𝒳 marks the spot
export function area(w: number, h: number): number {
  const label = "área 🧮";
  return w * h;
}

export class Shape {
  scale(k: number): number { return k * 2; }
}
"""


def utf16_position(text: str, offset: int) -> tuple[int, int]:
    """LSP (line, UTF-16 column) of a character offset."""
    before = text[:offset]
    line = before.count("\n")
    column_text = before[before.rfind("\n") + 1 :]
    return line, len(column_text.encode("utf-16-le")) // 2


def lsp_edit(doc: ParsedDocument, start: int, end: int, new: str) -> str:
    """Apply an edit given in character offsets, the way a client would send it."""
    text = doc.text
    (l1, c1), (l2, c2) = utf16_position(text, start), utf16_position(text, end)
    doc.apply_change(l1, c1, l2, c2, new)
    return text[:start] + new + text[end:]


@pytest.mark.parametrize("language,text", [("python", PY), ("typescript", TS)])
def test_random_edits_match_a_fresh_parse(language: str, text: str) -> None:
    rng = random.Random(7)
    doc = ParsedDocument("x", text, language)
    expected = text
    pieces = ["x", "\n", "    ", "é", "👋", "def f():\n    pass\n", "", "(", "}", "# c\n", '"s"']
    for _ in range(150):
        a = rng.randrange(len(expected) + 1)
        b = min(len(expected), a + rng.randrange(6))
        expected = lsp_edit(doc, a, b, rng.choice(pieces))
        assert doc.text == expected
    fresh = parser_for(language).parse(expected.encode("utf-8"))
    assert doc.tree is not None and str(doc.tree.root_node) == str(fresh.root_node)
    names = [(s.name, s.start_line, s.end_line) for s in doc.symbols()]
    assert names == [
        (s.name, s.start_line, s.end_line) for s in extract_symbols(expected.encode(), language)
    ]


def test_edit_after_astral_characters_lands_in_the_right_place() -> None:
    doc = ParsedDocument("a.ts", TS, "typescript")
    line = TS.splitlines()[2]  # const label = "área 🧮";
    column = len(line[: line.index(";")].encode("utf-16-le")) // 2
    doc.apply_change(2, column, 2, column, " + w")
    assert doc.text.splitlines()[2] == 'const label = "área 🧮" + w;'.rjust(len(line) + 4)


def test_positions_past_the_end_are_clamped() -> None:
    doc = ParsedDocument("a.py", "x = 1\n", "python")
    doc.apply_change(5, 0, 9, 9, "y = 2\n")
    assert doc.text == "x = 1\ny = 2\n"


def test_unknown_language_and_huge_buffers_are_not_parsed() -> None:
    assert ParsedDocument("a.txt", "hello", None).symbols() == []
    big = ParsedDocument("big.py", "x = 1\n" * 200_000, "python")
    assert big.symbols() == [] and "size cap" in big.note


@pytest.fixture
def code(repo: Path) -> Path:
    (repo / "greet.py").write_text(PY)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "greet")
    return repo


@pytest.mark.parametrize(
    "edit,status",
    [
        (lambda t: t.replace("import os\n", "import os\nimport sys\n\n"), "fresh"),
        (
            lambda t: t.replace(
                "    return message.upper()", "    # shout\n    return message.upper()"
            ),
            "fresh",
        ),
        (lambda t: t.replace('"héllo "', '"hi "'), "changed"),
        (lambda t: t.replace("message", "msg"), "changed"),
        (lambda t: t.replace(".upper()", ".lower()"), "stale"),
        (lambda t: t.replace("def greet(name)", "def greet(name, loud)"), "stale"),
        (lambda t: t.replace("def greet", "def welcome"), "moved"),
        (lambda t: t.split("\n\n\ndef greet")[0] + "\n\n\nclass Box:\n    pass\n", "orphaned"),
    ],
)
def test_resolve_in_document(code: Path, edit, status: str) -> None:  # type: ignore[no-untyped-def]
    anchor = resolve_spec(code, "greet.py::greet", cwd=code).anchor
    doc = ParsedDocument("greet.py", PY, "python", root=code)
    assert resolve_in_document(doc, anchor).status == "fresh"
    doc.replace(edit(PY))
    verdict = resolve_in_document(doc, anchor)
    assert verdict.status == status, (verdict.changes, verdict.detail)


def test_without_a_root_fingerprints_still_decide(code: Path) -> None:
    anchor = resolve_spec(code, "greet.py::greet", cwd=code).anchor
    doc = ParsedDocument("greet.py", PY.replace(".upper()", ".lower()"), "python")
    assert resolve_in_document(doc, anchor).status == "stale"
    doc.replace(PY.replace("def greet", "def welcome"))
    verdict = resolve_in_document(doc, anchor)
    assert verdict.status == "moved" and verdict.location is not None
    assert verdict.location.symbol == "welcome"


def test_range_anchor_follows_buffer_edits(code: Path) -> None:
    anchor = resolve_spec(code, "greet.py#L11-L13", cwd=code).anchor
    doc = ParsedDocument("greet.py", PY, "python", root=code)
    doc.apply_change(0, 0, 0, 0, "# one\n# two\n")
    verdict = resolve_in_document(doc, anchor)
    assert verdict.status == "fresh" and verdict.location is not None
    assert verdict.location.span == [13, 15]
    doc.replace(PY.replace("return len(self.items)", "return 0"))
    assert resolve_in_document(doc, anchor).status == "stale"
