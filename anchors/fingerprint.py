"""Normalised fingerprints of code, taken from tree-sitter tokens.

A fingerprint is a hash of the token text of a region: the leaf nodes of the syntax tree with
comment nodes left out, joined by newlines. Whitespace between tokens is therefore never part of
it, and neither are comments; docstrings are string tokens, so they count. In Python, where
indentation is meaning that no token shows, each `block` is bracketed by `{` and `}` markers, so
that dedenting a statement out of an `if` changes the fingerprint while re-indenting does not.

Tokens are taken once per file, on the first fingerprint asked of it: listing a file's symbols
does not pay for them.
"""

from __future__ import annotations

from anchors.lazy import cache

TYPE_CHECKING = False  # `typing` is not imported at run time: see anchors.symbols.Symbol
if TYPE_CHECKING:
    from collections.abc import Sequence

    import tree_sitter

    from anchors.languages import LanguageSpec

# Stands for the symbol's own name inside its body, so that renaming a recursive function (or a
# class whose methods name it) leaves the body fingerprint unchanged.
try:  # what hashlib.blake2b is, without hashlib loading OpenSSL first (~2 ms of start-up)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - another Python implementation
    from hashlib import blake2b as _blake2b

SELF = "<self>"
OPEN, CLOSE = "{", "}"


def digest(text: str) -> str:
    """The short hash used for every fingerprint (24 hex digits of BLAKE2b)."""
    return _blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def normalise_tokens(tokens: Sequence[str], own_name: str = "") -> str:
    """One token per line; newlines inside a token (multi-line strings) are escaped.

    With `own_name`, tokens equal to it become `<self>`.
    """
    if own_name:
        tokens = [SELF if t == own_name else t for t in tokens]
    return "\n".join(t.replace("\n", "\\n") if "\n" in t else t for t in tokens)


def normalise_lines(text: str) -> str:
    """Text with whitespace collapsed, for anchors on files that have no grammar: each
    non-blank line stripped and inner runs of whitespace made single spaces."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def similarity(a: str, b: str) -> float:
    """How alike two normalised token texts are, 0..1: difflib's `SequenceMatcher(None, ta, tb,
    autojunk=False)` over their tokens, its `ratio()`, or its `quick_ratio()` when that bound is
    under 0.5 (the callers' thresholds are all at or above it).

    The same computation as difflib's (`tests/test_fingerprint.py` compares them), written here
    because importing difflib brings `re` (~2 ms of `tether history`, which races `git log -L`
    and compares versions in most walks; docs/benchmarks.md)."""
    if a == b:
        return 1.0
    ta, tb = a.split("\n"), b.split("\n")
    total = len(ta) + len(tb)
    if 2 * min(len(ta), len(tb)) < total * 0.5:  # real_quick_ratio
        return _quick_ratio(ta, tb, total)
    quick = _quick_ratio(ta, tb, total)
    if quick < 0.5:
        return quick
    return 2.0 * _matched(ta, tb) / total


def _quick_ratio(ta: list[str], tb: list[str], total: int) -> float:
    """difflib's `quick_ratio`: the tokens the two have in common, counted with repeats."""
    counts: dict[str, int] = {}
    for token in tb:
        counts[token] = counts.get(token, 0) + 1
    matches = 0
    for token in ta:
        left = counts.get(token, 0)
        if left > 0:
            matches += 1
            counts[token] = left - 1
    return 2.0 * matches / total if total else 1.0


def _matched(ta: list[str], tb: list[str]) -> int:
    """The number of tokens in difflib's matching blocks of `ta` and `tb` (no junk): the longest
    common run, then the same on each side of it, recursively."""
    where: dict[str, list[int]] = {}
    for j, token in enumerate(tb):
        where.setdefault(token, []).append(j)
    matched = 0
    queue = [(0, len(ta), 0, len(tb))]
    nothing: list[int] = []
    while queue:
        alo, ahi, blo, bhi = queue.pop()
        # difflib's find_longest_match: the longest run, the earliest in `ta`, then in `tb`.
        besti, bestj, size = alo, blo, 0
        runs: dict[int, int] = {}
        for i in range(alo, ahi):
            longer: dict[int, int] = {}
            for j in where.get(ta[i], nothing):
                if j < blo:
                    continue
                if j >= bhi:
                    break
                k = longer[j] = runs.get(j - 1, 0) + 1
                if k > size:
                    besti, bestj, size = i - k + 1, j - k + 1, k
            runs = longer
        if size:
            matched += size
            if alo < besti and blo < bestj:
                queue.append((alo, besti, blo, bestj))
            if besti + size < ahi and bestj + size < bhi:
                queue.append((besti + size, ahi, bestj + size, bhi))
    return matched


@cache
def _block_query(language: str) -> tree_sitter.Query:
    """The query that finds a language's blocks (compiled once: compiling costs a millisecond)."""
    from anchors.languages import SUPPORTED, grammar
    from anchors.treesitter import Query

    pattern = " ".join(f"({t}) @b" for t in sorted(SUPPORTED[language].block_types))
    return Query(grammar(language), pattern)


class TokenStream:
    """The tokens of one parsed file, with their byte positions, built on first use.

    Keys order tokens and block markers: a token starting at byte b has key 4b+1, a block
    opening at b has 4b (before its first token), a block closing at e has 4e-1 (after its last
    token, before whatever follows). The tokens of a byte range [s, e) are then those with keys
    in [4s, 4e).
    """

    def __init__(self, tree: tree_sitter.Tree, source: bytes, spec: LanguageSpec) -> None:
        self._tree = tree
        self._source = source
        self._spec = spec
        self._keys: list[int] | None = None
        self._texts: list[str] = []
        self._types: list[str] = []

    def _build(self) -> None:
        source = self._source
        comments = self._spec.comment_types
        leaves: list[tuple[int, str, str]] = []
        cursor = self._tree.walk()
        # An explicit cursor walk: recursion would hit Python's limit on deep expressions.
        # Comments are skipped whole: in some grammars (Rust) they have child tokens.
        while True:
            node = cursor.node
            if node is not None and node.type not in comments:
                if cursor.goto_first_child():
                    continue
                start, end = node.start_byte, node.end_byte
                if end > start:  # zero-width MISSING nodes are the parser's guesses, not code
                    text = source[start:end].decode("utf-8", "replace")
                    leaves.append((4 * start + 1, text, node.type))
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    break
            else:
                continue
            break
        entries: list[tuple[int, str, str]] = leaves
        if self._spec.block_types:
            from heapq import merge  # here: not on `tether history`'s start-up (anchors.lazy)

            entries = list(merge(leaves, self._block_markers()))
        self._keys = [k for k, _, _ in entries]
        self._texts = [t for _, t, _ in entries]
        self._types = [t for _, _, t in entries]

    def _block_markers(self) -> list[tuple[int, str, str]]:
        from anchors.treesitter import QueryCursor

        query = _block_query(self._spec.name)
        markers: list[tuple[int, str, str]] = []
        for nodes in QueryCursor(query).captures(self._tree.root_node).values():
            for node in nodes:
                markers.append((4 * node.start_byte, OPEN, "block"))
                markers.append((4 * node.end_byte - 1, CLOSE, "block"))
        markers.sort()
        return markers

    @property
    def source(self) -> bytes:
        return self._source

    def _bounds(self, start_byte: int, end_byte: int) -> tuple[int, int]:
        if self._keys is None:
            self._build()
        keys = self._keys
        assert keys is not None
        from bisect import bisect_left

        return bisect_left(keys, 4 * start_byte), bisect_left(keys, 4 * end_byte)

    def tokens(self, start_byte: int, end_byte: int) -> list[str]:
        """The tokens (and block markers) inside [start_byte, end_byte)."""
        lo, hi = self._bounds(start_byte, end_byte)
        return self._texts[lo:hi]

    def typed_tokens(self, start_byte: int, end_byte: int) -> list[tuple[str, str]]:
        """The tokens inside [start_byte, end_byte) with their node types."""
        lo, hi = self._bounds(start_byte, end_byte)
        return list(zip(self._texts[lo:hi], self._types[lo:hi], strict=True))


# -- cosmetic changes -------------------------------------------------------------------------

_BINDING_AFTER = frozenset({"=", ":=", "in", "of"})
_BINDING_BEFORE = frozenset({"let", "var", "const", "mut", "as", "for", "auto"})


def _is_literal_text(node_type: str) -> bool:
    return "string" in node_type or "char" in node_type or node_type == "escape_sequence"


def _bound_names(tokens: Sequence[tuple[str, str]]) -> set[str]:
    """Identifiers that the code binds itself (locals): assigned, declared or iterated over."""
    bound: set[str] = set()
    for i, (text, node_type) in enumerate(tokens):
        if node_type != "identifier":
            continue
        after = tokens[i + 1][0] if i + 1 < len(tokens) else ""
        before = tokens[i - 1][0] if i else ""
        if after in _BINDING_AFTER or before in _BINDING_BEFORE:
            bound.add(text)
    return bound


def is_cosmetic(old: Sequence[tuple[str, str]], new: Sequence[tuple[str, str]]) -> bool:
    """Whether two bodies differ only in ways that keep their meaning.

    The rule: the same tokens in the same order, except (a) the text of string and character
    literals (messages, docstrings, quote style) and (b) local names renamed consistently, one to
    one, where each renamed name is bound inside the body (assigned, declared or a loop variable)
    both before and after. Anything else, a number, an operator, a call, a field, is not cosmetic.
    """
    if len(old) != len(new):
        return False
    mapping: dict[str, str] = {}
    reverse: dict[str, str] = {}
    for (old_text, old_type), (new_text, new_type) in zip(old, new, strict=True):
        if old_type == "identifier" and new_type == "identifier":
            if mapping.setdefault(old_text, new_text) != new_text:
                return False
            if reverse.setdefault(new_text, old_text) != old_text:
                return False
            continue
        if old_text == new_text and old_type == new_type:
            continue
        if _is_literal_text(old_type) and _is_literal_text(new_type):
            continue
        return False
    renamed = {o: n for o, n in mapping.items() if o != n}
    if not renamed:
        return True
    return set(renamed) <= _bound_names(old) and set(renamed.values()) <= _bound_names(new)
