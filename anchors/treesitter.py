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
    from anchors.languages import _binding

    _module = _binding("tree_sitter")
    if _module is None:  # laid out otherwise: the package as usual
        import tree_sitter as _module

    Language = _module.Language
    Node = _module.Node
    Parser = _module.Parser
    Query = _module.Query
    QueryCursor = _module.QueryCursor
    Tree = _module.Tree

__all__ = ["Language", "Node", "Parser", "Query", "QueryCursor", "Tree"]
