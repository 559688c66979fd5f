"""Comparing versions of a symbol for `tether history`: parsed blobs, normalised signature and
body text (whitespace and comments do not count), similarity for renames and moves."""

from __future__ import annotations

import os
from io import BytesIO
from itertools import accumulate

from anchors.keyed import Keyed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node, Query, Tree

    from anchors.symbols import Symbol

# --------------------------------------------------------------------------- comparing versions


class Version:
    """One blob of a source file: its bytes, syntax tree and symbols, parsed on first use.

    Tokens are taken per symbol, from that symbol's subtree only: the history of one function
    in a long file should not pay for tokenising the whole file at every version. (Asked of the
    index: `Symbol` token lists that do not build the whole file's token stream; until then this
    small walk does the same normalisation as `anchors.fingerprint`: comment nodes left out,
    Python blocks bracketed.)
    """

    def __init__(
        self,
        blob: str,
        source: bytes,
        language: str,
        base: Version | None = None,
        snippet: bool = False,
        edits: list[tuple[int, int, bytes]] | None = None,
        depth: int | None = None,
    ) -> None:
        self.blob = blob
        self.language = language
        # The grammar the blob was read with: the language's, or TypeScript's for JavaScript
        # with Flow's type annotations (see `symbols`).
        self.grammar = language
        self.snippet = snippet  # a symbol's lines under its enclosing declarations, not a file
        self.depth = depth  # a snippet's: definitions nested deeper are not looked for
        # How `base`'s source became this one, when known: (start, end, text), in order.
        self._edits = edits
        self._edits_of: Callable[[], list[tuple[int, int, bytes]] | None] | None = None
        self._source = source
        self._base = base
        self._tree: Tree | None = None
        self._symbols: list[Symbol] | None = None
        self._lines: list[bytes] | None = None
        self._norms: dict[tuple[int, int, str, str], str] = {}
        # Called now and then while the source is parsed whole (see `read_while_parsing`).
        self.while_parsing: Callable[[], None] | None = None
        self._flats: dict[tuple[int, int, str, bool, str], str] = {}
        # A version `Walker.fast_step` made without parsing: (the newer version it was made
        # from, the symbol's first line there, its first line here, the swapped lines as
        # (first, end, newer first, newer end), counted from the symbol's first line).
        self.fast: tuple[Version, int, int, list[tuple[int, int, int, int]]] | None = None
        self._offsets: list[int] | None = None

    @property
    def source(self) -> bytes:
        return self._source

    @property
    def generated(self) -> bool:
        """Whether the file says, in its first lines, that a tool wrote it (see `generated`)."""
        return generated(self._source)

    @property
    def lines(self) -> list[bytes]:
        """The source's lines, each with its newline (split on newlines only, as git does)."""
        if self._lines is None:
            if self.fast is None:  # (fast_step's are valid UTF-8)
                self.symbols  # noqa: B018 - the parsed source may differ (invalid UTF-8 repaired)
            self._lines = BytesIO(self._source).readlines()  # (4x a list of `part + b"\n"`)
        return self._lines

    def settle(self) -> None:
        """Parse a version `Walker.fast_step` made: from the parsed version the chain of such
        versions goes back to, told the lines that differ as edits; failing that (a chain
        whose lines cannot be mapped), each version of the chain from the one before it,
        oldest last (not recursively: the walk may make hundreds in a row)."""
        composed = _composed(self)
        if composed is not None:
            self._base, self._edits, self._edits_of = composed[0], composed[1], None
            self.symbols  # noqa: B018 - parses
            return
        chain: list[Version] = []
        at: Version | None = self
        while at is not None and at._tree is None and at.fast is not None:
            chain.append(at)
            at = at._base
        for version in reversed(chain):
            version.symbols  # noqa: B018 - parses

    def line_offsets(self) -> list[int]:
        """The byte where each line starts (index 0: line 1), and the source's length last."""
        if self._offsets is None:
            self._offsets = list(accumulate(map(len, self.lines), initial=0))
        return self._offsets

    def line_start(self, line: int) -> int:
        """The byte where line `line` (1-based) starts."""
        offsets = self.line_offsets()
        return offsets[min(line - 1, len(offsets) - 1)]

    def lines_are(self, lines: list[bytes]) -> None:
        """Its lines, known by whoever made the version (`Walker.fast_step`)."""
        self._lines = lines

    @property
    def tree(self) -> Tree | None:
        """The syntax tree, when the source has been parsed (None before: not parsed here)."""
        return self._tree

    @property
    def has_error(self) -> bool:
        """Whether the parse needed error recovery (a syntax error or a missing token)."""
        self.symbols  # noqa: B018 - parses
        return self._tree is None or self._tree.root_node.has_error

    @property
    def symbols(self) -> list[Symbol]:
        if self._symbols is None:
            from anchors.symbols import check_source, parse_source, symbols_from_tree

            source = check_source(self._source)[0]
            if source is None:
                self._symbols = []
            else:
                self._source = source
                # Read as the symbol index reads it (JavaScript with Flow's type annotations
                # with TypeScript's grammar: without it a history ended where a file was
                # converted to TypeScript), each grammar's parse reusing the base's tree.
                tree, self.grammar = parse_source(
                    source, self.language, lambda grammar: self._parse(source, grammar)
                )
                self._tree = tree
                self._symbols = symbols_from_tree(tree, source, self.grammar, self.depth)
            self._base = None
            self.fast = None  # (its tree answers now: the newer version it was made from may go)
        return self._symbols

    def lean_on(
        self,
        other: Version | None,
        edits: Callable[[], list[tuple[int, int, bytes]] | None] | None = None,
    ) -> None:
        """Parse from `other`'s tree if it is parsed first (two versions of one file on either
        side of a commit: the second re-parses only around what the commit changed, `edits`
        giving them as edits of `other`'s source, asked only then)."""
        if other is not None and other is not self and self._symbols is None and self._base is None:
            self._base = other
            self._edits_of = edits

    def _parse(self, source: bytes, grammar: str) -> Tree:
        """Parse, reusing the tree of a neighbouring version: consecutive versions of a file
        differ in a few lines, and tree-sitter re-parses only around the edit."""
        from anchors.languages import parser_for

        parser = parser_for(grammar)
        base = self._base
        if base is not None and base._tree is None and base.fast is not None:
            # Made by `Walker.fast_step` and not parsed: parsed first, from the parsed version
            # it goes back to, told every line swapped since as an edit (one parse, however many
            # versions were made in between).
            base.settle()
        if base is None or base._tree is None or base.grammar != grammar:
            if self.while_parsing is not None:
                return parser.parse(read_while_parsing(source, self.while_parsing))
            return parser.parse(source)
        old = base._source
        if self._edits is None and self._edits_of is not None:
            self._edits = self._edits_of()
        # Where most of the text changed, re-parsing around the changes costs more than
        # parsing it whole (~1.5x: the old tree's nodes are checked before being dropped).
        if self._edits is not None:
            if 2 * sum(len(text) for _, _, text in self._edits) > len(source):
                return parser.parse(source)
            edited = _edited(base._tree, old, source, self._edits)
            if edited is not None:
                return parser.parse(source, edited)
        start = _common_prefix(old, source)
        tail = _common_suffix(old[start:], source[start:])
        end_old, end_new = len(old) - tail, len(source) - tail
        if 2 * (end_new - start) > len(source):
            return parser.parse(source)
        tree = base._tree.copy()
        tree.edit(
            start_byte=start,
            old_end_byte=end_old,
            new_end_byte=end_new,
            start_point=_point(old, start),
            old_end_point=_point(old, end_old),
            new_end_point=_point(source, end_new),
        )
        return parser.parse(source, tree)

    def norm(self, start: int, end: int, own_name: str, also: str = "") -> str:
        """Tokens of bytes [start, end), one per line, comments left out, `own_name` (and
        `also`, when given) as <self>."""
        key = (start, end, own_name, also)
        cached = self._norms.get(key)
        if cached is not None:
            return cached
        from anchors.languages import SUPPORTED

        self.symbols  # noqa: B018 - parses
        assert self._tree is not None
        spec = SUPPORTED[self.grammar]
        comments, blocks = spec.comment_types, spec.block_types
        source = self._source
        out: list[str] = []
        # The walk starts at the largest node inside the span that covers it (or the smallest
        # covering it): from the root it would pass every other definition of the file, each
        # time (the rename and move searches ask for the tokens of many).
        top = self._tree.root_node
        if end > start:
            node = top.descendant_for_byte_range(start, end)
            while node is not None and node is not top:
                parent = node.parent
                if parent is None or parent.start_byte < start or parent.end_byte > end:
                    break
                node = parent
            top = node or top
        stack: list[Node | str] = [top]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            if item.end_byte <= start or item.start_byte >= end or item.type in comments:
                continue
            if item.child_count == 0:
                if item.start_byte >= start and item.end_byte > item.start_byte:
                    text = source[item.start_byte : item.end_byte].decode("utf-8", "replace")
                    if "\\" in text and "\n" in text:  # (layout: see `_lines_joined`)
                        text = _lines_joined(text.encode()).decode("utf-8", "replace")
                        if not text.strip():
                            continue
                    own = own_name and (text == own_name or (also and text == also))
                    out.append("<self>" if own else text)
                continue
            inside = item.start_byte >= start and item.end_byte <= end
            if inside and item.type in blocks:
                stack.append("}")
            stack.extend(reversed(item.children))
            if inside and item.type in blocks:
                stack.append("{")
        text = "\n".join(t.replace("\n", "\\n") for t in out)
        self._norms[key] = text
        return text

    def flat(self, start: int, end: int, own_name: str, blocks: bool = True, also: str = "") -> str:
        """`squeeze(norm(start, end, own_name))` computed from the text rather than from every
        token: the comments are found where their openers are (`_comment_marks`), Python's
        blocks (which become braces) by a query run in tree-sitter, the rest of the text is
        taken as it is, whitespace removed and the own name, as a whole word, replaced. Only
        equality of these strings is used. Without `blocks`: the same with no block looked
        for and every brace left out (see `_differ`). `also`: another name written <self>."""
        key = (start, end, own_name, blocks, also)
        cached = self._flats.get(key)
        if cached is not None:
            return cached
        self.symbols  # noqa: B018 - parses (and settles the grammar)
        usable, query = _blocks_query(self.grammar)
        if not usable or self._tree is None:
            text = squeeze(self.norm(start, end, own_name, also))
            if not blocks:
                text = text.replace("{", "").replace("}", "")
            self._flats[key] = text
            return text
        root = self._tree.root_node
        marks = _comment_marks(root, self._source, start, end, self.grammar)
        if query is not None and blocks:
            from anchors.treesitter import QueryCursor

            cursor = QueryCursor(query)
            cursor.set_byte_range(start, end)
            for nodes in cursor.captures(root).values():
                for node in nodes:
                    a, b = node.start_byte, node.end_byte
                    if a >= start and b <= end:
                        marks.append((a, a, b"{"))
                        marks.append((b, b, b"}"))
        source = self._source
        if marks:
            marks.sort(key=lambda m: (m[0], m[1]))
            pieces: list[bytes] = []
            at = start
            for a, b, replacement in marks:
                if a > at:
                    pieces.append(source[at:a])
                pieces.append(replacement)
                at = max(at, b)
            pieces.append(source[at:end])
            raw = b"".join(pieces)
        else:
            raw = source[start:end]
        text = flat_text(raw, own_name, also)
        if not blocks:
            text = text.replace("{", "").replace("}", "")
        self._flats[key] = text
        return text

    def signature_of(self, symbol: Symbol) -> str:
        """Squeezed signature tokens (the declaration up to the body), own name as <self>."""
        return squeeze(self.norm(symbol.start_byte, symbol.body_start, symbol.short_name))

    def body_of(self, symbol: Symbol) -> str:
        """Body tokens, one per line, own name as <self> (the whole declaration if no body)."""
        start = symbol.body_start if symbol.body_start < symbol.end_byte else symbol.start_byte
        return self.norm(start, symbol.end_byte, symbol.short_name)

    def text_of(self, symbol: Symbol) -> bytes:
        """The symbol's source bytes."""
        return self._source[symbol.start_byte : symbol.end_byte]


def _composed(version: Version) -> tuple[Version, list[tuple[int, int, bytes]]] | None:
    """For a version `Walker.fast_step` made: the parsed version its chain goes back to, and
    the edits of that one's source that make this one's (whole lines swapped, in order); None
    when the chain ends at a version not parsed. Each version of the chain has the same lines
    as the one it was made from, but for the swapped stretches of its symbol."""
    chain: list[Version] = []
    at = version
    while at._tree is None and at.fast is not None:
        chain.append(at)
        at = at.fast[0]
    if at._tree is None:
        return None
    root = at
    # For each line of the version, the root's line it is (0-based), or -1: swapped in.
    mapping = list(range(len(root.lines)))
    for made in reversed(chain):
        assert made.fast is not None
        _, newer_first, first, swapped = made.fast
        lines = mapping[: first - 1]  # (the same enclosing declarations' lines)
        made_at = newer_at = 0  # (lines from the symbol's first)
        for lo, hi, new_lo, new_hi in swapped:
            if lo - made_at != new_lo - newer_at:
                return None
            lines += mapping[newer_first - 1 + newer_at : newer_first - 1 + new_lo]
            lines += [-1] * (hi - lo)
            made_at, newer_at = hi, new_hi
        lines += mapping[newer_first - 1 + newer_at :]
        if len(lines) != len(made.lines):
            return None
        mapping = lines
    offsets = root.line_offsets()
    here = version.lines
    edits: list[tuple[int, int, bytes]] = []
    expected = index = 0  # the next line of the root that is kept, the next line here
    while index < len(mapping):
        if mapping[index] == expected:
            expected += 1
            index += 1
            continue
        start = index
        while index < len(mapping) and mapping[index] < 0:
            index += 1
        until = mapping[index] if index < len(mapping) else len(root.lines)
        if until < expected:
            return None
        edits.append((offsets[expected], offsets[until], b"".join(here[start:index])))
        expected = until
    if expected != len(root.lines):
        edits.append((offsets[expected], offsets[-1], b""))
    return root, [e for e in edits if e[0] != e[1] or e[2]]


def _lines_joined(raw: bytes) -> bytes:
    """`raw` with the backslash that ends a line (an odd run of them, before any trailing
    blanks) taken out: it joins the line to the next (Python's explicit line joining, also
    inside strings; a string's or a macro's continuation elsewhere), which is layout, not a
    token (sanic's `form_file = \\` with `File(...)` on the next line, later one line)."""
    if not any(pair in raw for pair in _BEFORE_BLANK):
        return raw  # (every backslash is followed by something else: an escape)
    out: list[bytes] = []
    at = done = 0
    while (slash := raw.find(b"\\", at)) >= 0:
        newline = raw.find(b"\n", slash)
        if newline < 0:
            break
        if raw[slash + 1 : newline].strip(b" \t\r"):
            at = slash + 1  # (not at the line's end)
            continue
        run = slash
        while run > 0 and raw[run - 1] == 92:  # 92: a backslash
            run -= 1
        if (slash - run) % 2 == 0:  # an odd run: the last one escapes the newline
            out.append(raw[done:slash])
            done = slash + 1
        at = newline + 1
    out.append(raw[done:])
    return b"".join(out)


# A backslash followed by a newline or a blank: what a line ending in one holds.
_BEFORE_BLANK = (b"\\\n", b"\\ ", b"\\\t", b"\\\r")


def flat_text(raw: bytes, own_name: str, also: str = "") -> str:
    """Code with its comments taken out, as `Version.flat` makes it: the own name (and `also`,
    when given) as a whole word written `<self>`, every whitespace removed."""
    if b"\\" in raw and b"\n" in raw:
        raw = _lines_joined(raw)
    for name in (own_name, also) if also and also != "self" else (own_name,):
        if name and name.encode() in raw:
            named = _own_name_as_self(raw.decode("utf-8", "replace"), name)
            raw = named.encode("utf-8", "surrogatepass")
    # Whitespace goes, also inside strings (an escape such as `\n` in a string is code): the
    # ASCII whitespace `bytes.split` knows, deleted by `bytes.translate` (a fifth of the time
    # of `"".join(text.split())` on a 30 KB body).
    return raw.translate(None, _WHITESPACE).decode("utf-8", "replace")


def read_while_parsing(
    source: bytes, hook: Callable[[], None], chunk: int = 8192
) -> Callable[[int, tuple[int, int]], bytes]:
    """What tree-sitter's parser reads `source` through, in chunks, calling `hook` at each one:
    a parse holds the interpreter for milliseconds, and the hook lets the program do in that
    time what cannot wait (start a git process as soon as the one before it has answered). The
    hook must not raise (what it raises is dropped)."""

    def read(offset: int, _point: tuple[int, int]) -> bytes:
        try:  # noqa: SIM105 - contextlib is not imported on this way
            hook()
        except Exception:  # noqa: S110 - see above: the walk asks again after the parse
            pass
        return source[offset : offset + chunk]

    return read


# What a tool writes at the top of a file it generated ("DO NOT EDIT THIS FILE", Go's "Code
# generated by ... DO NOT EDIT.", protoc's, "@generated"), read in the comment lines of the
# first GENERATED_HEAD bytes, lowercased.
GENERATED_MARKS = (b"do not edit", b"@generated", b"generated by", b"auto-generated")
GENERATED_HEAD = 1024


def generated(source: bytes) -> bool:
    """Whether `source` is a generated file by its header: a bundle built from the sources
    beside it holds copies of their definitions, which are not where they moved to or from
    (marked committed lib/marked.esm.js, "generated from files in ./src/", with each change)."""
    for line in source[:GENERATED_HEAD].lower().split(b"\n"):
        text = line.strip()
        if text.startswith(_COMMENT_STARTS) and any(mark in text for mark in GENERATED_MARKS):
            return True
    return False


# How a comment line of a file's header starts, in the languages read (a docstring's too).
_COMMENT_STARTS = (b"//", b"#", b"/*", b"*", b"--", b'"""', b"'''")


def _edited(tree: Tree, old: bytes, new: bytes, edits: list[tuple[int, int, bytes]]) -> Tree | None:
    """A copy of `tree` (of `old`) told of `edits` (as `Version` takes them), which must make
    `new` of `old` (else None): tree-sitter then re-parses only around each, however far
    apart. Told last first, so that each is where it was in `old`."""
    pieces: list[bytes] = []
    at = 0
    for start, end, text in edits:
        if start < at or end < start:
            return None
        pieces += (old[at:start], text)
        at = end
    pieces.append(old[at:])
    if b"".join(pieces) != new:
        return None
    # Each edit's start and end as (row, column), counted in one pass over `old`.
    points = _points(old, [offset for start, end, _ in edits for offset in (start, end)])
    edited = tree.copy()
    for number in range(len(edits) - 1, -1, -1):
        start, end, text = edits[number]
        (row, column), old_end = points[2 * number], points[2 * number + 1]
        lines = text.count(b"\n")
        end_column = len(text) - text.rfind(b"\n") - 1 if lines else column + len(text)
        edited.edit(
            start_byte=start,
            old_end_byte=end,
            new_end_byte=start + len(text),
            start_point=(row, column),
            old_end_point=old_end,
            new_end_point=(row + lines, end_column),
        )
    return edited


def _points(source: bytes, offsets: list[int]) -> list[tuple[int, int]]:
    """`_point` of each of `offsets` (ascending), reading `source` once."""
    points: list[tuple[int, int]] = []
    row = line_start = at = 0
    for offset in offsets:
        row += source.count(b"\n", at, offset)
        newline = source.rfind(b"\n", at, offset)
        if newline >= 0:
            line_start = newline + 1
        points.append((row, offset - line_start))
        at = offset
    return points


class Found(Keyed):
    """A symbol in one version of a file (immutable; a plain class: see `HistoryEntry`)."""

    __slots__ = ("symbol", "version")

    def __init__(self, symbol: Symbol, version: Version) -> None:
        self.symbol = symbol
        self.version = version

    def _key(self) -> tuple[Symbol, Version]:
        return (self.symbol, self.version)

    def __repr__(self) -> str:
        return f"Found(symbol={self.symbol!r}, version={self.version!r})"

    @property
    def name(self) -> str:
        return self.symbol.name

    @property
    def short_name(self) -> str:
        return self.symbol.short_name


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix (a binary search of slice compares: memcmp, not a loop)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes) -> int:
    """Length of the common suffix."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


_WHITESPACE = b" \t\n\r\x0b\x0c"


def _word_char(char: str) -> bool:
    return char.isalnum() or char in "_$"


def _own_name_as_self(text: str, name: str) -> str:
    r"""`text` with `name` as a whole word (no word character or `$` on either side) written
    `<self>`: what `re.sub(r"(?<![\w$])NAME(?![\w$])", "<self>", text)` gives, by `str.split`
    (the regular expression scanned the whole text: ~0.4 ms of every 30 KB body compared)."""
    parts = text.split(name)
    out = [parts[0]]
    for index in range(1, len(parts)):
        before, after = parts[index - 1], parts[index]
        # (a part is empty between two adjacent occurrences: the name's own last and first
        # characters are then the neighbours, both word characters)
        left = before[-1:] if before else (name[-1:] if index > 1 else "")
        right = after[:1] if after else (name[:1] if index < len(parts) - 1 else "")
        whole = not (left and _word_char(left)) and not (right and _word_char(right))
        out.append("<self>" if whole else name)
        out.append(after)
    return "".join(out)


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """(row, column in bytes) of a byte offset, as tree-sitter counts them."""
    return _points(source, [offset])[0]


def squeeze(text: str) -> str:
    """Token text with every whitespace (and escaped newline inside a token) removed."""
    return "".join(text.replace("\\n", " ").split())


def differences(old: Found, new: Found) -> list[str]:
    """Which of signature and body differ between two versions of one symbol."""
    kinds: list[str] = []
    a, b = old.symbol, new.symbol
    if _differ(
        old.version,
        (a.start_byte, a.body_start, a.short_name),
        new.version,
        (b.start_byte, b.body_start, b.short_name),
    ) and (
        a.name == b.name
        or _unqualified(old.version.flat(a.start_byte, a.body_start, a.short_name))
        != _unqualified(new.version.flat(b.start_byte, b.body_start, b.short_name))
        and _heads_differ(old, new)
    ):
        kinds.append("signature")
    if (
        _bodies_differ(old, new)
        if a.short_name != b.short_name
        else _differ(
            old.version,
            _body_span(a, old.version.source),
            new.version,
            _body_span(b, new.version.source),
        )
    ):
        kinds.append("body")
    if _CHECK_FLAT:
        slow: list[str] = []
        if old.version.signature_of(a) != new.version.signature_of(b):
            slow.append("signature")
        if (
            _bodies_differ(old, new)
            if a.short_name != b.short_name
            else squeeze(old.version.body_of(a)) != squeeze(new.version.body_of(b))
        ):
            slow.append("body")
        if slow != kinds:
            import sys

            print(f"FLAT MISMATCH {a.name} {kinds} {slow}", file=sys.stderr)
    return kinds


_CHECK_FLAT = bool(os.environ.get("TETHER_CHECK_FLAT"))


def _unqualified(head: str) -> str:
    """A declaration's flat text with the qualifiers written before its own name (`<self>`)
    left out: in an assignment they are its name (`module.exports = function (opts)` made
    `module.exports.cli = function (opts)`, `options.gotRetry.retries = (...) =>` made
    `options.retry.retries =`, `var update = exports.parse.update = function` made `var
    update = exports.update = function`: renamed, the signature as it was)."""
    out: list[str] = []
    done = 0
    at = head.find("<self>")
    while at >= 0:
        if at > 0 and head[at - 1] == ".":
            start = at - 1
            while start > done and (head[start - 1] == "." or _word_char(head[start - 1])):
                start -= 1
            out.append(head[done:start])
        else:
            out.append(head[done:at])
        out.append("<self>")
        done = at + len("<self>")
        at = head.find("<self>", done)
    out.append(head[done:])
    return "".join(out)


# What a call of the symbol's own name is made on when it is the symbol itself (recursion, or
# an override calling the method it overrides), not a namesake of another object's.
_OWN_RECEIVERS = frozenset({"self", "this", "cls", "Self", "super", "prototype"})


def _heads_differ(old: Found, new: Found) -> bool:
    """Whether the declarations of a symbol renamed between `old` and `new` still differ when
    both names are read as the own in each: a parameter of the old name is no change
    (cachetools' `def cache(cache, key=hashkey, lock=None)` renamed `def cached(cache, ...)`)."""
    a, b = old.symbol, new.symbol
    if a.short_name == b.short_name:
        return True
    old_head = old.version.source[a.start_byte : a.body_start]
    new_head = new.version.source[b.start_byte : b.body_start]
    if b.short_name.encode() not in old_head and a.short_name.encode() not in new_head:
        return True
    return _unqualified(
        old.version.flat(a.start_byte, a.body_start, a.short_name, also=b.short_name)
    ) != _unqualified(new.version.flat(b.start_byte, b.body_start, b.short_name, also=a.short_name))


def _bodies_differ(old: Found, new: Found) -> bool:
    """Whether the bodies of a symbol renamed between `old` and `new` differ, each one's own
    name written `<self>` where it is the symbol's (`foo(...)`, `self.foo(...)`) and kept as it
    is where it names another object's member of that name: `self.a.bytes()` that became
    `self.a.chunk()` as `Chain.bytes` became `Chain.chunk` changed the body (the chained
    buffers' methods it calls), and commons-lang's `regionMatchesSequence` that went on calling
    `((String) cs).regionMatches(...)` as it became `regionMatches` did not.
    Where they differ and either body holds the other's name, they are compared again with
    both names the own: a word of prose that was the old name (toolz's `distinct` became
    `isdistinct`, its docstring still saying "All values in sequence are distinct") is no
    change of the body."""
    if _as_own(old) == _as_own(new):
        return False
    a, b = old.symbol.short_name, new.symbol.short_name
    old_start, old_end, _ = _body_span(old.symbol, old.version.source)
    new_start, new_end, _ = _body_span(new.symbol, new.version.source)
    if (
        a.encode() not in new.version.source[new_start:new_end]
        and b.encode() not in old.version.source[old_start:old_end]
    ):
        return True
    return _as_own(old, also=b) != _as_own(new, also=a)


def _as_own(found: Found, also: str = "") -> str:
    """The body's flat text, the own name (and `also`) as `<self>` only where it is the
    symbol's own."""
    version, symbol = found.version, found.symbol
    start, end, name = _body_span(symbol, version.source)
    body = version.flat(start, end, name, also=also)
    if "<self>" not in body:
        return body
    own = _OWN_RECEIVERS
    if version.grammar == "go":
        # `func (r *Router) Handle(...)`: `r.Handle(...)` in its body is the method itself.
        head = version.flat(symbol.start_byte, symbol.body_start, name)
        if head.startswith("func("):
            at = 5
            while at < len(head) and _word_char(head[at]):
                at += 1
            if at > 5:
                own = own | {head[5:at]}
    pieces = body.split("<self>")
    out = [pieces[0]]
    for piece in pieces[1:]:
        out.append("<self>" if _own_receiver(out[-1], own) else name)
        out.append(piece)
    return "".join(out)


def _own_receiver(before: str, own: frozenset[str]) -> bool:
    """Whether a name that follows the flat text `before` is the symbol's own: not a member
    (no `.` or `::` before it), or a member of one of `own`, or of `super(...)`."""
    if before.endswith("."):
        receiver = before[:-1]
    elif before.endswith("::"):
        receiver = before[:-2]
    else:
        return True
    if receiver.endswith(")"):  # a call's result: own only as `super()`'s
        depth, at = 0, len(receiver) - 1
        while at >= 0:
            depth += {")": 1, "(": -1}.get(receiver[at], 0)
            if depth == 0:
                break
            at -= 1
        receiver = receiver[:at] if at > 0 else ""
        return _last_word(receiver) == "super"
    return _last_word(receiver) in own


def _last_word(text: str) -> str:
    """The word (`[A-Za-z0-9_$]` and other letters) that `text` ends with, or ""."""
    at = len(text)
    while at > 0 and _word_char(text[at - 1]):
        at -= 1
    return text[at:]


def _differ(
    old: Version, old_span: tuple[int, int, str], new: Version, new_span: tuple[int, int, str]
) -> bool:
    """Whether the flat texts of two spans differ. Where blocks count (Python), their texts
    without any brace are compared first: when those differ, so do the whole ones (each is the
    other with braces taken out), and no block is looked for: most versions the walk compares
    did change, and the query for the blocks is most of a flat text's cost."""
    if (
        old.grammar == new.grammar
        and _blocks_query(old.grammar)[1] is not None
        and old.flat(*old_span, blocks=False) != new.flat(*new_span, blocks=False)
    ):
        return True
    return old.flat(*old_span) != new.flat(*new_span)


def _body_span(symbol: Symbol, source: bytes) -> tuple[int, int, str]:
    """The body's bytes (the whole declaration when it has none), without the `;` that ends a
    declaration statement after it: `function f() {...}` written `const f = () => {...};` kept
    its body (the change is the declaration's, a signature)."""
    start = symbol.body_start if symbol.body_start < symbol.end_byte else symbol.start_byte
    end = symbol.end_byte
    if end > start and source[end - 1 : end] == b";":
        end -= 1
    return start, end, symbol.short_name


_QUERIES: dict[str, tuple[bool, Query | None]] = {}
# What each comment of a language starts with (the others': `//` and `/*`).
_OPENERS = {"python": (b"#",)}


def _blocks_query(language: str) -> tuple[bool, Query | None]:
    """A query for the blocks that count (Python's, which the token text brackets), None for a
    language without such blocks; first whether the grammar has every node type named (else
    the token walk is used)."""
    if language not in _QUERIES:
        from anchors.languages import SUPPORTED, grammar
        from anchors.treesitter import Query

        spec = SUPPORTED[language]
        known = grammar(language)
        # (`_comment_marks` relies on the comment types; a grammar lacking one: the token walk.)
        if any(known.id_for_node_kind(t, True) is None for t in spec.comment_types):
            _QUERIES[language] = (False, None)
        else:
            try:
                patterns = " ".join(f"({t}) @b" for t in sorted(spec.block_types))
                _QUERIES[language] = (True, Query(known, patterns) if patterns else None)
            except Exception:  # a block type the grammar lacks: use the token walk
                _QUERIES[language] = (False, None)
    return _QUERIES[language]


def _comment_marks(
    root: Node, source: bytes, start: int, end: int, language: str
) -> list[tuple[int, int, bytes]]:
    """The comments that overlap bytes [start, end), clipped to them, as (from, to, b"").

    Every comment starts with its opener (`#`, `//`, `/*`): each opener in the text is looked
    up in the tree (the node there, or one it is part of: a `//` in a string is not a comment,
    nor a `/*` inside a `//` comment, which is marked whole). What a query for the comment
    types captures, for a fifth of its time on a long function (the query visits every node of
    the range); the token walk, which the history tests compare with, is the reference."""
    from anchors.languages import SUPPORTED

    comments = SUPPORTED[language].comment_types
    marks: list[tuple[int, int, bytes]] = []
    taken: set[int] = set()

    def mark(at: int) -> int:
        """Mark the comment holding byte `at`, if any; where to search on from."""
        node: Node | None = root.descendant_for_byte_range(at, at + 1)
        while node is not None and node.type not in comments:
            node = node.parent
        if node is None:
            return at + 1
        a, b = node.start_byte, node.end_byte
        if a not in taken and b > start and a < end:
            taken.add(a)
            marks.append((max(a, start), min(b, end), b""))
        return max(b, at + 1)

    mark(start)  # one begun before the range
    for opener in _OPENERS.get(language, (b"//", b"/*")):
        stop = end + len(opener) - 1  # an opener begun in the range, ending past it
        at = source.find(opener, start, stop)
        while at >= 0:
            at = source.find(opener, mark(at), stop)
    return marks


# Similarities of long bodies, as computed (a walk's checks ask for the same pair again: the
# rename search and then whether another definition claimed it; ~20 ms each for 2,000 tokens).
_SIMILAR: dict[tuple[str, str], float] = {}
_SIMILAR_SIZE = 64  # pairs kept (the oldest dropped first)
_SIMILAR_FROM = 4000  # characters of the two texts together: shorter ones are not kept


def similarity(a: Found, b: Found) -> float:
    from anchors.fingerprint import similarity

    x, y = a.version.body_of(a.symbol), b.version.body_of(b.symbol)
    if len(x) + len(y) < _SIMILAR_FROM:
        return similarity(x, y)
    known = _SIMILAR.get((x, y))
    if known is None:
        known = _SIMILAR[(x, y)] = similarity(x, y)
        if len(_SIMILAR) > _SIMILAR_SIZE:
            del _SIMILAR[next(iter(_SIMILAR))]
    return known


def compatible(a: Symbol, b: Symbol) -> bool:
    """Whether `a` can be an earlier version of `b`: the same kind (functions and methods alike),
    and both with a body or both without. A declaration without one (an interface's or trait's
    method signature, an abstract method) is not where an implementation came from: yargs'
    interface `YargsInstance.demandOption` is not the earlier `Yargs.demandOption`."""
    callables = {"function", "method"}
    if bodied(a) != bodied(b):
        return False
    return a.kind == b.kind or (a.kind in callables and b.kind in callables)


def bodied(symbol: Symbol) -> bool:
    return symbol.body_start < symbol.end_byte


def one_name(a: str, b: str, language: str) -> bool:
    """Whether two last name parts name the same thing: equal, or in Go equal but for the case
    of the first letter (exported or not)."""
    return a == b or (language == "go" and a[:1].swapcase() + a[1:] == b)


def best_match(
    target: Found, candidates: list[Found], same_name: float, other_name: float
) -> tuple[Found, float] | None:
    """The candidate most like `target`, if it clears the threshold for its name (one of its
    name scores 0.3 more: the first of the highest scores wins)."""
    # A candidate of the target's name more than 0.7 alike scores over 1.0, which no other name
    # reaches: the others need no comparing (a file split into many: hundreds of definitions
    # gone, each one's tokens walked, when the one of the same name is plainly it).
    language = target.version.language
    named = [c for c in candidates if one_name(c.short_name, target.short_name, language)]
    named_best = _best(target, named, same_name, other_name)
    if named_best is not None and named_best[2] > 0.7:
        return named_best[1], named_best[2]
    best = _best(target, candidates, same_name, other_name)
    return (best[1], best[2]) if best else None


def _best(
    target: Found, candidates: list[Found], same_name: float, other_name: float
) -> tuple[float, Found, float] | None:
    """(score, candidate, similarity) of the first best-scoring candidate (see `best_match`)."""
    best: tuple[float, Found, float] | None = None
    language = target.version.language
    for cand in candidates:
        if not compatible(cand.symbol, target.symbol):
            continue
        # (In Go, a name exported or unexported as it moved is the same name: go-playground's
        # validator moved `notBlank` into a package of its own as `NotBlank`.)
        named = one_name(cand.short_name, target.short_name, language)
        sim = similarity(cand, target)
        if sim < (same_name if named else other_name):
            continue
        score = sim + (0.3 if named else 0.0)
        if best is None or score > best[0]:
            best = (score, cand, sim)
    return best


def enclosing_definitions(symbols: list[Symbol], name: str) -> list[Symbol]:
    """The definitions that qualify `name`, outermost first (their header is part of the name)."""
    parts = name.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts))}
    return [s for s in symbols if s.name in prefixes]
