"""Fingerprints: whitespace and comments never count; docstrings, renames and structure do."""

from __future__ import annotations

import pytest

from anchors.symbols import Symbol, check_source, extract_symbols, load_source, read_source


def sym(source: str, language: str, name: str) -> Symbol:
    found = {s.name: s for s in extract_symbols(source.encode(), language)}
    return found[name]


PY = '''def total(items):
    """Sum the doubled items."""
    acc = 0
    for item in items:
        if item > 0:
            acc += item * 2
    return acc
'''


def test_whitespace_and_comments_do_not_count() -> None:
    noisy = '''def total( items ):   # the total
    """Sum the doubled items."""

    acc  =  0      # start
    for item in items :
        if item>0:
            acc += item*2
    return acc
'''
    a, b = sym(PY, "python", "total"), sym(noisy, "python", "total")
    assert (a.signature_fp, a.body_fp) == (b.signature_fp, b.body_fp)


def test_reindenting_python_is_whitespace_but_dedenting_is_not() -> None:
    reindented = PY.replace("    ", "  ")
    dedented = PY.replace("            acc += item * 2", "        acc += item * 2")
    base = sym(PY, "python", "total")
    assert sym(reindented, "python", "total").body_fp == base.body_fp
    assert sym(dedented, "python", "total").body_fp != base.body_fp


def test_docstrings_count() -> None:
    changed = PY.replace("Sum the doubled items.", "Sum the tripled items.")
    assert sym(changed, "python", "total").body_fp != sym(PY, "python", "total").body_fp


def test_rename_changes_signature_not_body_even_when_recursive() -> None:
    rec = "def walk(node):\n    for c in node.children:\n        walk(c)\n    return node\n"
    renamed = rec.replace("walk", "visit")
    a, b = sym(rec, "python", "walk"), sym(renamed, "python", "visit")
    assert a.signature_fp != b.signature_fp
    assert a.body_fp == b.body_fp
    assert "<self>" in a.body_norm


@pytest.mark.parametrize(
    "language,before,after,name",
    [
        ("javascript", "function f(a) {\n  return a + 1; // one\n}\n", "function f(a){return a+1;}\n", "f"),
        ("typescript", "const f = (a: number) => {\n  /* c */ return a\n}\n", "const f = (a: number) => { return a }\n", "f"),
        ("go", "package m\nfunc F(a int) int {\n\t// c\n\treturn a\n}\n", "package m\nfunc F(a int) int { return a }\n", "F"),
        ("rust", "fn f(a: i32) -> i32 {\n    // c\n    a\n}\n", "fn f(a: i32) -> i32 { /* c */ a }\n", "f"),
        ("java", "class A {\n  int f(int a) {\n    // c\n    return a;\n  }\n}\n", "class A { int f(int a) { return a; } }\n", "A.f"),
        ("c", "int f(int a) {\n  /* c */\n  return a;\n}\n", "int f(int a) { return a; }\n", "f"),
        ("cpp", "int f(int a) {\n  // c\n  return a;\n}\n", "int  f(int a){return a;}\n", "f"),
    ],
)  # fmt: skip
def test_cosmetic_edits_keep_fingerprints_in_every_language(
    language: str, before: str, after: str, name: str
) -> None:
    a, b = sym(before, language, name), sym(after, language, name)
    assert (a.signature_fp, a.body_fp) == (b.signature_fp, b.body_fp)


def test_strings_keep_their_inner_whitespace() -> None:
    a = sym('function f() { return "a b" }\n', "javascript", "f")
    b = sym('function f() { return "a  b" }\n', "javascript", "f")
    assert a.body_fp != b.body_fp


def test_read_source_refuses_binary_huge_and_repairs_non_utf8(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "bin.py").write_bytes(b"\x00\x01\x02def f(): pass\n")
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 200_000)
    (tmp_path / "latin.py").write_bytes("def f():\n    return 'caf\xe9'\n".encode("latin-1"))
    assert read_source(tmp_path / "bin.py") is None
    assert "binary" in load_source(tmp_path / "bin.py")[1]
    assert read_source(tmp_path / "big.py") is None
    assert "size cap" in load_source(tmp_path / "big.py")[1]
    assert read_source(tmp_path / "missing.py") is None
    assert read_source(tmp_path) is None
    data, note = load_source(tmp_path / "latin.py")
    assert data is not None and "UTF-8" in note
    assert "\ufffd" in data.decode("utf-8")
    assert [s.name for s in extract_symbols(data, "python")] == ["f"]
    assert check_source(b"ok = 1\n") == (b"ok = 1\n", "")
