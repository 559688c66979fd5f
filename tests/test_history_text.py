"""Finding a symbol unchanged in an older version of its file by text alone (history_text):
each case below is one the shortcut must refuse (the diff then decides), or accept with the
right lines."""

from __future__ import annotations

from anchors.history_text import find_unchanged, line_of, spot_of


def _find(
    new: str, old: str, start: int, end: int, headers: tuple[tuple[int, int], ...] = ()
) -> int | None:
    """The line of the symbol (lines start..end of `new`, under `headers`) in `old`, or None."""
    spot = spot_of(new.encode(), "new", start, end, headers)
    assert spot is not None
    there = find_unchanged(new.encode(), spot, old.encode(), "old", "python")
    return None if there is None else line_of(old.encode(), there[1])


def test_found_below_lines_added_above_it() -> None:
    new = "import os\n\n\ndef f():\n    return 1\n"
    old = "import os\nimport sys\n\nX = 1\n\n\ndef f():\n    return 1\n"
    assert _find(new, old, 4, 5) == 7


def test_a_decorator_removed_above_comments_is_a_change() -> None:
    new = "x = 1\n# keep it\n\ndef f():\n    return 1\n"
    old = "x = 1\n@cache\n# keep it\n\ndef f():\n    return 1\n"
    assert _find(new, old, 4, 5) is None


def test_body_lines_removed_after_a_blank_line_are_a_change() -> None:
    new = "def f():\n    a = 1\n\nx = 1\n"
    old = "def f():\n    a = 1\n\n    return a\n\nx = 1\n"
    assert _find(new, old, 1, 2) is None


def test_text_found_twice_is_not_taken() -> None:
    body = "def f():\n    return 1\n"
    new = f"x = 1\n{body}"
    old = f"x = 1\n{body}\nx = 1\n{body}"
    assert _find(new, old, 2, 3) is None


def test_an_attribute_above_counts_unless_it_is_the_same_as_now() -> None:
    new = b"#[inline]\nfn f() {}\n"
    spot = spot_of(new, "new", 2, 2, ())
    assert spot is not None
    kept = b"struct S;\n\n#[inline]\nfn f() {}\n"
    there = find_unchanged(new, spot, kept, "old", "rust")
    assert there is not None and line_of(kept, there[1]) == 4
    assert find_unchanged(new, spot, b"#[test]\nfn f() {}\n", "old", "rust") is None


def test_a_method_under_another_class_is_not_the_same_symbol() -> None:
    # B.f now; before, the same lines were A.f, with a `class B:` further up the file.
    new = "class B:\n    y = 2\n\n    def f(self):\n        return 1\n"
    old = "class B:\n    pass\n\n\nclass A:\n    y = 2\n\n    def f(self):\n        return 1\n"
    assert _find(new, old, 4, 5, headers=((1, 1),)) is None


def test_a_block_between_class_and_method_is_not_the_same_nesting() -> None:
    new = "class A:\n        x = 1\n\n        def f(self):\n            return 1\n"
    old = (
        "class A:\n    class Inner:\n        x = 1\n\n        def f(self):\n            return 1\n"
    )
    assert _find(new, old, 4, 5, headers=((1, 1),)) is None


def test_a_renamed_class_is_a_change() -> None:
    new = "class Client:\n    x = 1\n\n    def send(self):\n        return 1\n"
    old = "class Session:\n    x = 1\n\n    def send(self):\n        return 1\n"
    assert _find(new, old, 4, 5, headers=((1, 1),)) is None


def test_a_method_found_under_its_class_with_other_methods_changed() -> None:
    new = "class A:\n    def g(self):\n        return 2\n\n    def f(self):\n        return 1\n"
    old = (
        "class A:\n    def g(self):\n        a = 3\n        return a\n\n"
        "    def f(self):\n        return 1\n"
    )
    assert _find(new, old, 5, 6, headers=((1, 1),)) == 6


def test_braces_must_open_as_before() -> None:
    # The method's lines and the class line are both there, but a brace closes the class in
    # between (badly indented code, so the indentation alone does not show it).
    new = "class A {\n    int x;\n    void f() {\n        run();\n    }\n}\n"
    old = "class A {\n    int x;\n    }\n    void f() {\n        run();\n    }\n"
    spot = spot_of(new.encode(), "new", 3, 5, ((1, 1),))
    assert spot is not None
    assert find_unchanged(new.encode(), spot, old.encode(), "old", "java") is None
    same = "class A {\n    int y;\n    int x;\n    void f() {\n        run();\n    }\n}\n"
    there = find_unchanged(new.encode(), spot, same.encode(), "old", "java")
    assert there is not None and line_of(same.encode(), there[1]) == 4
