"""bench/anchors/review.py, the independent lookup the hand-made truths are checked with."""

from __future__ import annotations

from bench.anchors.review import find

OVERLOADED = b'''from typing import overload
import typing


@overload
def side_effect(func, iterable) -> int: ...


@typing.overload
def side_effect(func, iterable, chunk_size: int) -> int: ...


def side_effect(func, iterable, chunk_size=None):
    """Call func on each item."""
    for item in iterable:
        func(item)
    return 0
'''


def test_a_python_function_is_found_past_its_overload_stubs() -> None:
    """more-itertools' `side_effect` has `@overload` stubs above it; the lookup took the first
    stub for the function, and a truth made with it had the stubs' changes, not the function's."""
    text = find(OVERLOADED, "python", "side_effect")
    assert text is not None
    assert "for item in iterable" in text
    assert "..." not in text


def test_without_overloads_the_first_definition_is_still_taken() -> None:
    source = b"if X:\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n"
    text = find(source, "python", "f")
    assert text is not None and "return 1" in text


def test_a_go_method_of_a_generic_type_is_named_by_its_type() -> None:
    """golang-lru's `func (c *Cache[K, V]) Add(...)`: the lookup split the receiver on blanks
    before taking its type parameters off, and named it `V].Add`."""
    source = (
        b"package lru\n\n"
        b"func (c *Cache[K, V]) Add(key K, value V) (evicted bool) {\n\treturn c.lru.Add(key, value)\n}\n\n"
        b"func (c Plain) Len() int {\n\treturn 0\n}\n"
    )
    assert "c.lru.Add" in (find(source, "go", "Cache.Add") or "")
    assert "return 0" in (find(source, "go", "Plain.Len") or "")


def test_module_and_typescript_module_files_are_read() -> None:
    """markdown-it's sources were `.mjs` for a while, postcss's `.es6`: the lookup (and the
    sweep, which takes the language from it) had no language for them."""
    from bench.anchors.review import _EXT

    source = b"export function escapeHtml (str) {\n  return str.replace(/&/g, '&amp;')\n}\n"
    for suffix in (".mjs", ".cjs", ".es6", ".mts", ".cts"):
        assert "&amp;" in (find(source, _EXT[suffix], "escapeHtml") or "")
