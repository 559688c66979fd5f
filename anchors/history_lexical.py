"""Reading a few changed lines of a symbol without parsing them, for `tether history`.

Most commits that touch a function change a few lines inside its body. When those lines (as
the commit left them and as they were before it) are plain code, the symbol before the commit
is the symbol after it with the lines swapped back, and whether its code changed is whether
those lines' code did; no parse is needed. "Plain" is decided here, line by line, without the
`re` module (~6 ms to import on a command that races `git log -L`):

- every string literal opens and closes on its line (no triple quotes, Java text blocks,
  multi-line template or raw strings), and no block comment starts or ends in the lines;
- line comments (`#` in Python, `//` elsewhere) are left out as the syntax tree leaves them
  out; where one could be something else (a `//` after a `<` in JSX, a `/` that may start a
  regular expression, a `#` in C's preprocessor, a quote in Rust that may be a lifetime), the
  lines are not plain and the walk parses them as before;
- the brackets the lines leave open or close are the same on both sides (so the code around
  them keeps its structure), and in Python every line of code is indented deeper than the
  definition (so no line of it ended the definition before).

What the first changed line starts inside (a comment or string begun above it) is asked of the
syntax tree of the newer version (`plain_at`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from anchors.history_compare import Version

_OPEN = {40: 41, 91: 93, 123: 125}  # ( [ {
_CLOSE = {41: 40, 93: 91, 125: 123}
_SLASH, _STAR, _HASH, _BACKSLASH, _LT = 47, 42, 35, 92, 60
_QUOTE, _APOSTROPHE, _BACKTICK = 34, 39, 96

# The quotes that open a one-line literal, per language (Rust's apostrophes are read apart).
_QUOTES = {
    "python": frozenset({_QUOTE, _APOSTROPHE}),
    "javascript": frozenset({_QUOTE, _APOSTROPHE, _BACKTICK}),
    "typescript": frozenset({_QUOTE, _APOSTROPHE, _BACKTICK}),
    "tsx": frozenset({_QUOTE, _APOSTROPHE, _BACKTICK}),
    "go": frozenset({_QUOTE, _APOSTROPHE, _BACKTICK}),
    "rust": frozenset({_QUOTE}),
    "java": frozenset({_QUOTE, _APOSTROPHE}),
    "c": frozenset({_QUOTE, _APOSTROPHE}),
    "cpp": frozenset({_QUOTE, _APOSTROPHE}),
}
_RAW = {"go": _BACKTICK}  # a quote whose literal knows no escapes
_RAW_PREFIXES = {"rust": b"r#", "c": b"R", "cpp": b"R"}  # before a quote: a raw string
_SLASHED = frozenset({"javascript", "typescript", "tsx"})  # a lone `/` may open a regex

# Node types (by part of their name) that a line may start inside: a comment, a string, a
# template, JSX text, a regular expression, a heredoc or text block, a recovered error.
_INSIDE = ("comment", "string", "template", "jsx", "regex", "heredoc", "text_block", "ERROR")

Residue = tuple[tuple[int, ...], tuple[int, ...]]


def code_of(lines: list[bytes], language: str) -> tuple[bytes, Residue] | None:
    """The lines' text with line comments left out, and the brackets they close that they did
    not open and open without closing; None when the lines are not plain (see the module)."""
    quotes = _QUOTES.get(language)
    if quotes is None:
        return None
    python = language == "python"
    slashed = language in _SLASHED
    raw_quote = _RAW.get(language, -1)
    prefixes = _RAW_PREFIXES.get(language, b"")
    stack: list[int] = []
    closed: list[int] = []
    out: list[bytes] = []
    for line in lines:
        if python and (b'"""' in line or b"'''" in line):
            return None
        if b"/*" in line or b"*/" in line:
            return None
        if language in ("c", "cpp") and b"#" in line:
            return None
        if language == "java" and b'"""' in line:
            return None
        size = len(line)
        i = 0
        cut = size
        seen_lt = False
        while i < size:
            c = line[i]
            if c in quotes:
                if i and line[i - 1] in prefixes:
                    return None  # a raw string (Rust's `r"..."`, `r#"..."#`, C++'s `R"(...)"`)
                i += 1
                while i < size and line[i] != c:
                    if line[i] == _BACKSLASH and c != raw_quote:
                        i += 1
                    elif line[i] == 10:
                        return None
                    i += 1
                if i >= size:
                    return None  # not closed on its line
            elif c == _APOSTROPHE:  # Rust: a character literal, or a lifetime
                end = _rust_char_end(line, i)
                if end < 0:
                    return None
                i = end
            elif c in _OPEN:
                stack.append(c)
            elif c in _CLOSE:
                if stack:
                    if stack.pop() != _CLOSE[c]:
                        return None
                else:
                    closed.append(c)
            elif python:
                if c == _HASH:
                    cut = i
                    break
            elif c == _SLASH:
                if i + 1 < size and line[i + 1] == _SLASH:
                    if seen_lt:
                        return None  # JSX text may hold `//` (a URL)
                    cut = i
                    break
                if slashed:
                    return None  # a regular expression, perhaps
            elif c == _LT:
                seen_lt = True
            i += 1
        if cut < size:
            newline = b"\n" if line.endswith(b"\n") else b""
            out.append(line[:cut] + newline)
        else:
            out.append(line)
    return b"".join(out), (tuple(closed), tuple(stack))


def _rust_char_end(line: bytes, i: int) -> int:
    """After a Rust `'` at `i`: the index past a character literal, or past the `'` of a
    lifetime (`'a`, `'static`); -1 when it is neither (then the lines are not plain)."""
    size = len(line)
    j = i + 1
    if j < size and line[j] == _BACKSLASH:
        close = line.find(b"'", j + 2)
        return close + 1 if 0 < close <= j + 10 else -1
    if j < size and line[j] != _APOSTROPHE:
        # One character (up to four UTF-8 bytes) and a closing `'`: a literal.
        width = 1
        lead = line[j]
        if lead >= 0xF0:
            width = 4
        elif lead >= 0xE0:
            width = 3
        elif lead >= 0xC0:
            width = 2
        if j + width < size and line[j + width] == _APOSTROPHE:
            return j + width + 1
        if lead == 95 or 65 <= lead <= 90 or 97 <= lead <= 122:  # `'ident`: a lifetime
            return j
    return -1


def plain_at(version: Version, line: int) -> bool:
    """Whether line `line` (1-based) of `version` starts outside any comment, string, template
    or other literal begun above it. Asked of the syntax tree where the version was parsed;
    a version made by `Walker.fast_step` (not parsed) answers for the lines it swapped back
    itself (plain, by its making) and asks the newer version for the others."""
    while True:
        fast = version.fast
        if fast is None:
            break
        newer, newer_first, first, swapped = fast
        offset = line - first
        shift = 0
        for lo, hi, new_lo, new_hi in swapped:
            if offset < lo:
                break
            if offset < hi:
                return True
            shift += (new_hi - new_lo) - (hi - lo)
        version, line = newer, newer_first + offset + shift
    tree = version.tree
    if tree is None:
        return False
    if line < 1 or line > len(version.lines):
        return False
    at = version.line_start(line)
    node = tree.root_node.descendant_for_byte_range(at, at)
    while node is not None:
        if node.start_byte < at and (
            node.child_count == 0 or any(part in node.type for part in _INSIDE)
        ):
            return False
        if node.type == "ERROR":
            return False
        node = node.parent
    return True
