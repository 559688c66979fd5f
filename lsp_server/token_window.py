"""Token streams over one symbol at a time, for buffers that change on every keystroke.

The library's `TokenStream` tokenises a whole file on the first fingerprint asked of it: right for
indexing a file once, too slow to repeat after every edit of a 5,000-line buffer. `WindowedStream`
answers the same questions (`tokens`, `typed_tokens` over a byte range) by walking only the part
of the tree that overlaps the range, and caches each range's answer. The tokens are the same ones:
leaves outside comments, zero-width nodes dropped, block markers for languages that have them.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from anchors.fingerprint import CLOSE, OPEN, TokenStream, _block_query
from anchors.incremental import ParsedDocument
from anchors.languages import SUPPORTED

if TYPE_CHECKING:
    import tree_sitter

    from anchors.languages import LanguageSpec
    from anchors.symbols import Symbol


class WindowedStream(TokenStream):
    """A TokenStream that tokenises only the byte ranges it is asked about."""

    def __init__(self, tree: tree_sitter.Tree, source: bytes, spec: LanguageSpec) -> None:
        super().__init__(tree, source, spec)
        self._tree_ref = tree
        self._source_ref = source
        self._spec_ref = spec
        self._windows: dict[tuple[int, int], list[tuple[int, str, str]]] = {}

    def _window(self, start: int, end: int) -> list[tuple[int, str, str]]:
        key = (start, end)
        cached = self._windows.get(key)
        if cached is not None:
            return cached
        source = self._source_ref
        comments = self._spec_ref.comment_types
        leaves: list[tuple[int, str, str]] = []
        cursor = self._tree_ref.walk()
        while True:
            node = cursor.node
            descend = (
                node is not None
                and node.type not in comments
                and node.end_byte > start
                and node.start_byte < end
            )
            if descend and cursor.goto_first_child():
                continue
            if (
                descend
                and node is not None
                and node.end_byte > node.start_byte
                and node.start_byte >= start
            ):
                text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
                leaves.append((4 * node.start_byte + 1, text, node.type))
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    break
            else:
                continue
            break
        entries = leaves
        if self._spec_ref.block_types:
            from tree_sitter import QueryCursor

            qc = QueryCursor(_block_query(self._spec_ref.name))
            qc.set_byte_range(start, end)
            markers: list[tuple[int, str, str]] = []
            for nodes in qc.captures(self._tree_ref.root_node).values():
                for n in nodes:
                    markers.append((4 * n.start_byte, OPEN, "block"))
                    markers.append((4 * n.end_byte - 1, CLOSE, "block"))
            entries = sorted(leaves + markers)
        lo, hi = 4 * start, 4 * end
        keys = [k for k, _, _ in entries]
        window = entries[bisect_left(keys, lo) : bisect_left(keys, hi)]
        self._windows[key] = window
        return window

    def tokens(self, start_byte: int, end_byte: int) -> list[str]:
        return [t for _, t, _ in self._window(start_byte, end_byte)]

    def typed_tokens(self, start_byte: int, end_byte: int) -> list[tuple[str, str]]:
        return [(t, ty) for _, t, ty in self._window(start_byte, end_byte)]


def windowed(
    symbols: list[Symbol], tree: tree_sitter.Tree, source: bytes, spec: LanguageSpec
) -> list[Symbol]:
    """The same symbols, fingerprinting through one shared WindowedStream."""
    stream = WindowedStream(tree, source, spec)
    return [s.with_stream(stream) for s in symbols]


class WindowedDocument(ParsedDocument):
    """The library's incremental document, its symbols fingerprinting through a WindowedStream."""

    def symbols(self) -> list[Symbol]:
        if self._symbols is None:
            base = super().symbols()
            if base and self.tree is not None and self.grammar is not None:
                base = windowed(base, self.tree, self.source, SUPPORTED[self.grammar])
            self._symbols = base
        return self._symbols
