"""The languages Tether anchors to, and the tree-sitter parser for each.

Grammars come from the individual `tree-sitter-<lang>` wheels, which carry the compiled grammar:
nothing is downloaded or compiled at run time. A grammar module is imported only when a file of
that language is first parsed, so start-up pays for none of them.
"""

from __future__ import annotations

import os
import sys

from anchors.lazy import cache

TYPE_CHECKING = False  # `typing` is not imported at run time: see anchors.symbols.Symbol
if TYPE_CHECKING:
    from typing import Any

    import tree_sitter


class LanguageSpec:
    """How to load one grammar and which of its node types matter for fingerprints."""

    __slots__ = ("name", "extensions", "module", "function", "comment_types", "block_types")

    def __init__(
        self,
        name: str,
        extensions: tuple[str, ...],
        module: str,  # import name of the grammar wheel
        function: str,  # attribute of that module returning the language pointer
        comment_types: frozenset[str] = frozenset({"comment"}),
        # Nodes whose nesting carries meaning that no token shows (Python's indentation): the
        # fingerprint brackets them with markers so that dedenting a statement out of an `if`
        # counts.
        block_types: frozenset[str] = frozenset(),
    ) -> None:
        self.name = name
        self.extensions = extensions
        self.module = module
        self.function = function
        self.comment_types = comment_types
        self.block_types = block_types

    def __repr__(self) -> str:
        return f"LanguageSpec({self.name!r})"


_C_COMMENTS = frozenset({"comment"})
_RUST_COMMENTS = frozenset({"line_comment", "block_comment"})
_JAVA_COMMENTS = frozenset({"line_comment", "block_comment"})

SUPPORTED: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            "python",
            (".py", ".pyi", ".pyw"),
            "tree_sitter_python",
            "language",
            block_types=frozenset({"block"}),
        ),
        LanguageSpec(
            "javascript",
            (".js", ".mjs", ".cjs", ".jsx", ".es6"),
            "tree_sitter_javascript",
            "language",
        ),
        LanguageSpec(
            "typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript"
        ),
        LanguageSpec("tsx", (".tsx",), "tree_sitter_typescript", "language_tsx"),
        LanguageSpec("go", (".go",), "tree_sitter_go", "language"),
        LanguageSpec("rust", (".rs",), "tree_sitter_rust", "language", _RUST_COMMENTS),
        LanguageSpec("java", (".java",), "tree_sitter_java", "language", _JAVA_COMMENTS),
        LanguageSpec("c", (".c",), "tree_sitter_c", "language", _C_COMMENTS),
        # `.h` is read as C++: C++ projects mostly name their headers `.h`, and the C++ grammar
        # parses C headers as well as the C grammar does (it errs only on C that uses a C++
        # keyword such as `new` or `class` as a name), while the C grammar fails on every class,
        # namespace and template (measured on real headers: docs/anchors.md).
        LanguageSpec(
            "cpp",
            (".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tpp"),
            "tree_sitter_cpp",
            "language",
            _C_COMMENTS,
        ),
    )
}

_BY_EXTENSION: dict[str, str] = {
    ext: spec.name for spec in SUPPORTED.values() for ext in spec.extensions
}


def language_for_path(path: str | os.PathLike[str]) -> str | None:
    """The language of a file by its extension, or None when Tether has no grammar for it."""
    _, ext = os.path.splitext(os.fspath(path))
    return _BY_EXTENSION.get(ext.lower())


@cache
def grammar(language: str) -> tree_sitter.Language:
    """The tree-sitter Language object for `language` (imported on first use, then cached)."""
    from anchors.treesitter import Language

    spec = SUPPORTED.get(language)
    if spec is None:
        raise KeyError(f"no grammar for language {language!r}")
    module = _binding(spec.module)
    if module is None:
        import importlib

        module = importlib.import_module(spec.module)
    return Language(getattr(module, spec.function)())


def _binding(package: str) -> Any:
    """The grammar package's compiled `_binding` module, loaded without running the package's
    `__init__`, which imports importlib.resources for query files the index never reads (~4-6 ms
    of every command that parses). None when the package is laid out otherwise."""
    try:  # what importlib.machinery holds, without importing the importlib package (~0.7 ms)
        from _frozen_importlib import ModuleSpec
        from _frozen_importlib_external import (
            EXTENSION_SUFFIXES,
            ExtensionFileLoader,
            PathFinder,
        )
    except ImportError:  # pragma: no cover - another Python implementation
        from importlib.machinery import (
            EXTENSION_SUFFIXES,
            ExtensionFileLoader,
            ModuleSpec,
            PathFinder,
        )

    name = f"{package}._binding"
    if name in sys.modules:
        return sys.modules[name]
    found = PathFinder.find_spec(package)
    for directory in (found.submodule_search_locations or []) if found else []:
        for suffix in EXTENSION_SUFFIXES:
            path = os.path.join(directory, "_binding" + suffix)
            if os.path.exists(path):
                loader = ExtensionFileLoader(name, path)
                module = loader.create_module(ModuleSpec(name, loader, origin=path))
                loader.exec_module(module)
                sys.modules[name] = module
                return module
    return None


@cache
def parser_for(language: str) -> tree_sitter.Parser:
    """A parser for `language`, cached per process.

    Parsers are not thread-safe: code that parses from several threads must make its own with
    `tree_sitter.Parser(grammar(language))`.
    """
    from anchors.treesitter import Parser

    return Parser(grammar(language))
