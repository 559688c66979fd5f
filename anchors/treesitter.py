"""tree-sitter's classes, from its compiled module.

The `tree_sitter` package's `__init__` imports `typing` for one Protocol (~2 ms, most of the
package's import): the code on the way of `tether history`, which races `git log -L`, takes the
classes from here. They are the very objects `import tree_sitter` gives (the compiled module is
registered under its own name, and the package reuses it when imported later).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree
else:
    import sys

    from anchors.languages import _binding

    def _load() -> object:
        """The compiled module, loaded with a stand-in for `re` (see `_LazyRe`)."""
        if "re" in sys.modules or "tree_sitter._binding" in sys.modules:
            return _binding("tree_sitter")
        sys.modules["re"] = _LazyRe("re")  # type: ignore[assignment]
        try:
            return _binding("tree_sitter")
        finally:
            if isinstance(sys.modules.get("re"), _LazyRe):
                del sys.modules["re"]

    class _LazyRe(type(sys)):  # a module
        """What the compiled module's start takes from `re`: its `compile`, to run queries'
        `#match?` predicates later, if ever. Importing `re` costs ~2 ms of `tether history`
        (docs/benchmarks.md); this `compile` imports it at its first call. Any other name asked
        of it is the real module's."""

        def compile(self, pattern: object, flags: int = 0) -> object:
            return self._real().compile(pattern, flags)

        def __getattr__(self, name: str) -> object:
            return getattr(self._real(), name)

        def _real(self) -> object:
            """The real `re` (this stand-in leaves `sys.modules` first, should it be asked while
            still there)."""
            if sys.modules.get("re") is self:
                del sys.modules["re"]
            import re

            return re

    _module = _load()
    if _module is None:  # laid out otherwise: the package as usual
        import tree_sitter as _module

    Language = _module.Language
    Node = _module.Node
    Parser = _module.Parser
    Query = _module.Query
    QueryCursor = _module.QueryCursor
    Tree = _module.Tree

__all__ = ["Language", "Node", "Parser", "Query", "QueryCursor", "Tree"]
