"""A symbol found unchanged in an older version of its file by its text alone, without a diff.

Most commits that touch a file leave a given function alone. `tether history` first looks for
the function's exact lines in the parent's file, and checks there what decides its identity
around them:

- the first line of code above it (past blank and comment lines) must be the same line as now
  or plainly not part of it (not a decorator, attribute or annotation: a Python line not
  starting with `@`; in brace languages a line ending a statement or block or opening one);
- in Python, the first non-blank line below it must be indented no deeper than its first line
  (else body lines were removed there) or be the same line as now;
- each enclosing definition's declaration lines (a renamed class renames the method) must be
  there, the nearest before it, with no line between indented less than the definition inside
  (so that it provably lies directly inside: in Python a block ends only at a line indented no
  deeper than its header, and a block in between would be indented less than its contents;
  brace languages must also open as many braces as close between the two, as they did before).

Found once, and so placed, the symbol is the same code under the same qualified name in the
parent: the commit did not change it, and its lines there are read off the found offset. When
the text is not there, or not provably the same symbol (it appears twice, or a declaration
cannot be matched), the walk asks git for the commit's diff and goes on as before (see
`anchors.history_walk`). So the answer never depends on this shortcut, only the time does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from re import Pattern

# Where a symbol's lines are in one version of its file (byte offsets): the version's blob,
# the symbol's first byte and the end of its last line, and each enclosing declaration's lines
# (outermost first).
Spot = tuple[str, int, int, tuple[tuple[int, int], ...]]

_SHALLOWER: dict[int, Pattern[bytes]] = {}
# Lines above a definition that may belong to it (decorators, attributes, annotations).
_ATTACHED = (b"@", b"#", b"[", b"template")
# How a line of a brace language ends when the next line starts something new.
_ENDS = (b"}", b";", b"{", b",")


def comment_line(text: bytes, language: str) -> bool:
    """Whether a stripped line is a comment (or a block comment's continuation)."""
    if language == "python":
        return text.startswith(b"#")
    return text.startswith((b"//", b"/*", b"*"))


def line_offsets(data: bytes, last: int) -> list[int]:
    """The byte offset of the start of each line 1..last+1 (index 0 is line 1); lines past the
    end of `data` start at len(data)."""
    parts = data.split(b"\n", last)
    offsets = [0] * (last + 1)
    at = 0
    for index in range(min(last, len(parts) - 1)):
        at += len(parts[index]) + 1
        offsets[index + 1] = at
    for index in range(len(parts), last + 1):
        offsets[index] = len(data)
    return offsets


def spot_of(
    data: bytes,
    blob: str,
    start: int,
    end: int,
    header_spans: tuple[tuple[int, int], ...],
) -> Spot | None:
    """The Spot of a symbol at lines start..end (1-based, inclusive) of `data`."""
    if start < 1 or end < start:
        return None
    offsets = line_offsets(data, end + 1)
    a, b = offsets[start - 1], offsets[end]
    if a >= len(data) or b <= a:
        return None
    headers: list[tuple[int, int]] = []
    for first, last in header_spans:
        if not (1 <= first <= last < start):
            return None
        headers.append((offsets[first - 1], offsets[last]))
    return blob, a, b, tuple(headers)


def _code_above(data: bytes, at: int, language: str) -> bytes | None:
    """The first line above offset `at` (a line start) that is not blank or a comment, stripped;
    None at the top of the file."""
    while at > 0:
        prev = data.rfind(b"\n", 0, at - 1) + 1
        text = data[prev : at - 1].strip()
        at = prev
        if text and not comment_line(text, language):
            return text
    return None


def _next_line(data: bytes, at: int) -> bytes | None:
    """The first line at or below offset `at` (a line start) that is not blank; None at the end."""
    while at < len(data):
        nxt = data.find(b"\n", at)
        nxt = len(data) if nxt < 0 else nxt + 1
        line = data[at:nxt]
        at = nxt
        if line.strip():
            return line.rstrip(b"\r\n")
    return None


def _separate(text: bytes, language: str) -> bool:
    """Whether a line of code just above a definition is plainly not part of it."""
    if language == "python":
        return not text.startswith(b"@")
    return not text.startswith(_ATTACHED) and text.endswith(_ENDS)


def _shallower(indent: int) -> Pattern[bytes]:
    """A line of code indented `indent` bytes or fewer, with the newline before it (a literal
    first character lets the regular expression engine skip ahead: 4x faster than `^`)."""
    pattern = _SHALLOWER.get(indent)
    if pattern is None:
        import re  # on first use: `tether history` on a small file needs none (anchors.history_git)

        pattern = _SHALLOWER[indent] = re.compile(rb"\n[ \t]{0,%d}[^ \t\r\n\f\v]" % indent)
    return pattern


def indent_width(line: bytes) -> int:
    """The width of a line's leading spaces and tabs, in bytes."""
    return len(line) - len(line.lstrip(b" \t"))


def _braces(data: bytes, a: int, b: int) -> int:
    return data.count(b"{", a, b) - data.count(b"}", a, b)


def find_unchanged(new: bytes, spot: Spot, old: bytes, old_blob: str, language: str) -> Spot | None:
    """The symbol of `spot` (in `new`) found unchanged in `old`, or None when that is not
    certain from the text (see the module's docstring)."""
    _, a, b, headers = spot
    text = new[a:b]
    at = old.find(text)
    if at < 0 or (at > 0 and old[at - 1] != 10):  # not found, or not at a line start
        return None
    if old.find(text, at + 1) >= 0:
        return None  # twice: which one is it?
    above = _code_above(old, at, language)
    if (
        above is not None
        and not _separate(above, language)
        and above != _code_above(new, a, language)
    ):
        return None
    first = text[: text.find(b"\n") + 1 or len(text)]
    if language == "python":
        below = _next_line(old, at + len(text))
        if (
            below is not None
            and indent_width(below) > indent_width(first)
            and below != _next_line(new, b)
        ):
            return None
    inner_new, inner_old, depth = a, at, indent_width(first)
    found: list[tuple[int, int]] = []
    for ha, hb in reversed(headers):
        declaration = new[ha:hb]
        at_h = old.rfind(b"\n" + declaration, 0, inner_old)
        if at_h >= 0:
            at_h += 1
        elif old.startswith(declaration) and len(declaration) <= inner_old:
            at_h = 0
        else:
            return None
        end_h = at_h + len(declaration)
        if end_h > inner_old:
            return None
        # Every line between is indented at least as deep as the definition inside: any
        # shallower line (another block opening or this one closing) leaves it unproven.
        if depth == 0 or _shallower(depth - 1).search(old, end_h - 1, inner_old):
            return None
        if language != "python" and _braces(old, at_h, inner_old) != _braces(new, ha, inner_new):
            return None
        found.append((at_h, end_h))
        inner_new, inner_old, depth = ha, at_h, indent_width(declaration)
    # Nor when the blocks open above it differ in number: a wrapper put around it or taken
    # away, its own lines not indented (handlebars' `exports.attach = function(Handlebars) {`
    # around its runtime), changes its qualified name.
    if language != "python" and _braces(old, 0, inner_old) != _braces(new, 0, inner_new):
        return None
    found.reverse()
    return old_blob, at, at + len(text), tuple(found)


def line_of(data: bytes, offset: int, base: tuple[int, int] = (0, 1)) -> int:
    """The 1-based line of a byte offset (counted on from `base`, a known (offset, line) at or
    before it)."""
    return base[1] + data.count(b"\n", base[0], offset)
