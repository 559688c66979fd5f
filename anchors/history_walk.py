"""The walk of `tether history`: a symbol followed back through the commits that touched its
file, across renames, file renames and moves (see `anchors.history` for the method)."""

from __future__ import annotations

import os
from collections import Counter

from anchors.history_compare import (
    Found,
    Version,
    best_match,
    bodied,
    compatible,
    differences,
    enclosing_definitions,
    flat_text,
    one_name,
    similarity,
)
from anchors.history_git import (
    BlobReader,
    Commit,
    FileLog,
    Hunk,
    ParentReader,
    Patch,
    PathDiffs,
    TreeChanges,
    file_diffs,
    files_named,
    last_touched,
    paired_loosely,
    paired_with,
    shallow_commits,
)
from anchors.history_lexical import code_of, plain_at
from anchors.history_text import (
    Spot,
    comment_line,
    find_unchanged,
    indent_width,
    line_of,
    spot_of,
)
from anchors.keyed import Keyed
from anchors.languages import language_for_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from anchors.history_git import StrPath
    from anchors.symbols import Symbol

CHANGE_KINDS = ("introduced", "body", "signature", "rename", "move", "file-rename")
# Below this similarity a definition that vanished is not taken for the one that appeared.
RENAME_SIMILARITY = 0.5
MOVE_SIMILARITY_SAME_NAME = 0.4
MOVE_SIMILARITY_OTHER_NAME = 0.75
# A commit that rewrites more files than this is not searched file by file for a moved symbol
# (a mass reformat, a syntax migration, vendoring): only files whose diff mentions the symbol's
# name are, and as many files it deleted in the symbol's language. (Reading and parsing each file
# before and after costs ~5 ms a file.)
MOVE_SEARCH_FILES = 8
# Of the files a commit deleted, how many are compared with the symbol's file when the commit
# rewrote the symbol (see `Walker.file_replaced`).
DELETED_READ = 16
# A changed file this large is parsed in the move search only when its diff removes a line (the
# diff of all of them is one git process, ~3 ms; parsing a 16 KB file before and after, ~8 ms).
MOVE_DIFF_BYTES = 16_000
# The share of the symbol's body words that what a commit removed of a file must hold for the
# file to be searched for a definition of another name it moved from (`_cannot_hold`; such a
# definition is 0.75 like it or more, so it shares well over half its words).
MOVE_WORD_SHARE = 0.3
# The score of a move source found by `_moved_with_its_type`, when nothing alike was found (a
# likeness scores at most 1.3).
MOVED_WITH_TYPE = 2.0
# Definitions that vanished this near in likeness to the symbol are equally its candidates.
MOVE_TIE = 0.01
# A rewritten symbol this like a namesake in a file the same commit deleted is that one moved
# here over it (see `Walker.replaced_from`).
REPLACED_SIMILARITY = 0.9
# A symbol a commit before deleted, written back this alike, is the deleted one restored.
RESTORED_SIMILARITY = 0.9
# A line that imports names from another module (Python's `from m import a`, JavaScript's
# `import {a} from`, `require`, Rust's `use`), and the words of such a line that are not names.
_IMPORTING = (b"import", b"require", b"use")
# Every byte that is no part of a name, as a space (`line.translate(_NAME_BYTES).split()`: its
# words; `re` is not imported on the command's path).
_NAME_BYTES = bytes(
    c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256)
)
_IMPORT_WORDS = frozenset(
    {"import", "from", "require", "use", "as", "const", "let", "var", "crate", "self", "super",
     "pub", "type", "default"}
)  # fmt: skip
# How many commits before a file was added are searched for one that deleted another file
# holding the symbol (a file moved, or a definition moved, in two commits: see
# `Walker.written_back`), along first parents.
TWO_COMMIT_WINDOW = 8
# At most this many of one commit's deleted files are offered to git's rename detection for a
# file added a few commits later.
TWO_COMMIT_FILES = 64
# How many of the file's earlier commits are searched for the one that deleted a definition a
# commit wrote back (see `Walker.restored`).
RESTORED_LOOKBACK = 16
# Versions of the file asked of git ahead of the walk (each is held in memory until read).
PREFETCH = 8


class HistoryEntry(Keyed):
    """One commit in a symbol's history (immutable; equal when all but `timestamp` are).

    A plain class, as are the others on the way of `tether history`: the `dataclasses` module
    (with the `inspect` it imports) and the classes it makes cost ~8 ms of a command that races
    `git log -L` (docs/benchmarks.md)."""

    __slots__ = ("commit", "changes", "path", "symbol", "author", "date", "timestamp")

    def __init__(
        self,
        commit: str,
        changes: tuple[str, ...],
        path: str,  # the file the symbol lived in after this commit
        symbol: str,  # its qualified name after this commit
        author: str,
        date: str,  # author date, ISO 8601
        timestamp: int = 0,  # committer time, for ordering (not compared)
    ) -> None:
        self.commit = commit
        self.changes = changes
        self.path = path
        self.symbol = symbol
        self.author = author
        self.date = date
        self.timestamp = timestamp

    def _key(self) -> tuple[object, ...]:
        return (self.commit, self.changes, self.path, self.symbol, self.author, self.date)

    def __repr__(self) -> str:
        return (
            f"HistoryEntry(commit={self.commit!r}, changes={self.changes!r}, path={self.path!r}, "
            f"symbol={self.symbol!r}, author={self.author!r}, date={self.date!r})"
        )

    def to_dict(self) -> dict[str, object]:
        """The JSON shape of one commit."""
        return {
            "commit": self.commit,
            "changes": list(self.changes),
            "path": self.path,
            "symbol": self.symbol,
            "author": self.author,
            "date": self.date,
        }


# --------------------------------------------------------------------------- the walk


class State:
    """Where the symbol is in one version of a file.

    `header` is the text of the enclosing definitions' declarations (the lines from each one's
    start to its body) and `header_spans` their lines here: with the symbol's own lines they
    make a small source that parses to the same qualified symbol (see `Walker.snippet_step`).
    """

    __slots__ = ("path", "found", "start", "end", "headers", "header_spans", "header", "spot")

    def __init__(
        self,
        path: str,
        found: Found,  # the last parsed version of it (same code as here)
        start: int,
        end: int,
        headers: tuple[int, ...],  # start lines of the enclosing definitions
        header_spans: tuple[tuple[int, int], ...] = (),
        header: bytes | None = None,  # None: no usable header text (always parse the file)
        spot: Spot | None = None,  # where its text is in the file's bytes, when known
    ) -> None:
        self.path = path
        self.found = found
        self.start = start
        self.end = end
        self.headers = headers
        self.header_spans = header_spans
        self.header = header
        self.spot = spot

    def __repr__(self) -> str:
        return f"State({self.path!r}, {self.found.name!r}, {self.start}-{self.end})"

    @classmethod
    def of(cls, path: str, found: Found) -> State:
        sym, version = found.symbol, found.version
        outer = enclosing_definitions(version.symbols, sym.name)
        if version.language in _OBJECT_LANGUAGES:
            # Only those around it: a constructor function qualifies its prototype's methods
            # (`Minimatch.prototype.match = function`) without holding them, and a small source
            # read under its line would name what it holds for it (minimatch's older
            # `Minimatch.prototype.match = match` and `function match` below it). (A Go
            # method's type, declared apart from it, stays its header.)
            outer = [
                s for s in outer if s.start_byte <= sym.start_byte and s.end_byte >= sym.end_byte
            ]
        if not outer and sym.kind == "method":
            # A Rust method's qualifier is its `impl` block's type, a definition named for the
            # whole `impl Trait for Type` line: the blocks around it are its qualifiers (their
            # lines name it: axum renamed `Body` to `SseBody` on that line alone).
            outer = sorted(
                (
                    s
                    for s in version.symbols
                    if s.kind == "impl"
                    and s.start_line <= sym.start_line
                    and s.end_line >= sym.end_line
                    and s is not sym
                ),
                key=lambda s: (s.start_line, -s.end_line),
            )
        if not outer and sym.kind == "method" and version.language in _OBJECT_LANGUAGES:
            # A method of an object literal is named for what the object is assigned to
            # (`Response.prototype = {`, `module.exports = {`), a line of no definition: that
            # line, to the object's brace, is its header (koa turned `Response.prototype = {`
            # into `module.exports = {`, renaming every method in it on that line alone).
            span = _object_header(version, sym)
            if span is not None:
                text = b"".join(version.lines[span[0] - 1 : span[1]])
                return cls(path, found, sym.start_line, sym.end_line, (span[0],), (span,), text)
        headers = tuple(s.start_line for s in outer)
        spans: list[tuple[int, int]] = []
        header: bytes | None = b""
        source = version.source
        for enclosing in outer:
            body_line = source.count(b"\n", 0, enclosing.body_start) + 1
            # Python's body begins on the line after the colon; a brace body on its own line.
            last = body_line - 1 if version.language == "python" else body_line
            if enclosing.body_start >= enclosing.end_byte or last < enclosing.start_line:
                header = None
                break
            spans.append((enclosing.start_line, last))
            if header is not None:
                header += b"".join(version.lines[enclosing.start_line - 1 : last])
        return cls(path, found, sym.start_line, sym.end_line, headers, tuple(spans), header)

    def shifted(self, hunks: list[Hunk]) -> State:
        return State(
            self.path,
            self.found,
            _shift(self.start, hunks),
            _shift(self.end, hunks),
            tuple(_shift(h, hunks) for h in self.headers),
            tuple((_shift(a, hunks), _shift(b, hunks)) for a, b in self.header_spans),
            self.header,
        )


def _touches(state: State, hunks: list[Hunk]) -> bool:
    """Whether any hunk (new-side lines) touches the symbol's lines or its qualifiers'
    declarations (each one's lines up to its body, when known, else its first line: a class's
    name is below its annotations or decorators, commons-io renamed `FileUtilsTestCase` on the
    line under `@SuppressWarnings`). A hunk beside the symbol leaves its text whole: it is found
    by line shifting."""
    lo, hi = state.start, state.end
    spans = state.header_spans + tuple((h, h) for h in state.headers)
    for _, _, new_start, new_count in hunks:
        if new_count == 0:  # a deletion after line new_start
            if lo <= new_start <= hi - 1:
                return True
            if any(a - 1 <= new_start <= b for a, b in spans):
                return True
            continue
        last = new_start + new_count - 1
        if new_start <= hi and last >= lo:
            return True
        if any(new_start <= b and last >= a for a, b in spans):
            return True
    return False


def _snippet_edits(
    base: Version,
    header: int,
    start_line: int,
    end_line: int,
    undone: list[tuple[int, int, list[bytes]]],
    closer: int,
) -> list[tuple[int, int, bytes]]:
    """The edits that turn the newer snippet `base` (`header` bytes of enclosing declarations,
    its symbol on lines `start_line` to `end_line`, `closer` bytes of closing braces) into the
    older one `snippet_step` builds under the same header: lines beside the symbol dropped, each
    hunk's new lines replaced by its removed ones. As (start, end, text), base bytes [start,
    end) replaced by `text`, in order. (The parse checks that they give the older source, and
    reads it whole otherwise.)"""
    offsets = base.line_offsets()
    last = len(offsets) - 1

    def at(index: int) -> int:  # the base byte where `new_lines[index]` starts
        return offsets[min(start_line - 1 + index, last)]

    edits = [(header, at(0), b"")]  # lines the base had before the symbol
    for first, end, lines in undone:
        edits.append((at(first), at(end), b"".join(lines)))
    edits.append((offsets[min(end_line, last)], len(base.source) - closer, b""))  # and after it
    return [edit for edit in edits if edit[0] != edit[1] or edit[2]]


_OBJECT_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})


def _script_kin(a: str | None, b: str) -> bool:
    """Whether `a` is `b`'s language, JavaScript and TypeScript counting as one."""
    return a == b or {a, b} <= _OBJECT_LANGUAGES


def _object_header(version: Version, symbol: Symbol) -> tuple[int, int] | None:
    """(first, last) line of the assignment that names the object literal `symbol` is a
    method of, from its start to the object's brace (`module.exports = {`), when the object is
    assigned to a name or declared (`var proto = {`); else None."""
    tree = version.tree
    if tree is None:
        return None
    node = tree.root_node.descendant_for_byte_range(symbol.start_byte, symbol.start_byte)
    while node is not None and node.type not in ("pair", "method_definition"):
        node = node.parent
    literal = node.parent if node is not None else None
    if literal is None or literal.type != "object":
        return None
    owner = literal.parent
    if owner is None or owner.type not in ("assignment_expression", "variable_declarator"):
        return None
    statement = owner.parent
    if owner.type == "variable_declarator" and statement is not None:
        owner = statement  # `var proto = {`: from `var`
    first, last = owner.start_point[0] + 1, literal.start_point[0] + 1
    if last >= symbol.start_line:
        return None  # (the method on the brace's line: nothing to undo apart)
    return first, last


def _stretch_edits(
    newer: Version, first: int, old_lines: list[bytes], swapped: list[tuple[int, int, int, int]]
) -> list[tuple[int, int, bytes]]:
    """The edits of `newer`'s source (its symbol from line `first`) that swap the stretches
    back (see `Walker.fast_step`), in order."""
    offsets = newer.line_offsets()
    return [
        (offsets[first - 1 + new_lo], offsets[first - 1 + new_hi], b"".join(old_lines[lo:hi]))
        for lo, hi, new_lo, new_hi in swapped
    ]


def _deeper(code: bytes, indent: bytes) -> bool:
    """Whether every line of Python code in `code` is indented deeper than `indent` (then none
    of them ended the definition at `indent`)."""
    for line in code.split(b"\n"):
        if line.strip() and not (line.startswith(indent) and len(_indent(line)) > len(indent)):
            return False
    return True


def _unbraced(text: str) -> str:
    return text.replace("{", "").replace("}", "")


def _layout(code: bytes) -> list[tuple[bytes, bytes]]:
    """Python code's lines as (indentation, text without whitespace), blank lines left out:
    two stretches of the same layout have the same blocks."""
    return [(_indent(line), b"".join(line.split())) for line in code.split(b"\n") if line.strip()]


_CHECK_FAST = bool(os.environ.get("TETHER_CHECK_FAST"))


def _indent(line: bytes) -> bytes:
    return line[: len(line) - len(line.lstrip(b" \t"))]


def _attached(patch: Patch, cur: State, language: str) -> bool:
    """Whether a hunk just outside the symbol removed lines that may have been part of it:
    a decorator or annotation just above it, or (Python) statements of its body just below
    it. Comment lines and lines beyond a blank one are not part of a definition."""
    if patch.old_blob in (None, "same"):
        return False
    for index, (_, old_count, new_start, new_count) in enumerate(patch.hunks):
        if old_count == 0:
            continue
        end = new_start + new_count - 1 if new_count else new_start
        if end == cur.start - 1:
            for line in reversed(patch.old_lines(index)):
                text = line.strip()
                if not text:
                    break
                if not comment_line(text, language):
                    return True
        elif language == "python" and (
            new_start == cur.end + 1 or (end == cur.end and not new_count)
        ):
            lines = cur.found.version.lines
            head = lines[cur.found.symbol.start_line - 1] if lines else b""
            first = next((x for x in patch.old_lines(index) if x.strip()), None)
            if first is not None and indent_width(first) > indent_width(head):
                return True
    return language != "python" and _rewrapped(patch, cur)


def _rewrapped(patch: Patch, cur: State) -> bool:
    """Whether the hunks around the symbol, on one side of the diff, opened a block above it
    and closed one below it without touching its lines: a wrapper put around it or taken
    away (handlebars' `exports.attach = function(Handlebars) {...}` around its runtime's
    functions, their lines not indented), which changes its qualified name."""
    around: list[tuple[int, int]] = []  # (hunk, +1 above the symbol or -1 below it)
    for index, (_, _, new_start, new_count) in enumerate(patch.hunks):
        end = new_start + new_count - 1 if new_count else new_start
        if end < cur.start:
            around.append((index, 1))
        elif new_start > cur.end or (not new_count and new_start >= cur.end):
            around.append((index, -1))
    if len({where for _, where in around}) < 2:
        return False  # (most commits: nothing both above and below it; no line read)
    # Per side (removed, added): whether a hunk above opened a block, then whether one below
    # closed one; the hunks below are read only for a side where one above did.
    opened = [False, False]
    for index, where in around:
        if where == 1:
            nets = _brace_nets(patch, index)
            opened = [opened[0] or nets[0] > 0, opened[1] or nets[1] > 0]
    if not any(opened):
        return False
    for index, where in around:
        if where == -1:
            nets = _brace_nets(patch, index)
            if (opened[0] and nets[0] < 0) or (opened[1] and nets[1] < 0):
                return True
    return False


def _brace_nets(patch: Patch, index: int) -> tuple[int, int]:
    """The braces hunk `index` opened less those it closed, in the lines it removed and in
    those it added (read in one pass over the hunk's text)."""
    start, end = patch.bodies[index]
    text = patch.raw[start:end]
    if b"{" not in text and b"}" not in text:
        return 0, 0
    _, old_count, _, new_count = patch.hunks[index]
    removed = added = 0
    for line in text.split(b"\n"):
        sign = line[:1]
        if sign == b"-" and old_count:
            old_count -= 1
            removed += line.count(b"{") - line.count(b"}")
        elif sign == b"+" and new_count:
            new_count -= 1
            added += line.count(b"{") - line.count(b"}")
    return removed, added


def _shift(line: int, hunks: list[Hunk]) -> int:
    """Map a new-side line that no hunk touches to its old-side number."""
    delta = 0
    for _, old_count, new_start, new_count in hunks:
        end = new_start + new_count - 1 if new_count else new_start
        if end < line:
            delta += new_count - old_count
    return line - delta


def _inside(hunk: Hunk, first: int, last: int) -> bool:
    """Whether a hunk changes only lines strictly between `first` and `last` (which it keeps)."""
    _, _, new_start, new_count = hunk
    if new_count == 0:  # removed lines after new_start
        return first <= new_start < last
    return first < new_start and new_start + new_count - 1 < last


def _undo_in_header(
    patch: Patch, indices: list[int], cur: State
) -> tuple[bytes, tuple[tuple[int, int], ...]] | None:
    """The enclosing declarations' text and lines before `patch`, when each of the hunks
    `indices` lies within one declaration's lines (None otherwise)."""
    if cur.header is None:
        return None
    lines = cur.header.splitlines(keepends=True)
    parts: list[list[bytes]] = []
    at = 0
    for a, b in cur.header_spans:
        parts.append(lines[at : at + b - a + 1])
        at += b - a + 1
    if at != len(lines):
        return None
    for index in reversed(indices):
        _, _, new_start, new_count = patch.hunks[index]
        for k, (a, b) in enumerate(cur.header_spans):
            if (new_count == 0 and new_start == b) or (new_count and new_start == b + 1):
                break  # lines after the declaration (in its body): not part of it
            if new_count == 0 and a <= new_start < b:
                parts[k][new_start - a + 1 : new_start - a + 1] = patch.old_lines(index)
                break
            if new_count and a <= new_start and new_start + new_count - 1 <= b:
                parts[k][new_start - a : new_start - a + new_count] = patch.old_lines(index)
                break
        else:
            return None
    spans: list[tuple[int, int]] = []
    for (a, _), part in zip(cur.header_spans, parts, strict=True):
        start = _shift(a, patch.hunks)
        spans.append((start, start + len(part) - 1))
    return b"".join(b"".join(part) for part in parts), tuple(spans)


def _before_last(hunk: Hunk, last: int) -> bool:
    """Whether a hunk leaves line `last` and everything after it alone."""
    _, _, new_start, new_count = hunk
    if new_count == 0:  # removed lines after new_start
        return new_start < last
    return new_start + new_count - 1 < last


def _rewrites(hunks: list[Hunk], older: State, cur: State) -> bool:
    """Whether the hunks remove and add at least half of the symbol's lines, old and new
    together, or one version is under half the other's length (echo's `context.File`
    became a one-line call, its old lines kept in the diff as another function's): a cheap
    bound before comparing the versions (most changes touch a few lines)."""
    old_lines, new_lines = older.end - older.start + 1, cur.end - cur.start + 1
    if 2 * min(old_lines, new_lines) < max(old_lines, new_lines):
        return True
    changed = 0
    for old_start, old_count, new_start, new_count in hunks:
        changed += max(
            0, min(older.end, old_start + old_count - 1) - max(older.start, old_start) + 1
        )
        changed += max(0, min(cur.end, new_start + new_count - 1) - max(cur.start, new_start) + 1)
    return 2 * changed >= old_lines + new_lines


def _overlaps(hunk: Hunk, first: int, last: int) -> bool:
    _, _, new_start, new_count = hunk
    if new_count == 0:
        return first <= new_start < last
    return new_start <= last and new_start + new_count - 1 >= first


# Closing text appended after the symbol for each enclosing declaration, so that the small source
# parses without error.
_CLOSERS = {"python": b"", "c": b"\n};", "cpp": b"\n};"}


class Walker:
    """One symbol's walk back through history: `walk_file` from the symbol as of REV; the
    commits found are in `entries`, shallow-clone boundaries reached in `boundary`."""

    def __init__(
        self, root: StrPath, blobs: BlobReader, git_dir: StrPath | None = None, raw: bool = False
    ) -> None:
        self.root = root
        self.blobs = blobs
        self.raw = raw  # each file's log lists blobs, not diffs (see history_git.RAW_FROM_BYTES)
        self.entries: dict[str, HistoryEntry] = {}
        self.shallow = shallow_commits(root, git_dir)
        self.boundary: list[str] = []
        # Files the symbol came from (commit before the move, the symbol there), to walk next.
        self.arrivals: list[tuple[str, State, FileLog | None]] = []
        # The commit and file whose diff `step` is reading, for the check that looks at the
        # commit's other files (see `went_to_another_file`).
        self.reading: tuple[str, str] | None = None
        # Logs started ahead of the walk, by (commit, path), and the renames found for them.
        self.early: dict[tuple[str, str], FileLog] = {}
        self.changes: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        self._built: dict[str, set[str]] = {}  # per commit: see `built`
        # What commits changed (renames found), asked of one git process for the whole walk.
        self.tree = TreeChanges(root)
        # Commits' recorded parents, for merges a file's log shows with fewer (see
        # `kept_by_a_dropped_parent`).
        self.recorded = ParentReader(root)
        # Renames asked by `start_renamed`, read by `finish_renamed`: (parent, commit, the
        # file's path then).
        self.pending: dict[tuple[str, str, str], None] = {}

    def record(self, commit: Commit, kinds: list[str], state: State) -> None:
        """Note `commit` as a change of the symbol (the first kinds noted for it stay)."""
        if not kinds or commit.sha in self.entries:
            return
        order = [k for k in CHANGE_KINDS if k in kinds]
        self.entries[commit.sha] = HistoryEntry(
            commit=commit.sha,
            changes=tuple(order),
            path=state.path,
            symbol=state.found.name,
            author=commit.author,
            date=commit.date,
            timestamp=commit.timestamp,
        )

    def walk_file(
        self,
        rev: str,
        state: State,
        visited: set[tuple[str, str]],
        log: FileLog | None = None,
    ) -> None:
        """Follow `state` (the symbol as of REV) back through the commits that touched its file,
        then through the files it came from (each once its file's walk is over, so that git is
        walking one file's history at a time)."""
        files: list[tuple[str, State, FileLog | None]] = [(rev, state, log)]
        try:
            while files:
                self._walk_one(*files.pop(), visited)
                files.extend(reversed(self.arrivals))
                self.arrivals.clear()
        finally:
            self.close()

    def close(self) -> None:
        """Stop the logs started ahead that the walk did not use."""
        for early in self.early.values():
            early.close()
        self.early.clear()
        self.pending.clear()
        self.tree.close()
        self.recorded.close()

    def start_renamed(self, log: FileLog, path: str) -> None:
        """Start the walk of the file PATH was renamed from, before the walk gets there: when
        git's log of PATH has already shown the commit that added it (the log stops there),
        and git's rename detection in that commit names the old file. Both walks then run
        side by side (the one started here is used if the walk arrives at that file then).
        Here git is asked for the renames; `finish_renamed` reads them (the current version
        is parsed in between)."""
        log.poll()
        for commit in log.added():
            parents = self.blobs.parents(commit.sha)
            if len(parents) != 1:
                continue
            key = (parents[0], commit.sha, path)
            if (parents[0], commit.sha) not in self.changes and key not in self.pending:
                self.pending[key] = None
                self.tree.ask(parents[0], commit.sha)

    def finish_renamed(self, log: FileLog, path: str, wait: bool = True) -> None:
        """The second half of `start_renamed`: the logs of the files renamed to PATH, also for
        an added commit the log has shown since (the walk of a file's older name is the longest
        wait of many histories: git's diffs of each commit that touched it). Without `wait`,
        only what git has answered by now (it is called while the current version is parsed:
        see `Version.while_parsing`)."""
        self.start_renamed(log, path)
        for parent, sha, named in list(self.pending):
            if not wait and not self.tree.answered(parent, sha):
                continue
            del self.pending[(parent, sha, named)]
            changes = self.changes.setdefault((parent, sha), self.tree.result(parent, sha))
            for status, old_path, new_path in changes:
                if status.startswith("R") and new_path == named and language_for_path(old_path):
                    key = (parent, old_path)
                    if key not in self.early:
                        self.early[key] = FileLog(self.root, parent, old_path, self.raw)

    def changes_of(self, parent: str, sha: str) -> list[tuple[str, str, str]]:
        """What commit `sha` changed against `parent` (renames found), asked of git once."""
        found = self.changes.get((parent, sha))
        if found is None:
            found = self.changes[(parent, sha)] = self.tree.result(parent, sha)
        return found

    def _walk_one(
        self, rev: str, state: State, log: FileLog | None, visited: set[tuple[str, str]]
    ) -> None:
        path = state.path
        language = language_for_path(path) or state.found.version.language
        given = log is not None
        log = log or self.early.pop((rev, path), None) or FileLog(self.root, rev, path, self.raw)
        merges = PathDiffs(self.root, path)
        try:
            tip = log.first()
            if tip is None and given:
                # A log started early (from the user's directory, before the repository was
                # located) that found nothing, though the file is there: ask again from here.
                log.close()
                log = FileLog(self.root, rev, path, self.raw)
                tip = log.first()
            if tip is not None:
                log.on_merge(merges.prefetch)
                self._walk(log, tip, merges, state, language, visited)
        finally:
            log.close()
            merges.close()

    def _walk(
        self,
        log: FileLog,
        tip: str,
        merges: PathDiffs,
        state: State,
        language: str,
        visited: set[tuple[str, str]],
    ) -> None:
        path = state.path
        # The first listed commit is the tip of the simplified history; REV itself may not have
        # touched the file, in which case its content is the tip's.
        stack: list[tuple[str, State]] = [(tip, state)]
        walked = 0
        while stack:
            sha, cur = stack.pop()
            if (sha, path) in visited:
                continue
            visited.add((sha, path))
            commit = log.get(sha)
            if commit is None:
                continue
            # The older versions the walk will most likely read next, read out of git meanwhile.
            walked += 1
            if walked % PREFETCH == 1:
                if log.raw:
                    log.poll()
                upcoming = log.upcoming(walked, 2 * PREFETCH)
                if log.raw:
                    self.blobs.prefetch(
                        [blob for c in upcoming if c.patch.lazy and (blob := c.patch.old_blob)]
                    )
                # (Their recorded parents, asked for each change: see `kept_by_a_dropped_parent`.)
                self.recorded.prefetch([c.sha for c in upcoming if len(c.parents) == 1])
            if len(commit.parents) > 1:
                stack.extend(self.merge(commit, cur, merges, language))
                continue
            if commit.old_blob is None:  # the file appears here (or is written back)
                resume = self.origin(commit, cur, log)
                if resume is not None:
                    stack.append(resume)
                continue
            parent = commit.parents[0] if commit.parents else None
            if parent is None and sha in self.shallow:
                self.boundary.append(sha)
                continue
            if commit.old_blob == "same":  # a mode change only
                if parent is not None:
                    stack.append((parent, cur))
                continue
            if commit.patch.lazy:
                kept = self.kept(commit.patch, cur, language)
                if kept is not None:
                    if parent is not None:
                        stack.append((parent, kept))
                    continue
                if parent is None:
                    continue
                commit.patch = merges.diff(sha, parent)
            attached = _attached(commit.patch, cur, language)
            if commit.old_blob == "same" or not (attached or _touches(cur, commit.hunks)):
                if parent is not None:
                    stack.append((parent, cur.shifted(commit.hunks)))
                continue
            self.reading = (sha, path)
            try:
                step = self.step(commit.patch, cur, language, whole=attached)
            finally:
                self.reading = None
            if step is None:
                resume = self.origin(commit, cur, log)
                if resume is not None:
                    stack.append(resume)
                continue
            kinds, older = step
            replaced = (
                self.replaced_from(sha, cur, older)
                if kinds and _rewrites(commit.hunks, older, cur)
                else None
            )
            if replaced is not None:
                # Rewritten here as a copy of its namesake from a file the commit deleted: that
                # one is its earlier version, this file's older one ends here (echo made
                # context_fs.go what context_fs_go1.16.go was, and deleted that file).
                self.arrived(commit, "move", cur, *replaced)
                continue
            swapped = (
                self.file_replaced(sha, commit.patch, cur)
                if kinds
                and (older.found.name != cur.found.name or _rewrites(commit.hunks, older, cur))
                else None
            )
            if swapped is not None:
                self.record(commit, ["file-rename"], cur)
                self.arrivals.append(swapped)
                continue
            if older.found.name != cur.found.name and self.renamed_one_went_on(
                sha, older.found, cur
            ):
                # The definition it seemed renamed from went whole, under its name, into
                # another file the commit wrote it into: that is where it went on, and this one
                # is new here (markdown's ba147ca9 moved `MarkdownParser` into a legacy
                # extension and wrote `BlockParser` in its place, 0.5 alike).
                self.origin(commit, cur)
                continue
            if older.found.short_name != cur.found.short_name and self.namesake_moved_here(
                sha, cur, older.found
            ):
                # A definition of this name left another file in this commit: the symbol moved
                # here, and the one of another name that vanished beside it was merged into it
                # (jsoup's `Element.nameIs` went to Node, where the alike `isNode` was dropped).
                self.origin(commit, cur)
                continue
            if kinds and self.kept_by_a_dropped_parent(commit, cur):
                # A merge git shows against one parent only (the other lacks the file's path):
                # the other has the symbol as it is, under the file's older path.
                kinds = []
            self.record(commit, kinds, cur)
            if parent is not None:
                stack.append((parent, older))

    def kept_by_a_dropped_parent(self, commit: Commit, cur: State) -> bool:
        """Whether `commit` is a merge whose log shows fewer parents than it has (`--remove-
        empty` drops one without the file), and a dropped one has the file under another path
        that git pairs with it, holding the symbol unchanged: the merge only brought that side
        in (request's b4c4c28 merged main.js's edit into the line that had renamed it index.js).
        That side's walk is then that path's (queued here)."""
        parents = self.recorded.parents(commit.sha)
        if len(parents) < 2 or len(commit.parents) >= len(parents):
            return False
        kept = False
        for parent in parents:
            if parent in commit.parents:
                continue
            renamed = self.renamed_in_merge(commit.sha, parent, cur)
            if renamed is not None and not renamed[0]:
                self.arrivals.append((parent, renamed[1], None))
                kept = True
        return kept

    def restored(
        self, log: FileLog, commit: Commit, cur: State
    ) -> tuple[list[str], str, State] | None:
        """When a commit before `commit` in the file's history (one of the RESTORED_LOOKBACK
        before it) deleted the symbol, which `commit` wrote back (a method removed by mistake
        and restored: clap's `Help.sc_spec_vals`, gone in 82e8a47f for one commit; peewee's
        rewrite of sqlite_ext.py dropped `FTS5Model.search_bm25`, written back word for word
        eleven commits later): (what `commit` changed against the deleted text, the commit to
        go on from, the symbol there). Neither the deletion nor an unchanged restoration is a
        change of it. None otherwise (the text written back must be at least
        RESTORED_SIMILARITY like the deleted one, its declaration line the same). A commit
        whose diff removed no line naming the symbol is passed over unread."""
        if len(commit.parents) != 1:
            return None
        name = cur.found.short_name.encode()
        declared = _declaration_line(cur)
        parses = 2
        at = commit
        for _ in range(RESTORED_LOOKBACK):
            deleting = log.get(at.parents[0])
            if deleting is None or len(deleting.parents) != 1:
                return None
            blob = deleting.old_blob
            if blob is None:  # the file was added there
                return None
            patch = deleting.patch
            if (
                blob != "same"
                and (patch.lazy or name in _diff_side(patch.raw, b"-"))
                and declared in self.blobs.peek(blob)
            ):
                parses -= 1
                if parses < 0:
                    return None
                before = self.blobs.version(blob, cur.found.version.language)
                if any(s.name == cur.found.name for s in before.symbols):
                    back = _written_back(before, cur, same_name=True)
                    if back is None:
                        return None
                    return back[0], deleting.parents[0], State.of(cur.path, back[1])
            at = deleting
        return None

    def written_back(
        self, sha: str, parent: str, cur: State
    ) -> tuple[list[str], str, State] | None:
        """When the file, missing at `parent`, was added by the commit after it with the symbol
        that an earlier commit deleted, written back at least RESTORED_SIMILARITY alike: (what
        the commit changed of it, the commit the walk goes on from, the symbol there); None
        otherwise. Two such deletions, the nearer first:
        - `parent`, or one of the TWO_COMMIT_WINDOW commits up to it along first parents,
          deleted another file holding the symbol: moved in two commits (cheerio's
          3a08b06c deleted lib/api/parse.js, and aac4ec44, "moved parse" seven seconds later,
          wrote its `exports.parse.update` into the new lib/parse.js as `exports.update`).
          When git pairs the two files as a rename across both commits (at `LOOSE_RENAME`, as
          for a move within one commit), the whole file went to the new path: a file-rename
          (golang-lru's 6907130 deleted arc.go, and e456a3e added arc/arc.go, changed only
          in its package line; yaml's ca3d523, "goyaml is now yaml.", deleted goyaml.go, and
          5e76f7c, "Added missing yaml.go file", five commits later, added yaml.go);
        - this path's earlier life ended in a deletion (commons-text removed
          RandomStringGenerator.java for its 1.0 release and restored it, byte for byte, 114
          commits later). The file's own log stops where the file was added
          (`--remove-empty`): one more `git rev-list` finds the deletion. A file renamed away
          lived on under its new name, and is not looked at."""
        language = cur.found.version.language
        name = cur.found.short_name.encode()
        deleter = parent
        for _ in range(TWO_COMMIT_WINDOW):
            grand = self.blobs.parents(deleter)
            if not grand:
                break
            others: list[str] = []  # deleted files of its kind where it was not found so
            for status, old_path, _ in self.changes_of(grand[0], deleter):
                there = language_for_path(old_path)
                if (
                    status != "D"
                    or old_path == cur.path  # (written back: below)
                    or (not _script_kin(there, language))
                ):
                    continue
                got = self.blobs.read(f"{grand[0]}:{old_path}")
                if got is None or name not in got[1]:
                    others.append(old_path)
                    continue
                before = self.blobs.version_at(grand[0], old_path, language)
                back = _written_back(before, cur) if before is not None else None
                if back is not None:
                    kinds, found = back
                    renamed = ["rename"] if found.name != cur.found.name else []
                    how = (
                        "file-rename"
                        if paired_with(self.root, grand[0], sha, [old_path], cur.path) == old_path
                        else "move"
                    )
                    return [how, *kinds, *renamed], grand[0], State.of(old_path, found)
                others.append(old_path)
            # A deleted file git pairs with this one across the commits: the file was renamed
            # in two commits, and the symbol is looked for in it as in a rename (luxon's
            # c0299464 deleted weeks.js, and 9822db63, "add missing file", added
            # conversions.js, where `Weeks.toGregorian` became `Conversions.weekToGregorian`).
            paired = (
                paired_with(self.root, grand[0], sha, others[:TWO_COMMIT_FILES], cur.path)
                if others
                else None
            )
            if paired is not None:
                before = self.blobs.version_at(grand[0], paired, language)
                match = (
                    self.locate(cur.found, before, self.blobs.version_at(sha, cur.path))
                    if before is not None
                    else None
                )
                if match is not None:
                    kinds = differences(match, cur.found)
                    renamed = ["rename"] if match.name != cur.found.name else []
                    return ["file-rename", *kinds, *renamed], grand[0], State.of(paired, match)
            if len(grand) > 1:
                dropped = self.dropped_in_merge(deleter, grand, sha, cur)
                if dropped is not None:
                    return dropped
            deleter = grand[0]
        deleting = last_touched(self.root, parent, cur.path)
        if deleting is None:
            return None
        parents = self.blobs.parents(deleting)
        if len(parents) != 1:
            return None
        got = self.blobs.read(f"{parents[0]}:{cur.path}")
        if got is None or _declaration_line(cur) not in got[1]:
            return None
        if ("D", cur.path, cur.path) not in self.changes_of(parents[0], deleting):
            return None
        before = self.blobs.version_at(parents[0], cur.path, language)
        back = _written_back(before, cur, same_name=True) if before is not None else None
        if back is None:
            return None
        return back[0], parents[0], State.of(cur.path, back[1])

    def dropped_in_merge(
        self, merge: str, parents: list[str], sha: str, cur: State
    ) -> tuple[list[str], str, State] | None:
        """When `merge` (one of the commits up to the one before `sha`, which added the file)
        left out a file of the symbol's file name that another of its parents had, holding the
        symbol at least RESTORED_SIMILARITY alike: the file moved in two commits, across the
        merge (what `sha` changed of it, the parent to go on from, the symbol there). A
        repository merged into another: crossbeam's ac2f9a61 merged crossbeam-skiplist's
        history keeping only its own tree, and d9b1e342, "Merge remaining subcrates", added
        its src/base.rs as crossbeam-skiplist/src/base.rs. A file the merge kept as that parent
        had it was merged in, not moved. Lists those parents' trees: asked only where a
        history would end at a file added within TWO_COMMIT_WINDOW commits of a merge."""
        language = cur.found.version.language
        name = cur.found.short_name.encode()
        stem, extension = os.path.splitext(os.path.basename(cur.path))
        for other in parents[1:]:
            for path in files_named(self.root, other, {stem}):
                if path == cur.path or not path.endswith(extension):
                    continue
                got = self.blobs.read(f"{other}:{path}")
                if got is None or name not in got[1]:
                    continue
                kept = self.blobs.read(f"{merge}:{path}")
                if kept is not None and kept[1] == got[1]:
                    continue
                before = self.blobs.version_at(other, path, language)
                back = _written_back(before, cur) if before is not None else None
                if back is not None:
                    kinds, found = back
                    renamed = ["rename"] if found.name != cur.found.name else []
                    return ["file-rename", *kinds, *renamed], other, State.of(path, found)
        return None

    def kept(self, patch: Patch, cur: State, language: str) -> State | None:
        """The symbol in the parent's file when its text shows it unchanged there (see
        `anchors.history_text`); None when that is not certain (the diff then decides)."""
        if patch.new_blob is None or patch.old_blob is None:
            return None
        if cur.header is None or len(cur.header_spans) != len(cur.headers):
            return None
        new = self.blobs.peek(patch.new_blob)
        spot = cur.spot
        if spot is None or spot[0] != patch.new_blob:
            spot = spot_of(new, patch.new_blob, cur.start, cur.end, cur.header_spans)
            if spot is None:
                return None
        old = self.blobs.peek(patch.old_blob)
        there = find_unchanged(new, spot, old, patch.old_blob, language)
        if there is None:
            return None
        _, sym_a, _, headers = there
        lines: list[tuple[int, int]] = []
        base = (0, 1)
        for (ha, _), (first, last) in zip(headers, cur.header_spans, strict=True):
            line = line_of(old, ha, base)
            base = (ha, line)
            lines.append((line, line + last - first))
        start = line_of(old, sym_a, base)
        return State(
            cur.path,
            cur.found,
            start,
            start + cur.end - cur.start,
            tuple(first for first, _ in lines),
            tuple(lines),
            cur.header,
            there,
        )

    def step(
        self, patch: Patch, cur: State, language: str, whole: bool = False
    ) -> tuple[list[str], State] | None:
        """Through a diff that touches the symbol: (change kinds, the symbol before it), or None
        when the symbol was not in the file before. `whole`: read the whole parent file."""
        if not whole:
            fast = self.fast_step(patch, cur, language)
            if fast is not None:
                if _CHECK_FAST:
                    self._check_fast(fast, patch, cur, language)
                return fast
        older = None if whole else self.snippet_step(patch, cur, language)
        if older is not None:
            return differences(older.found, cur.found), older
        assert patch.old_blob is not None
        if not whole and self._added_to(patch, cur):
            return None
        base = cur.found.version if not cur.found.version.snippet else None
        old = self.blobs.version(patch.old_blob, language, base=base)
        blob = patch.new_blob
        new = self.blobs.version(blob, language, base=base) if blob else None
        if base is None and blob and new is not None:
            # Whichever of the two is parsed second re-parses only around the commit's changes.
            old.lean_on(new, lambda: patch.edits(new.source, forward=False))
            new.lean_on(old, lambda: patch.edits(old.source, forward=True))
        match = self.locate(cur.found, old, new, patch)
        if match is None:
            return None
        kinds = differences(match, cur.found)
        if match.name != cur.found.name:
            kinds.insert(0, "rename")
        return kinds, State.of(cur.path, match)

    def fast_step(self, patch: Patch, cur: State, language: str) -> tuple[list[str], State] | None:
        """`snippet_step` and the comparison of the two versions without a parse, when the
        patch changed only plain lines strictly inside the symbol's body (see
        `anchors.history_lexical`): the symbol before it is the symbol after it with those
        lines swapped back (a `Version` parsed only if a later step needs its tree), and its
        code changed when the code of the lines from the first changed to the last did."""
        if cur.header is None or patch.old_blob in (None, "same"):
            return None
        version, sym = cur.found.version, cur.found.symbol
        header = cur.header
        # The newer version must be a small source that parsed to the symbol (a header that
        # does not parse so, e.g. a Rust struct's line taken for its `impl`'s, is read whole).
        if (
            sym.body_start >= sym.end_byte
            or not version.snippet
            or sym.start_line != header.count(b"\n") + 1
            or not version.source.startswith(header)
        ):
            return None
        source = version.source
        body_at = cur.start + source.count(b"\n", sym.start_byte, sym.body_start)
        hunks = patch.hunks
        touching: list[int] = []
        for index, hunk in enumerate(hunks):
            if any(_overlaps(hunk, a, b) for a, b in cur.header_spans):
                return None
            if _overlaps(hunk, cur.start, cur.end + 1):
                if not _inside(hunk, body_at, cur.end):
                    return None
                touching.append(index)
        if not touching:
            return None
        new_lines = version.lines[sym.start_line - 1 : sym.end_line]
        if len(new_lines) != cur.end - cur.start + 1:
            return None
        # The older lines, and each swapped stretch as (first, end) there and (first, end) in
        # the newer lines, counted from the symbol's first line.
        old_lines: list[bytes] = []
        swapped: list[tuple[int, int, int, int]] = []
        at = 0
        for index in touching:
            _, _, new_start, new_count = hunks[index]
            rel = new_start - cur.start + (0 if new_count else 1)
            old_lines += new_lines[at:rel]
            removed = patch.old_lines(index)
            swapped.append((len(old_lines), len(old_lines) + len(removed), rel, rel + new_count))
            old_lines += removed
            at = rel + new_count
        old_lines += new_lines[at:]
        kinds = self._fast_kinds(version, sym, language, old_lines, new_lines, swapped)
        if kinds is None:
            return None
        from anchors.symbols import Symbol

        spans = tuple((_shift(a, hunks), _shift(b, hunks)) for a, b in cur.header_spans)
        # What follows the symbol in the newer source (the enclosing declarations' closers):
        # the older source is the newer one with the stretches swapped back, nothing else.
        after = version.lines[sym.end_line :]
        body = b"".join(old_lines)
        start_byte = len(header) + sym.start_byte - (source.rfind(b"\n", 0, sym.start_byte) + 1)
        tail = len(new_lines[-1]) - (sym.end_byte - (source.rfind(b"\n", 0, sym.end_byte) + 1))
        first = header.count(b"\n") + 1
        symbol = Symbol(
            sym.name,
            sym.kind,
            first,
            first + len(old_lines) - 1,
            start_byte,
            len(header) + len(body) - tail,
            start_byte + sym.body_start - sym.start_byte,
        )
        older = Version(
            "", header + body + b"".join(after), language, snippet=True, depth=len(spans) + 1
        )
        # Parsed (if ever) from the newer one's tree, told the stretches swapped back.
        older.lean_on(version, lambda: _stretch_edits(version, sym.start_line, old_lines, swapped))
        older.fast = (version, sym.start_line, first, swapped)
        older.lines_are(version.lines[: sym.start_line - 1] + old_lines + after)
        start = _shift(cur.start, hunks)
        state = State(
            cur.path,
            Found(symbol, older),
            start,
            start + len(old_lines) - 1,
            tuple(_shift(h, hunks) for h in cur.headers),
            spans,
            header,
        )
        return kinds, state

    @staticmethod
    def _fast_kinds(
        version: Version,
        sym: Symbol,
        language: str,
        old_lines: list[bytes],
        new_lines: list[bytes],
        swapped: list[tuple[int, int, int, int]],
    ) -> list[str] | None:
        """Whether the swapped stretches changed the symbol's code (`["body"]` or `[]`), read
        stretch by stretch; None when one is not plain or the answer needs the parse. The code
        between two stretches is the same on both sides and read alike (each stretch leaves it
        as it found it), so the body's flat text differs where some stretch's does; exactly so
        when one stretch differs, or when the stretches' texts together differ in length (two
        that differ in the same length might have swapped text around the one between)."""
        own = sym.short_name
        indent = _indent(new_lines[0])
        differing = 0
        lengths = [0, 0]
        for lo, hi, new_lo, new_hi in swapped:
            old_code = code_of(old_lines[lo:hi], language)
            new_code = code_of(new_lines[new_lo:new_hi], language)
            if old_code is None or new_code is None or old_code[1] != new_code[1]:
                return None
            if not plain_at(version, sym.start_line + new_lo):
                return None
            if language == "python" and not _deeper(old_code[0], indent):
                return None
            try:
                old_code[0].decode("utf-8")
            except UnicodeDecodeError:
                return None
            before, after = flat_text(old_code[0], own), flat_text(new_code[0], own)
            if language == "python":
                # Python's blocks are in its flat text as braces: without any brace the texts
                # differ only if the code does; the same tokens in another layout may be other
                # blocks (the parse tells).
                before, after = _unbraced(before), _unbraced(after)
                if before == after and _layout(old_code[0]) != _layout(new_code[0]):
                    return None
            differing += before != after
            lengths[0] += len(before)
            lengths[1] += len(after)
        if not differing:
            return []
        if differing == 1 or lengths[0] != lengths[1]:
            return ["body"]
        return None

    def _check_fast(
        self, fast: tuple[list[str], State], patch: Patch, cur: State, language: str
    ) -> None:
        """`TETHER_CHECK_FAST=1`: what the parse says of a step `fast_step` took, told on
        stderr where it differs."""
        import sys

        kinds, state = fast
        made = state.found.version
        parsed = Version("", made.source, language, depth=made.depth)
        if state.found.symbol not in parsed.symbols or parsed.has_error:
            print(f"FAST UNPARSED {state.found.name} {state.found.symbol!r}", file=sys.stderr)
        slow = self.snippet_step(patch, cur, language)
        where = f"{self.reading[0][:12] if self.reading else '?'} {cur.found.name}"
        if slow is None:  # the file's whole version, as the walk reads it then
            whole = self.step(patch, cur, language, whole=True)
            if whole is None or (whole[0], whole[1].start, whole[1].end) != (
                kinds,
                state.start,
                state.end,
            ):
                print(f"FAST MISMATCH (whole) {where}: {kinds} {whole}", file=sys.stderr)
            return
        got = (kinds, state.start, state.end, state.headers, state.header_spans, state.header)
        want = (
            differences(slow.found, cur.found),
            slow.start,
            slow.end,
            slow.headers,
            slow.header_spans,
            slow.header,
        )
        symbol, other = state.found.symbol, slow.found.symbol
        if got != want or symbol._key() != other._key():
            print(f"FAST MISMATCH {where}: {got[:3]} {symbol!r} != {want[:3]} {other!r}",
                  file=sys.stderr)  # fmt: skip

    def _added_to(self, patch: Patch, cur: State) -> bool:
        """Whether the symbol was not in the parent's file, known without parsing that file: the
        commit only added lines to it (so no definition there vanished or was renamed), the
        symbol's among them, and the parent's text lacks the symbol's name or the newer file's
        other definitions of that name are all in the added lines. The commit where a function
        was written into an existing file: its whole text (often large) need not be parsed
        twice to find nothing."""
        if not patch.hunks or any(old_count for _, old_count, _, _ in patch.hunks):
            return False
        added = [(start, start + count) for _, _, start, count in patch.hunks]
        if not any(a <= cur.start and cur.end < b for a, b in added):
            return False  # (some of its lines were there before)
        name = cur.found.short_name
        if name.encode() not in self.blobs.peek(patch.old_blob or ""):
            return True
        version = cur.found.version
        if version.snippet:
            return False
        return not any(
            sym.short_name == name
            and sym is not cur.found.symbol
            and not any(a <= sym.start_line and sym.end_line < b for a, b in added)
            for sym in version.symbols
        )

    def snippet_step(self, patch: Patch, cur: State, language: str) -> State | None:
        """The symbol before `patch`, without reading or parsing the whole file, when the patch
        left its last line alone: its old lines are its new lines with the hunks undone (a hunk
        over its first lines, e.g. a changed signature, is undone whole), and they are parsed
        alone under the enclosing declarations (as they were: a hunk within one of those, e.g.
        a class's new base, is undone there too). None when that does not apply or the small
        source does not parse to the same symbol, ending on the same line (then the whole file
        is read)."""
        if cur.header is None or patch.old_blob in (None, "same"):
            return None
        hunks = patch.hunks
        touching: list[int] = []
        in_header: list[int] = []
        open_end = False
        for index, hunk in enumerate(hunks):
            if any(_overlaps(hunk, a, b) for a, b in cur.header_spans):
                if _overlaps(hunk, cur.start, cur.end + 1):
                    return None
                in_header.append(index)
                continue
            if _overlaps(hunk, cur.start, cur.end + 1):
                # A hunk over the last line: where the old symbol ended is known only from
                # the lines after it, which Python's indentation tells (checked below).
                if not _before_last(hunk, cur.end):
                    if language != "python":
                        return None
                    open_end = True
                touching.append(index)
        version, sym = cur.found.version, cur.found.symbol
        new_lines = version.lines[sym.start_line - 1 : sym.end_line]
        if len(new_lines) != cur.end - cur.start + 1:
            return None
        # The first old line of the region: where a hunk over the first line began.
        old_first = _shift(cur.start, hunks)
        first_kept = True
        if touching:
            old_start, old_count, new_start, _ = hunks[touching[0]]
            if new_start <= cur.start and not _inside(hunks[touching[0]], cur.start, cur.end):
                old_first = old_start + (0 if old_count else 1)
                first_kept = False
        # A hunk over the first lines: the line above it (unchanged) must not be a decorator or
        # an attribute, which would have belonged to the old definition too.
        if not first_kept and not self._free_above(patch, hunks[touching[0]][2]):
            return None
        old_lines: list[bytes] = []
        # Each hunk undone, as (first, end, lines): `new_lines[first:end]` replaced by `lines`.
        undone_hunks: list[tuple[int, int, list[bytes]]] = []
        at = cur.start  # the next new-side line to copy
        for index in touching:
            _, _, new_start, new_count = hunks[index]
            upto = new_start if new_count else new_start + 1
            lo, hi = max(at, cur.start) - cur.start, max(upto - cur.start, 0)
            old_lines += new_lines[lo:hi]
            removed = patch.old_lines(index)
            old_lines += removed
            at = max(at, new_start + new_count if new_count else new_start + 1)
            undone_hunks.append((max(lo, hi), max(at - cur.start, lo, hi), removed))
        old_lines += new_lines[at - cur.start :]
        if not old_lines or not old_lines[-1].endswith(b"\n"):
            return None
        header, spans = cur.header, cur.header_spans
        headers = tuple(_shift(h, hunks) for h in cur.headers)
        spans = tuple((_shift(a, hunks), _shift(b, hunks)) for a, b in spans)
        if in_header:  # an enclosing declaration changed (e.g. a class's bases): undo it there
            undone = _undo_in_header(patch, in_header, cur)
            if undone is None:
                return None
            header, spans = undone
            headers = tuple(a for a, _ in spans)
        depth = len(spans)
        closer = _CLOSERS.get(language, b"\n}") * depth
        source = header + b"".join(old_lines) + closer
        # Parsed incrementally from the newer snippet: the two differ only in the hunks, each
        # told to tree-sitter as an edit of its own (one edit from the first difference to the
        # last would re-parse most of a long symbol changed at both ends).
        base = version if version.snippet else None
        edits = None
        if base is not None and not in_header:
            edits = _snippet_edits(
                base, len(header), sym.start_line, sym.end_line, undone_hunks, len(closer)
            )
        # (nothing nested in the symbol is looked for)
        snippet = Version("", source, language, base, snippet=True, edits=edits, depth=depth + 1)
        first = header.count(b"\n") + 1
        last = first + len(old_lines) - 1
        hits = [s for s in snippet.symbols if s.name == cur.found.name]
        if len(hits) != 1 or snippet.has_error:
            return None
        hit = hits[0]
        if hit.start_line < first or (first_kept and hit.start_line != first):
            return None
        if language == "python" and _indent(snippet.lines[hit.start_line - 1]) != _indent(
            version.lines[sym.start_line - 1]
        ):
            # Under the same enclosing declarations a Python definition keeps its indentation:
            # old lines indented otherwise were under another one, which the small source lacks
            # (a class removed and its methods made functions, the class line outside the hunk:
            # its method parses alone as a function of the same name).
            return None
        if open_end:
            end_hunk = hunks[touching[-1]]
            after = end_hunk[2] + end_hunk[3] if end_hunk[3] else end_hunk[2] + 1
            indent = _indent(snippet.lines[hit.start_line - 1])
            if hit.end_line > last or not self._closes(patch, after, indent):
                return None
        elif hit.end_line != last:
            return None
        return State(
            cur.path,
            Found(hit, snippet),
            old_first + hit.start_line - first,
            old_first + hit.end_line - first,
            headers,
            spans,
            header,
        )

    def _free_above(self, patch: Patch, line: int) -> bool:
        """Whether the line above `line` in the patch's new file is not a decorator, annotation
        or attribute (nor the file's start)."""
        if line <= 1:
            return True
        if not patch.new_blob:
            return False
        lines = self.blobs.raw(patch.new_blob).split(b"\n", line - 1)
        if len(lines) < line:
            return False
        above = lines[line - 2].lstrip(b" \t")
        return not above.startswith((b"@", b"#["))

    def _closes(self, patch: Patch, line: int, indent: bytes) -> bool:
        """Whether the first code line from `line` on in the patch's new file (unchanged, so
        the same in the old one) is indented no deeper than `indent`: then a Python definition
        at `indent` ended before it in both versions."""
        if not patch.new_blob:
            return False
        # New lines a hunk wrote are not the old file's: there nothing is known.
        changed = [(c, c + d) for _, _, c, d in patch.hunks if d]
        for number, text in enumerate(
            self.blobs.raw(patch.new_blob).split(b"\n")[line - 1 :], start=line
        ):
            if any(first <= number < end for first, end in changed):
                return False
            code = text.lstrip(b" \t")
            if not code.strip() or code.startswith(b"#"):
                continue
            return indent.startswith(text[: len(text) - len(code)])
        return True

    def locate(
        self, target: Found, old: Version, new: Version | None, patch: Patch | None = None
    ) -> Found | None:
        """The symbol in the parent's file that `target` came from: same name, else a rename."""
        for sym in old.symbols:
            if sym.name == target.name:
                if bodied(sym) != bodied(target.symbol):
                    # (A declaration without a body is no earlier version of a definition
                    # with one: digester's RulesBinder, an interface made a class, its
                    # `forPattern` given the code there first; a TypeScript overload's
                    # signature beside its implementation is passed over.)
                    continue
                constructor = _class_constructor(target, sym, old)
                if constructor is not None:
                    return constructor
                namesake = Found(sym, old)
                passed = _passed_on(namesake, target, old, new) or _swapped_in(
                    namesake, target, old, new, patch
                )
                if passed is None and _went_to_renamed_class(namesake, target, old, new, patch):
                    return None  # (its code is the renamed class's: see `_in_renamed_class`)
                return passed or namesake
        constructed = _constructor_function(target, old)
        if constructed is not None:
            return constructed
        aliased = _aliased(target, old, new)
        if aliased is not None:
            return aliased
        present = {s.name for s in new.symbols} if new is not None else set()
        gone = [Found(s, old) for s in old.symbols if s.name not in present]
        # A vanished definition whose name appeared under another qualifier in the same commit
        # lives on as that one (`add_issue` became `helpers.add_issue`, a wrapper around the
        # new `helpers.make_issue` that took its body): it is not also this one's earlier name.
        before_names = {s.name for s in old.symbols}
        successors = (
            {
                s.short_name
                for s in new.symbols
                if s.name not in before_names and s.name != target.name
            }
            if new is not None
            else set()
        )
        alike = [
            f for f in gone if f.short_name == target.short_name or f.short_name not in successors
        ]
        # And one whose declaration the commit rewrote while its name went to another
        # definition (names passed around: see `_swapped_in`; marked's walker `inlineTokens`
        # became `inline` as `inlineOutput` became `inlineTokens`).
        if new is not None:
            kept = [s for s in old.symbols if s.name in present]
            redeclared = _redeclared(old, patch, kept)
            alike += [Found(s, old) for s in kept if s.name in redeclared]
        alike = _kin_first(target, alike, present)
        hit = best_match(target, alike, RENAME_SIMILARITY, RENAME_SIMILARITY)
        while (
            hit is not None
            and new is not None
            and (
                _claimed(hit[0], target, old, new, patch)
                or _inlined(hit[0], target, old, new)
                or (hit[0].name in present and not _gave_its_name(hit[0], old, new, patch))
                or not self._likest_namesake(hit[0], target, new, before_names)
            )
        ):
            # Another definition that appeared took its place in a line (its declaration turned
            # into that one's, a call switched to it): that one is its later name, not this one,
            # however much of its body went here (`maybe_remove_comma` became the method
            # `maybe_explode` while its tuple check moved into the new `is_one_tuple`); or it was
            # written into a definition that called it and lives on (see `_inlined`).
            alike = [f for f in alike if f is not hit[0]]
            hit = best_match(target, alike, RENAME_SIMILARITY, RENAME_SIMILARITY)
        if hit is not None:
            return hit[0]
        renamed = _in_renamed_class(target, old, new)
        if renamed is not None:
            return renamed
        # The same name under another qualifier (a method turned function, a class renamed),
        # however rewritten: the name is the evidence. In Go, a name's first letter says only
        # whether it is exported: `NewRegistry` made `newRegistry` is the same name
        # (client_golang's rewrite of its registry).
        same_short = [
            f
            for f in gone
            if one_name(f.short_name, target.short_name, old.language)
            and compatible(f.symbol, target.symbol)
        ]
        if len(same_short) == 1 and self._likest_namesake(same_short[0], target, new, before_names):
            return same_short[0]
        if new is None:
            return None
        # A rename that also rewrote most of the body: exactly one definition of its kind
        # vanished from the same enclosing scope while exactly this one appeared.
        # (Go declares every function and method at the top of its file: a function made a
        # method stays where it was, pflag's `isZeroValue` became `Flag.defaultIsZeroValue`.)
        scope = _scope(target.name)
        siblings = [
            f
            for f in gone
            if compatible(f.symbol, target.symbol)
            and (_scope(f.name) == scope or old.language == "go")
        ]
        appeared = [
            s for s in new.symbols if s.name not in before_names and compatible(s, target.symbol)
        ]
        if len(siblings) > 1:
            # Several vanished beside it: the one a changed line named where it now names this
            # one (mux renamed `setVars` and `setCurrentRoute` to `requestWithVars` and
            # `requestWithRoute` in one commit, each one-liner rewritten, the two equally alike).
            switched = [f for f in siblings if _switched(patch, f.short_name, target.short_name)]
            if len(switched) > 1:
                switched = _switched_alone(patch, switched, target.short_name)
            if len(switched) == 1:
                siblings = switched
        if len(siblings) != 1 or target.name not in {s.name for s in appeared}:
            return None
        # Several definitions appeared: this one is the renamed one when a line that used the
        # old name now uses the new one (a call site switched, or the declaration itself), or
        # when it is the only one of them that is at all like it (the others are new helpers).
        gone_one = siblings[0]
        if similarity(gone_one, target) < 0.25 or _inlined(gone_one, target, old, new):
            return None
        others = [Found(s, new) for s in appeared if s.name != target.name]
        # (A line that reads as switched to another new one too tells nothing: see `_claimed`;
        # unless only this one was declared where the vanished one was: fzf's 2bbc1206 wrote
        # `resizeWindows` over `calculateMargins`, whose two calls became its calls, and added
        # elsewhere a `t.printPreview()` line that reads as one of them switched.)
        if _switched(patch, gone_one.short_name, target.short_name):
            also = _switched_to(patch, gone_one, [o.symbol for o in others], old, new)
            if not also or _alone_in_its_place(patch, gone_one.symbol, new, target.name, also):
                return gone_one
        # Several appeared, others alike too: it is the one written in the old one's place, if
        # only it was and none of the others is more alike (goquery's e4467e0 wrote
        # `FilterNodes` where `FilterNode` was, 0.49 alike, and `Not`, `NotNodes` elsewhere, as
        # alike; viper's `defaultDecoderConfig`, written where `weakDecodeExact` was, is new:
        # `decode`, elsewhere, is more like it), else none of them.
        if (
            len(appeared) > 1
            and any(similarity(gone_one, other) >= 0.25 for other in others)
            and not (
                _alone_in_its_place(patch, gone_one.symbol, new, target.name, others)
                and all(
                    similarity(gone_one, other) <= similarity(gone_one, target) for other in others
                )
            )
        ):
            return None
        # Nor when its code went to another file of the commit (echo's `listDir`, 0.42 like the
        # new `handlerName`, went into the handler package's `Static.Handle`, 0.59).
        return None if self.went_to_another_file(gone_one, target) else gone_one

    @staticmethod
    def _likest_namesake(
        gone: Found, target: Found, new: Version | None, before_names: set[str]
    ) -> bool:
        """Whether `target` is likelier than any other definition of its last name that
        appeared beside it to be `gone` under another qualifier. Where one appeared, the name
        is the evidence; where several did, it tells them apart no more: pgx's 138254da
        deleted the type `linkedError` and wrote six error types in its place, each with an
        `Error` method, none of them its successor by name. Copies as alike as it
        (REPLACED_SIMILARITY or more) share its past: walkdir's trait method `filter_entry`
        went word for word into two impls. Nor does one under fewer of `gone`'s qualifiers
        count (backbone's `save.success` became `save.options.success`, as `fetch.success`
        became `fetch.options.success`)."""
        if new is None:
            return True
        language = new.language
        alike = None
        kin = _shared_qualifiers(gone.name, target.name)
        for symbol in new.symbols:
            if (
                symbol.name in before_names
                or symbol.name == target.name
                or not one_name(symbol.short_name, target.short_name, language)
                or not compatible(symbol, target.symbol)
                or _shared_qualifiers(gone.name, symbol.name) < kin
            ):
                continue
            alike = similarity(gone, target) if alike is None else alike
            other = similarity(gone, Found(symbol, new))
            if other > alike or (other == alike and alike < REPLACED_SIMILARITY):
                return False
        return True

    def went_to_another_file(self, gone: Found, target: Found) -> bool:
        """Whether a definition that appeared in another file the commit being read added or
        changed is more like `gone` than `target` is. Asked only of the weakest rename rule
        above; the first 16 such files in the language are read."""
        if self.reading is None:
            return False
        sha, path = self.reading
        parents = self.blobs.parents(sha)  # its own, not the file history's
        if not parents:
            return False
        parent = parents[0]
        language = target.version.language
        alike = similarity(gone, target)
        files = [
            (status, old, new)
            for status, old, new in self.changes_of(parent, sha)
            if status[0] in "AMR" and new != path and language_for_path(new) == language
        ]
        return any(
            compatible(found.symbol, gone.symbol) and similarity(gone, found) > alike
            for _, found in self.appeared(sha, parent, files[: 2 * MOVE_SEARCH_FILES], path)
        )

    def appeared(
        self, sha: str, parent: str, files: list[tuple[str, str, str]], own: str
    ) -> Iterator[tuple[str, Found]]:
        """(path, definition) of the definitions commit `sha` added to `files` ((status, old
        path, new path) of files it added, changed or renamed), file by file, read as asked;
        not those of generated files unless the symbol's `own` file is one (see `foreign`)."""
        for status, old_path, new_path in files:
            after = self.blobs.version_at(sha, new_path)
            if after is None or self.foreign(after, sha, own):
                continue
            before = self.blobs.version_at(parent, old_path) if status[0] != "A" else None
            if before is not None:
                before.lean_on(after)
                after.lean_on(before)
            had = {s.name for s in before.symbols} if before is not None else set()
            for sym in after.symbols:
                if sym.name not in had:
                    yield new_path, Found(sym, after)

    def foreign(self, version: Version, sha: str, own: str) -> bool:
        """Whether `version` is of a generated file (see `generated`: a bundle built from the
        sources) while the symbol's `own` file as of commit `sha` is not: its copies of the
        sources' definitions are not where the symbol moved from, nor what another became."""
        if not version.generated:
            return False
        mine = self.blobs.version_at(sha, own)
        return mine is None or not mine.generated

    def merge(
        self, commit: Commit, cur: State, merges: PathDiffs, language: str
    ) -> list[tuple[str, State]]:
        """A merge that touched the file: a change only if it differs from every parent."""
        follow: list[tuple[str, State]] = []
        # Parents that have the file under another path (renamed on one side of the merge):
        # their walks are that path's.
        elsewhere: list[tuple[str, State, list[str]]] = []
        same_as_a_parent = False
        first: list[str] | None = None
        for parent in commit.parents:
            patch = merges.diff(commit.sha, parent)
            if patch.old_blob is None and patch.hunks:  # the file is not in this parent
                renamed = self.renamed_in_merge(commit.sha, parent, cur)
                if renamed is not None:
                    kinds, older = renamed
                    if not kinds and older.found.name == cur.found.name:
                        same_as_a_parent = True
                    elsewhere.append((parent, older, kinds))
                continue
            attached = _attached(patch, cur, language)
            if patch.old_blob in (None, "same") or not (attached or _touches(cur, patch.hunks)):
                same_as_a_parent = True
                follow.append((parent, cur.shifted(patch.hunks)))
                continue
            step = self.step(patch, cur, language, whole=attached)
            if step is None:
                continue
            kinds, older = step
            if first is None:
                # The first parent that has the symbol: a merge that brings a branch's changed
                # version into a line that never had it (graphql-js's unifyBuildSchema merge
                # differs from both its parents) is a change too, when it is no parent's.
                first = kinds
            if not kinds and older.found.name == cur.found.name:
                same_as_a_parent = True
            follow.append((parent, older))
        if same_as_a_parent:
            # The symbol is some parent's as it was: a definition of another name that a parent
            # without it has (what the rename search took for it there) never reached this
            # code, so that side is not followed under that name.
            self.arrivals.extend(
                (p, s, None) for p, s, _ in elsewhere if s.found.name == cur.found.name
            )
            return [(p, s) for p, s in follow if s.found.name == cur.found.name]
        self.arrivals.extend((p, s, None) for p, s, _ in elsewhere)
        if first is None and elsewhere:
            first = elsewhere[0][2]
        if first is not None:
            self.record(commit, first or ["body"], cur)
        elif not follow and not self.renamed_from_a_parent(commit, cur, commit.parents):
            self.record(commit, ["introduced"], cur)
        return follow

    def renamed_in_merge(self, sha: str, parent: str, cur: State) -> tuple[list[str], State] | None:
        """When merge `sha`'s `parent` has the symbol's file under another path, which git pairs
        with it as renamed (the file renamed on the merge's other side, request's main.js made
        index.js, while this side changed it): (what changed of the symbol against that
        parent, the symbol there); None otherwise."""
        for status, old_path, new_path in self.changes_of(parent, sha):
            if status[:1] != "R" or new_path != cur.path:
                continue
            old = self.blobs.version_at(parent, old_path)
            if old is None:
                return None
            match = self.locate(cur.found, old, self.blobs.version_at(sha, cur.path))
            if match is None:
                return None
            kinds = differences(match, cur.found)
            if match.name != cur.found.name:
                kinds.insert(0, "rename")
            return kinds, State.of(old_path, match)
        return None

    def renamed_from_a_parent(self, commit: Commit, cur: State, parents: list[str]) -> bool:
        """Whether a parent of `commit` (which has the symbol at its path in none of them) has
        it in a file git pairs with this one as renamed; then it is followed there as a
        file-rename. Each parent of a merge is asked: a subtree merge brings another
        repository's `src/x.rs` in as `crate/src/x.rs` (clap took in clap_derive so)."""
        for parent in parents:
            for status, old_path, new_path in self.changes_of(parent, commit.sha):
                if not status.startswith("R") or new_path != cur.path:
                    continue
                # (A file of no known language by its name is read as the symbol's: node-semver's
                # bin/semver, a script without an extension, became bin/semver.js.)
                language = language_for_path(old_path) or cur.found.version.language
                old = self.blobs.version_at(parent, old_path, language)
                here = self.blobs.version_at(commit.sha, cur.path)
                if old and here:
                    # Its text unchanged in the old file, found there as the walk finds it
                    # in a commit's parent (see `kept`): it is there, and nothing is parsed.
                    same = self.kept(Patch(old.blob, here.blob, []), cur, old.language)
                    if same is not None:
                        self.record(commit, ["file-rename"], cur)
                        same.path = old_path
                        self.arrivals.append((parent, same, None))
                        return True
                match = self.locate(cur.found, old, here) if old and here else None
                if match is not None and self.arrived_paired(commit, cur, parent, old_path, match):
                    return True
        return False

    def arrived_paired(
        self,
        commit: Commit,
        cur: State,
        parent: str,
        old_path: str,
        match: Found,
        loose: list[tuple[str, str, str]] | None = None,
    ) -> bool:
        """The symbol came with its file, renamed from `old_path` where it was `match` (see
        `arrived_renamed`); unless `match` has another name and is not its past after all.
        Its old name went on in another file (see `lives_on`): False, nothing recorded. A
        definition of the symbol's qualified name, at least MOVE_SIMILARITY_SAME_NAME like it,
        left a file the commit deleted: it moved from there, as for a move (log's 84b78e2 made
        value/mod.rs value.rs, whose `Value.to_borrowed_str` is the one deleted with
        cast/mod.rs, not value/mod.rs's `Value.visit`, 0.95 alike as one-liners are)."""
        sha = commit.sha
        if match.name != cur.found.name:
            if self.lives_on(sha, parent, match, (old_path, cur.path)):
                return False
            left = self.namesake_left(sha, parent, cur, old_path)
            if left is not None:
                self.arrived(commit, "move", cur, parent, *left)
                return True
        self.arrived_renamed(commit, cur, parent, old_path, match, loose)
        return True

    def namesake_left(
        self, sha: str, parent: str, cur: State, besides: str
    ) -> tuple[str, Found] | None:
        """(path, definition) of the one definition of the symbol's qualified name and kind, at
        least MOVE_SIMILARITY_SAME_NAME like it, in a file of its language (not `besides`) that
        commit `sha` deleted."""
        name = cur.found.short_name.encode()
        language = cur.found.version.language
        hits: list[tuple[str, Found]] = []
        for status, old_path, _ in self.changes_of(parent, sha):
            if status != "D" or old_path in (cur.path, besides):
                continue
            if language_for_path(old_path) != language:
                continue
            got = self.blobs.read(f"{parent}:{old_path}")
            if got is None or name not in got[1]:
                continue
            old = self.blobs.version_at(parent, old_path)
            for sym in old.symbols if old is not None else []:
                if sym.name != cur.found.name or not compatible(sym, cur.found.symbol):
                    continue
                found = Found(sym, old)  # type: ignore[arg-type]
                if similarity(found, cur.found) >= MOVE_SIMILARITY_SAME_NAME:
                    hits.append((old_path, found))
        return hits[0] if len(hits) == 1 else None

    def renamed_one_went_on(self, sha: str, was: Found, cur: State) -> bool:
        """Whether the definition `cur` seemed renamed from in commit `sha` (`was`, in the same
        file) was written by the commit, under its own qualified name, into another file that
        had none, more like it there than `cur` is."""
        parents = self.recorded.parents(sha)
        if len(parents) != 1:
            return False
        went = self.lived_on(sha, parents[0], was, (cur.path, cur.path))
        return went is not None and similarity(was, went) > similarity(was, cur.found)

    def lives_on(self, sha: str, parent: str, match: Found, besides: tuple[str, str]) -> bool:
        """See `lived_on`."""
        return self.lived_on(sha, parent, match, besides) is not None

    def lived_on(
        self, sha: str, parent: str, match: Found, besides: tuple[str, str]
    ) -> Found | None:
        """Whether commit `sha` wrote a definition of `match`'s qualified name and kind into a
        file other than `besides` that had none before: the old definition went on there, and
        what took its place in the renamed file was made out of it (jedis's 0d772988 renamed
        CircuitBreakerCommandExecutor.java to CircuitBreakerFailoverBase.java, its
        `handleClusterFailover` becoming `clusterFailover`, and moved the class with a
        `handleClusterFailover` that calls `clusterFailover` to a new file of its own)."""
        name = match.short_name.encode()
        language = match.version.language
        for status, old_path, new_path in self.changes_of(parent, sha):
            if status[:1] not in "AMRC" or new_path in besides:
                continue
            there = language_for_path(new_path)
            if not _script_kin(there, language):
                continue
            got = self.blobs.read(f"{sha}:{new_path}")
            if got is None or name not in got[1]:
                continue
            after = self.blobs.version_at(sha, new_path)
            namesake = next(
                (
                    s
                    for s in (after.symbols if after is not None else [])
                    if s.name == match.name and compatible(s, match.symbol)
                ),
                None,
            )
            if after is None or namesake is None:
                continue
            before = self.blobs.version_at(parent, old_path) if status[:1] != "A" else None
            if before is None or not any(s.name == match.name for s in before.symbols):
                return Found(namesake, after)
        return None

    def arrived_renamed(
        self,
        commit: Commit,
        cur: State,
        parent: str,
        old_path: str,
        match: Found,
        loose: list[tuple[str, str, str]] | None = None,
    ) -> None:
        """The symbol came into this file at `commit` with the file, renamed from `old_path`
        where it was `match`; unless `match` is only a weak likeness (under half alike, taken
        for its name) and a file the commit deleted held the symbol's code as it is now, under
        the same last name: then it moved from there. (axum merged `IntoService` and
        `WithState` into `HandlerService`, deleting `into_service.rs`, whose `call` the new
        one is word for word, while git paired `with_state.rs`, whose `call` only delegated.)
        Paired by their names (`loose`: the commit's changes) rather than by git, a file whose
        other definitions went to other files the commit added was split, and the symbol
        moved (mio's c3966e52 split os_linux.rs into os/epoll.rs and os/posix.rs)."""
        alike = similarity(match, cur.found)
        if alike < RENAME_SIMILARITY:
            moved = self.verbatim_in_deleted(parent, commit.sha, cur, alike)
            if moved is not None:
                self.arrived(commit, "move", cur, parent, *moved)
                return
        split = loose is not None and self.split_among(
            commit.sha, parent, old_path, match, cur.path, loose, apart=True
        )
        self.arrived(commit, "move" if split else "file-rename", cur, parent, old_path, match)

    def verbatim_in_deleted(
        self, parent: str, sha: str, cur: State, than: float
    ) -> tuple[str, Found] | None:
        """(path, definition) of the one definition of the symbol's last name and kind, in a
        file of its language commit `sha` deleted, that is at least `REPLACED_SIMILARITY` like
        it and more than `than`."""
        hits = [
            (old_path, there)
            for old_path, there in self.in_deleted_files(parent, sha, cur)
            if there.short_name == cur.found.short_name
            and compatible(there.symbol, cur.found.symbol)
            and (alike := similarity(there, cur.found)) >= REPLACED_SIMILARITY
            and alike > than
        ]
        return hits[0] if len(hits) == 1 else None

    def file_replaced(
        self, sha: str, patch: Patch, cur: State
    ) -> tuple[str, State, FileLog | None] | None:
        """Where the walk goes on when commit `sha` replaced the symbol's file wholesale with the
        text of a file it deleted (git pairs the two only with break detection, `-B`: peewee's
        c2ec6984, "Rename peewee3 to peewee!", moved peewee.py to p2.py and peewee3.py to
        peewee.py): the symbol is there, unchanged, at the commit's parent. Asked where the
        symbol was renamed or rewritten; the first DELETED_READ files of the symbol's language
        the commit deleted are compared."""
        parents = self.blobs.parents(sha)
        if not parents or not patch.new_blob:
            return None
        language = language_for_path(cur.path)
        # (Also a file git took for renamed to another: without break detection it pairs what
        # is left, a deleted file with an added one, however little alike.)
        deleted = [
            old_path
            for status, old_path, new_path in self.changes_of(parents[0], sha)
            if status[0] in "DR"
            and cur.path not in (old_path, new_path)
            and language_for_path(old_path) == language
        ]
        for old_path in deleted[:DELETED_READ]:
            got = self.blobs.read(f"{parents[0]}:{old_path}")
            if got is not None and got[0] == patch.new_blob:
                there = State(
                    old_path,
                    cur.found,
                    cur.start,
                    cur.end,
                    cur.headers,
                    cur.header_spans,
                    cur.header,
                )
                return parents[0], there, None
        return None

    def imported_from(self, commit: Commit, parent: str, cur: State) -> tuple[str, Found] | None:
        """(path, definition) of the module the file imported the symbol's name from until
        `commit`, which wrote the definition into the file instead and took the import out
        (cachetools' 1a4d59a wrote `cache` and `cachedmethod` into `__init__.py` in place of
        `from .decorators import cache, cachedmethod, cachekey`, decorators.py left unused
        until a later commit deleted it): the definition there, of the symbol's last name and
        kind and at least MOVE_SIMILARITY_SAME_NAME like it, moved here (a copy of it, the
        original's own history going on). Not where the commit also rewrote that definition,
        which lives on: it became a wrapper of this one, extracted from it (pyramid's e06153d2
        wrote view.py's `derive_view` into the registry as `Registry.derive_view`, and made the
        function call the method). None otherwise."""
        patch = commit.patch
        if patch.old_blob in (None, "same") or patch.new_blob in (None, "same"):
            return None
        name = cur.found.short_name.encode()
        before = self.blobs.peek(patch.old_blob)
        if name not in before:
            return None
        after = set(self.blobs.peek(patch.new_blob).splitlines())
        words: set[str] = set()
        for line in before.splitlines():
            if name not in line or line in after:
                continue
            said = set(line.translate(_NAME_BYTES).split())
            if name in said and not said.isdisjoint(_IMPORTING):
                words |= {w.decode("utf-8", "surrogateescape") for w in said}
        words -= {name.decode(), *_IMPORT_WORDS}
        if not words:
            return None
        language = cur.found.version.language
        best: tuple[float, str, Found] | None = None
        for path in files_named(self.root, parent, words):
            if path == cur.path or not _kindred(language_for_path(path), language):
                continue
            got = self.blobs.read(f"{parent}:{path}")
            if got is None or name not in got[1]:
                continue
            version = self.blobs.version_at(parent, path, language)
            if version is None:
                continue
            for sym in version.symbols:
                if sym.short_name != cur.found.short_name or not compatible(sym, cur.found.symbol):
                    continue
                found = Found(sym, version)
                score = similarity(found, cur.found)
                if score >= MOVE_SIMILARITY_SAME_NAME and (best is None or score > best[0]):
                    best = (score, path, found)
        if best is None:
            return None
        _, path, found = best
        if any(
            status[0] == "M" and old_path == path
            for status, old_path, _ in self.changes_of(parent, commit.sha)
        ):
            later = self.blobs.version_at(commit.sha, path, language)
            if later is not None:
                kept = [Found(s, later) for s in later.symbols if s.name == found.name]
                if kept and all(differences(found, k) for k in kept):
                    return None
        return path, found

    def in_deleted_files(self, parent: str, sha: str, cur: State) -> Iterator[tuple[str, Found]]:
        """(path, definition) of each definition in the files of the symbol's language that
        commit `sha` (against `parent`) deleted, read as asked."""
        language = cur.found.version.language
        for status, old_path, _ in self.changes_of(parent, sha):
            if status != "D" or old_path == cur.path or language_for_path(old_path) != language:
                continue
            old = self.blobs.version_at(parent, old_path)
            if old is None:
                continue
            for sym in old.symbols:
                yield old_path, Found(sym, old)

    def origin(
        self, commit: Commit, cur: State, log: FileLog | None = None
    ) -> tuple[str, State] | None:
        """The symbol is not in this file before `commit`: renamed file, moved, restored (given
        the file's `log`: then where its walk goes on, returned), or introduced."""
        sha = commit.sha
        if sha in self.shallow:
            self.boundary.append(sha)
            return None
        parents = self.blobs.parents(sha)
        if not parents:
            self.record(commit, ["introduced"], cur)
            return None
        parent = parents[0]
        changes = self.changes_of(parent, sha)
        # 1. The file was renamed (git's rename detection over the whole commit; at a merge,
        #    against each parent).
        if self.renamed_from_a_parent(commit, cur, parents):
            return None
        # 2. A file git did not pair with this one because much of it was rewritten, but which
        #    this commit deleted and whose definitions are mostly here by name (a class renamed
        #    and reworked with its file): in it, the symbol is found as in a rename.
        #    Several such files: the one the symbol is found in, when it is found in only one
        #    (else they were merged into this one, and the symbol is looked for as a move).
        here = self.blobs.version_at(sha, cur.path)
        found_in = [
            (old_path, match)
            for old_path, old in self.paired_files(sha, parent, cur, changes)
            if (match := self.locate(cur.found, old, here)) is not None
        ]
        if len(found_in) == 1 and self.arrived_paired(
            commit, cur, parent, *found_in[0], loose=changes
        ):
            return None
        # 3. Moved from another file: a definition like it vanished from a file this commit
        #    deleted or modified.
        found = self.moved_from(sha, parent, cur, changes)
        if found is not None:
            old_path, match = found
            # From a file the commit deleted into one it added, which git pairs as renamed at
            # a lower similarity than its default: the file was renamed (date-fns renamed
            # is_within_range/index.js to is_within_interval/index.js with its one function
            # and reworded it, 45% alike).
            # Not when the deleted file was split among several added ones (excalidraw split
            # src/scene/data.ts into six files of src/data/, index.ts 45% like it): moves.
            # Or from a file the commit made a build's output into an added file of its name
            # (superagent moved lib/client.js to src/client.js and committed babel's output of
            # it in lib/, now ignored): that file's source was renamed.
            # Or from a file of the same name but for a kindred language's extension, beside
            # it (yup's b97c39d rewrote src/object.js as the class of src/object.ts, 20% alike
            # as wholes, with the rest of the library): the file was converted.
            added = any(s == "A" and new == cur.path for s, _, new in changes)
            how = (
                "file-rename"
                if added
                and (
                    ("D", old_path, old_path) in changes
                    and (
                        paired_loosely(self.root, parent, sha, old_path, cur.path)
                        or _converted(old_path, cur.path)
                    )
                    and not self.split_among(sha, parent, old_path, match, cur.path, changes)
                    or (
                        old_path in self.built(sha, parent, changes)
                        and os.path.basename(old_path) == os.path.basename(cur.path)
                    )
                )
                else "move"
            )
            self.arrived(commit, how, cur, parent, old_path, match)
            return None
        restored = self.restored(log, commit, cur) if log is not None else None
        if restored is not None:
            kinds, resume, older = restored
            if kinds:
                self.record(commit, kinds, cur)
            return resume, older
        imported = self.imported_from(commit, parent, cur) if len(parents) == 1 else None
        if imported is not None:
            self.arrived(commit, "move", cur, parent, *imported)
            return None
        back = (
            self.written_back(sha, parent, cur)
            if commit.old_blob is None and len(parents) == 1
            else None
        )
        if back is not None:
            kinds, resume, older = back
            if kinds:
                self.record(commit, kinds, cur)
            self.arrivals.append((resume, older, None))
            return None
        self.record(commit, ["introduced"], cur)
        return None

    def split_among(
        self,
        sha: str,
        parent: str,
        old_path: str,
        match: Found,
        new_path: str,
        changes: list[tuple[str, str, str]],
        apart: bool = False,
    ) -> bool:
        """Whether another file commit `sha` added (not `new_path`) declares a definition of
        the file `old_path` it deleted, by qualified name, besides `match` and its own: the file
        was split, not renamed. With `apart`, only one that `new_path` does not declare too (a
        helper copied into both of two new files splits nothing: uvicorn's 07c6c189 made
        protocols/http.py http/httptools.py and wrote http/h11.py beside it)."""
        old = self.blobs.version_at(parent, old_path)
        if old is None:
            return False
        inner = match.name + "."
        names = {
            s.name for s in old.symbols if s.name != match.name and not s.name.startswith(inner)
        }
        if apart:
            here = self.blobs.version_at(sha, new_path)
            names -= {s.name for s in here.symbols} if here is not None else set()
        if not names:
            return False
        # (Of the same language, JavaScript and TypeScript one: ky's "Move to TypeScript" split
        # index.js among fifteen new .ts files.)
        language = old.language
        for status, _, path in changes:
            if status != "A" or path == new_path:
                continue
            there = language_for_path(path)
            if not _script_kin(there, language):
                continue
            added = self.blobs.version_at(sha, path)
            if added is not None and any(s.name in names for s in added.symbols):
                return True
        return False

    def replaced_from(self, sha: str, cur: State, older: State) -> tuple[str, str, Found] | None:
        """When commit `sha` rewrote the symbol (its older version here is not even half like
        it) into the text of a definition of the same name in a file the commit deleted: the
        commit's parent (its own, not the file's history's), that file and that definition. A
        build-specific variant kept in its own file replacing the other as the two files become
        one (Go's `_go1.16.go` files when the minimum version rose). Asked only of rewrites: one
        git process for the commit's files."""
        if older.found.name != cur.found.name:
            return None
        parents = self.blobs.parents(sha)
        if not parents:
            return None
        namesakes = [
            (old_path, there)
            for old_path, there in self.in_deleted_files(parents[0], sha, cur)
            if there.name == cur.found.name
        ]
        # (The versions compared only when there is a namesake: two long bodies cost ~80 ms.)
        if not namesakes or similarity(older.found, cur.found) >= RENAME_SIMILARITY:
            return None
        for old_path, there in namesakes:
            if similarity(there, cur.found) >= REPLACED_SIMILARITY:
                return parents[0], old_path, there
        return None

    def namesake_moved_here(self, sha: str, cur: State, renamed: Found) -> bool:
        """Whether commit `sha` moved a definition of the symbol's own (last) name here from
        another file (see `moved_from`), as like it as `renamed`, the definition of its file
        it seems renamed from, or as a move under another name must be: its name alone does
        not outweigh a rename in place (scrapy's 81ed2d2d renamed `CoreStats.stats_spider_
        closing` to `spider_closed`, its body unchanged, as it deleted a test holding a
        nested `spider_closed` of asserts, 0.4 alike; jsoup's `Element.nameIs`, 0.92 alike,
        moved to Node as the same code's `isNode` there was dropped)."""
        parents = self.blobs.parents(sha)
        if not parents:
            return False
        parent = parents[0]
        changes = self.changes_of(parent, sha)
        sources = [old for _, old in _move_sources(changes, cur)]
        if not sources:
            return False
        # Such a definition left lines naming it behind in its file's diff: when no other
        # file's diff removes a line with the name, nothing needs parsing (one git process
        # instead of reading and parsing every file the commit touched).
        name = cur.found.short_name.encode()
        diffs = file_diffs(self.root, parent, sha, sources)
        if not any(_removes(diffs.get(path), name) for path in sources):
            return False
        found = self.moved_from(sha, parent, cur, changes)
        return (
            found is not None
            and found[1].short_name == cur.found.short_name
            and similarity(found[1], cur.found)
            >= min(similarity(renamed, cur.found), MOVE_SIMILARITY_OTHER_NAME)
        )

    def arrived(
        self,
        commit: Commit,
        how: str,
        cur: State,
        parent: str,
        old_path: str,
        match: Found,
    ) -> None:
        """The symbol came into this file at `commit` (`how`: file-rename or move) from `match`
        in `old_path`: record the change and follow it there."""
        kinds = [how, *differences(match, cur.found)]
        if match.name != cur.found.name:
            kinds.append("rename")
        self.record(commit, kinds, cur)
        self.arrivals.append((parent, State.of(old_path, match), None))

    def paired_files(
        self, sha: str, parent: str, cur: State, changes: list[tuple[str, str, str]]
    ) -> list[tuple[str, Version]]:
        """The files deleted by commit `sha` that may be the symbol's file under another name:
        at least two of their definitions, and half of them, have a namesake (last name part)
        in the added file, and they are at least a tenth of its size (got's "Rewrite Got" wrote
        source/core/index.ts, 44 KB, out of several deleted files, its errors.ts of 3.6 KB
        among them: a move from each, not errors.ts renamed). A definition named as its file is
        counted as the new file's when it is a type (a class renamed with its file: mybatis's
        cafd10c6 made SerialStatusHolder.java, its constructor and `readResolve`,
        SerialStateHolder.java), not a function (redux deleted createDispatcher.js and
        createRedux.js and added createStore.js)."""
        if not any(s == "A" and new == cur.path for s, _, new in changes):
            return []
        here = self.blobs.version_at(sha, cur.path)
        if here is None:
            return []
        names = {s.short_name for s in here.symbols}
        stem = _stem(cur.path)
        pairs: list[tuple[str, Version]] = []
        for status, old_path, _ in changes:
            if status != "D" or language_for_path(old_path) != here.language:
                continue
            old = self.blobs.version_at(parent, old_path)
            if old is None or 10 * len(old.source) < len(here.source):
                continue
            old_stem = _stem(old_path)
            if not any(s.name == old_stem and s.kind in _TYPE_KINDS for s in old.symbols):
                old_stem = ""  # (a function named as its file is no class renamed with it)
            before = {stem if s.short_name == old_stem else s.short_name for s in old.symbols}
            shared = len(before & names)
            if shared >= 2 and 2 * shared >= len(before):
                pairs.append((old_path, old))
        return pairs

    def _patch(self, parent: str, sha: str, path: str) -> Patch:
        """The `-U0` diff of one file in commit `sha` (its lines only: no hunks parsed)."""
        return Patch(None, None, [], raw=file_diffs(self.root, parent, sha, [path]).get(path, b""))

    def moved_from(
        self, sha: str, parent: str, cur: State, changes: list[tuple[str, str, str]]
    ) -> tuple[str, Found] | None:
        """The file and definition `cur` moved from in commit `sha`, if any."""
        sources = _move_sources(changes, cur)
        if len(sources) > MOVE_SEARCH_FILES:
            name = cur.found.short_name.encode()
            diffs = file_diffs(self.root, parent, sha, [old for _, old in sources])
            # Its name with the first letter in either case: a Go function exported or
            # unexported as it moved (echo's `handlerName` became route.go's `HandlerName`).
            spellings = {name, name[:1].swapcase() + name[1:]}
            named = [
                (status, old)
                for status, old in sources
                if any(n in diffs.get(old, name) for n in spellings)
            ]
            # A short name many files' diffs hold (Go's `Build` of each clause type): first the
            # files the commit deleted, then those whose diff also names the symbol's enclosing
            # definition, then those of its own directory (gorm's 1f38ec44 deleted
            # clause/query.go, whose `Eq.Build` went to clause/expression.go, among 15 files
            # whose diffs name a `Build`).
            folder = os.path.dirname(cur.path)
            if len(named) > MOVE_SEARCH_FILES:
                owner = cur.found.name.rpartition(".")[0].rpartition(".")[2].encode()
                named.sort(
                    key=lambda source: (
                        source[0] != "D",
                        not owner or owner not in diffs.get(source[1], b""),
                        os.path.dirname(source[1]) != folder,
                    )
                )
            # A file the commit deleted, in the symbol's language, is searched even when its
            # diff does not name the symbol: a file dissolved into others is where a function
            # moved under a new name comes from (jinja's asyncfilters.auto_to_seq became
            # async_utils.auto_to_list, gin's inputHolder.fromGET Context.formValue). Those in
            # the symbol's directory first.
            language = language_for_path(cur.path)
            deleted = sorted(
                (
                    (status, old)
                    for status, old in sources
                    if status == "D"
                    and (status, old) not in named
                    and language_for_path(old) == language
                ),
                key=lambda source: os.path.dirname(source[1]) != folder,
            )
            # And a changed or renamed file whose diff removed most of the symbol's body words
            # (under another name: commons-jexl's 8da71bd4, of 40 files, moved
            # `JexlEngine.cleanExpression` to `Engine.trimSource`, and JexlEngine.java's diff
            # does not name `trimSource`; commons-exec's 0d1dbf85, of 18, moved the renamed
            # Environment.java's `getVariables` into a new file as `toStrings`), the likeliest
            # first.
            words = _body_words(cur.found)
            total = sum(words.values())
            worded = sorted(
                (
                    (share, status, old)
                    for status, old in sources
                    if status[0] in "MR" and (status, old) not in named and total
                    if (share := _shared(words, _diff_side(diffs.get(old, b""), b"-")) / total)
                    >= MOVE_SIMILARITY_OTHER_NAME
                ),
                reverse=True,
            )
            sources = (
                named[:MOVE_SEARCH_FILES]
                + deleted[:MOVE_SEARCH_FILES]
                + [(status, old) for _, status, old in worded[:MOVE_SEARCH_FILES]]
            )
        # Definitions that still exist under their name after the commit (in any file it
        # touched) were not moved here: a function whose body went into a new one while it
        # stayed as a wrapper makes the new one an extraction (introduced), not a move. (Found
        # only when a candidate needs it: it means reading every file the commit touched.)
        # (Not the symbol's own name: another definition of it elsewhere is another version
        # beside this one, not the old one kept: viper moved findConfigFile into
        # viper_go1_15.go and wrote a new one for Go 1.16 in viper_go1_16.go.)
        kept: dict[str, list[Symbol]] | None = None

        def afterwards() -> Iterator[Version]:
            """The versions after the commit of the files it added, changed or renamed."""
            for status, _, new_path in changes:
                if status[0] != "D" and language_for_path(new_path) is not None:
                    after_version = self.blobs.version_at(sha, new_path)
                    if after_version is not None and not self.foreign(after_version, sha, cur.path):
                        yield after_version

        def kept_names() -> dict[str, list[Symbol]]:
            nonlocal kept
            if kept is None:
                kept = {}
                for version in afterwards():
                    for s in version.symbols:
                        if s.name != cur.found.name:
                            kept.setdefault(s.name, []).append(s)
            return kept

        def still_kept(found: Found) -> bool:
            """Whether a definition of `found`'s name and kind is in `kept_names()`, reading
            only the files whose text holds its last name (most commits touch many files that
            do not). Of its kind: Rust's `mod fallback;` keeps no function `fallback`
            (thiserror's 88a4603 moved `fallback` into the new fallback.rs as `expand`)."""
            if kept is not None:
                return any(compatible(s, found.symbol) for s in kept.get(found.name, ()))
            word = found.short_name.encode()
            return found.name != cur.found.name and any(
                word in version.source
                and any(
                    s.name == found.name and compatible(s, found.symbol) for s in version.symbols
                )
                for version in afterwards()
            )

        hits: list[tuple[float, str, Found, bool]] = []
        with_type: list[tuple[str, Found]] = []
        olds = {old_path: self.blobs.version_at(parent, old_path) for _, old_path in sources}
        renamed_to = {old: new for status, old, new in changes if status[0] == "R"}
        unable = self._cannot_hold(sha, parent, cur, sources, olds)
        for status, old_path in sources:
            old = olds[old_path]
            if old is None or old_path in unable or self.foreign(old, sha, cur.path):
                continue
            after = self.blobs.version_at(sha, old_path) if status[0] != "D" else None
            if after is not None:
                after.lean_on(old)
                old.lean_on(after)
            # (A file the commit made a build's output keeps none of its own: see `built`.)
            built = after is not None and old_path in self.built(sha, parent, changes)
            present = {s.name for s in after.symbols} if after and not built else set()
            # (A declaration without a body left in its place keeps none of the code: digester
            # made RulesBinder an interface again, its methods' code moved into the new
            # DefaultRulesBinder.)
            with_body = (
                {s.name for s in after.symbols if bodied(s)} if after and not built else set()
            )
            gone = [
                Found(s, old)
                for s in old.symbols
                if s.name not in (with_body if bodied(s) else present)
            ]
            # (A file git renamed has no `after` at its old path: all of it is a source.)
            renamed = (
                self.blobs.version_at(sha, renamed_to[old_path]) if old_path in renamed_to else None
            )
            if renamed is not None:
                # One whose last name appeared in the renamed file under another qualifier
                # lives on as that one (see `locate`): joda-time renamed
                # `CopticYearDateTimeField` with its file, its `getDifferenceAsLong` made a
                # wrapper of the new `getYearDifference` elsewhere, which is extracted from it,
                # not it moved.
                had = {s.name for s in old.symbols}
                successors = {s.short_name for s in renamed.symbols if s.name not in had}
                gone = [
                    f
                    for f in gone
                    if f.short_name == cur.found.short_name or f.short_name not in successors
                ]
            hit = best_match(cur.found, gone, MOVE_SIMILARITY_SAME_NAME, MOVE_SIMILARITY_OTHER_NAME)
            if hit is not None and still_kept(hit[0]):
                # The best is not a candidate: the best of those that are (a subset).
                kept_names()
                gone = [f for f in gone if not still_kept(f)]
                hit = best_match(
                    cur.found, gone, MOVE_SIMILARITY_SAME_NAME, MOVE_SIMILARITY_OTHER_NAME
                )
            if hit is None:
                typed = _moved_with_its_type(cur.found, old, gone, present)
                if typed is not None:
                    with_type.append((old_path, typed))
            patch: Patch | None = None
            while (
                hit is not None
                and after is not None
                and hit[0].short_name != cur.found.short_name
                and _claimed(
                    hit[0],
                    cur.found,
                    old,
                    after,
                    patch := patch or self._patch(parent, sha, old_path),
                )
            ):
                # It became another definition of its own file (see `locate`).
                gone = [f for f in gone if f is not hit[0]]
                hit = best_match(
                    cur.found, gone, MOVE_SIMILARITY_SAME_NAME, MOVE_SIMILARITY_OTHER_NAME
                )
            if hit is None:
                continue
            same = hit[0].short_name == cur.found.short_name
            # Another that vanished as alike, under a name as near: the symbol took the place
            # of several (axios' object-literal `request.use` and `response.use`, 0.54 alike
            # each, became the one `InterceptorManager.use`), so it is new, like a function
            # that replaced several alike ones; no one of them is its earlier version.
            twin = any(
                f is not hit[0]
                and compatible(f.symbol, cur.found.symbol)
                and (f.short_name == cur.found.short_name) == same
                and similarity(f, cur.found) >= hit[1] - MOVE_TIE
                for f in gone
            )
            hits.append((hit[1] + (0.3 if same else 0.0), old_path, hit[0], twin))
        if not hits and len(with_type) == 1:
            # Nothing alike anywhere, and one file lost the method with its type (see
            # `_moved_with_its_type`): that is where it came from.
            (typed_path, typed_found), *_ = with_type
            hits.append((MOVED_WITH_TYPE, typed_path, typed_found, False))
        # The best that did not go elsewhere: of two namesakes that vanished, one may have gone
        # whole into another file the commit wrote, the other here (mio's 19d5ebe6 moved
        # sys/unix/tcp.rs's `TcpListener.accept` to sys/unix/tcp_listener.rs and net/tcp.rs's to
        # net/tcp_listener.rs, the sys one likelier to each).
        while hits:
            score, source, gone_one, twinned = max(hits, key=lambda h: h[0])
            tied = [h for h in hits if h[0] >= score - MOVE_TIE]
            if len(tied) > 1 and not twinned and _copies(tied):
                # One definition kept in several files alike, under one last name (a build split
                # into per-platform trees that each held a copy, a method pulled up from sibling
                # classes): the copies are one past, not several origins. The one in the folder
                # nearest the symbol's, as git's rename pairing would (HikariCP moved
                # HikariConfig.validate out of both its Java 6 and Java 8 trees).
                score, source, gone_one, twinned = min(
                    tied, key=lambda h: (-len(os.path.commonprefix([h[1], cur.path])), h[1])
                )
                tied = tied[:1]
            if twinned or len(tied) > 1:
                return None
            if not self.went_elsewhere(sha, parent, cur, changes, source, gone_one):
                break
            hits = [h for h in hits if h[2] is not gone_one]
        else:
            return None
        if score < MOVED_WITH_TYPE and self.became_another(sha, parent, cur, changes, gone_one):
            return None
        return source, gone_one

    def _cannot_hold(
        self,
        sha: str,
        parent: str,
        cur: State,
        sources: list[tuple[str, str]],
        olds: dict[str, Version | None],
    ) -> set[str]:
        """Of the files commit `sha` deleted or changed (`olds`: their versions in `parent`),
        those that cannot hold where the symbol came from, told by text rather than by parsing
        each twice: what the commit removed of them (a deleted file's whole text, a changed
        file's removed lines) neither names the symbol (any definition of its name that vanished
        left its declaration line there) nor holds MOVE_WORD_SHARE of its body's words (one of
        another name must be 0.75 like it). Asked when they hold MOVE_DIFF_BYTES or more: a
        function written beside an edit of a 3,000-line module, a test moved among the many
        files of a restructuring."""
        if sum(len(v.source) for v in olds.values() if v is not None) < MOVE_DIFF_BYTES:
            return set()
        changed = [path for status, path in sources if status == "M" and olds[path] is not None]
        diffs = file_diffs(self.root, parent, sha, changed) if changed else {}
        name = cur.found.short_name.encode()
        spellings = {name, name[:1].swapcase() + name[1:]}
        words = _body_words(cur.found)
        needed = MOVE_WORD_SHARE * sum(words.values())
        unable: set[str] = set()
        for status, path in sources:
            old = olds[path]
            if old is None:
                continue
            if status == "M":
                diff = diffs.get(path)
                if diff is None:  # not read (a path git quotes): maybe
                    continue
                removed = _diff_side(diff, b"-")
            else:
                removed = old.source
            if not any(n in removed for n in spellings) and _shared(words, removed) < needed:
                unable.add(path)
        return unable

    def built(self, sha: str, parent: str, changes: list[tuple[str, str, str]]) -> set[str]:
        """The files commit `sha` changed that a pattern it added to a `.gitignore` covers: from
        here they are a build's output, and what they held went elsewhere (superagent's 47f1d28
        moved its sources from lib/ to src/, added `lib` to .gitignore and committed babel's
        output of src/ in lib/, deleted from git later). Only a pattern naming a directory
        (`lib`, `/dist/`, `build/js`) is read; asked once per commit."""
        found = self._built.get(sha)
        if found is not None:
            return found
        found = self._built[sha] = set()
        ignores = [
            new
            for status, _, new in changes
            if status[0] in "AM" and new.rsplit("/", 1)[-1] == ".gitignore"
        ]
        if not ignores:
            return found
        from fnmatch import fnmatchcase

        diffs = file_diffs(self.root, parent, sha, ignores)
        for ignore in ignores:
            base = ignore[: -len(".gitignore")]
            patterns = []
            for line in _diff_side(diffs.get(ignore, b""), b"+").split(b"\n"):
                text = line[1:].strip().decode("utf-8", "replace")
                if text and not text.startswith(("#", "!")):
                    patterns.append(text.removesuffix("/**").rstrip("/"))
            for status, _, path in changes:
                if status[0] != "M" or not path.startswith(base):
                    continue
                folders = path[len(base) :].split("/")[:-1]
                for pattern in patterns:
                    if "/" in pattern:  # anchored at the .gitignore's directory
                        steps = pattern.lstrip("/").split("/")
                        hit = len(steps) <= len(folders) and all(
                            fnmatchcase(f, p) for f, p in zip(folders, steps, strict=False)
                        )
                    else:
                        hit = any(fnmatchcase(f, pattern) for f in folders)
                    if hit:
                        found.add(path)
                        break
        return found

    def became_another(
        self,
        sha: str,
        parent: str,
        cur: State,
        changes: list[tuple[str, str, str]],
        gone: Found,
    ) -> bool:
        """Whether `gone`, which vanished in commit `sha` under another name than the symbol's,
        is more like another definition that appeared in the same commit (in a file it added
        or changed) than like the symbol: it became that one, and the symbol is new beside it
        (fiber moved the parsers `QueryParser` and `ReqHeaderParser` out of ctx.go into the new
        `queryBinding.Bind` and `headerBinding.Bind`, 0.9 alike, and wrote `cookieBinding.Bind`,
        0.87 alike to each, beside them). Of the symbol's own name, `gone` became another
        definition of that name more like it (jackson moved `ThreadLocalRecyclerPool` with its
        `acquireBufferRecycler` into BufferRecyclerPool.java as `ThreadLocalPool` and wrote
        `LockFreePool` and others there, each with an `acquireBufferRecycler`: the moved method
        is ThreadLocalPool's, LockFreePool's is new). Of the symbol's whole qualified name,
        only another of that name counts (memchr's 93662e7 rewrote each iterator's `next` as it
        moved them into one file: the old `Memchr.next` is more like the new `Memchr2.next` than
        like the new `Memchr.next`, which is still its later version). Not asked of commits
        touching many files. Not a copy beside the symbol's file when the symbol is a copy of it under its name
        (REPLACED_SIMILARITY alike): copies for two builds share its past (see
        `went_elsewhere`)."""
        namesake = gone.short_name == cur.found.short_name
        alike = similarity(gone, cur.found)
        copies = namesake and alike >= REPLACED_SIMILARITY
        here = os.path.dirname(cur.path)
        language = cur.found.version.language
        files = [
            (status, old, new)
            for status, old, new in changes
            if status[0] in "AMR" and language_for_path(new) == language
        ]
        if len(files) > 4 * MOVE_SEARCH_FILES:
            return False
        files = self._may_have_taken(sha, parent, files, gone, alike, namesake)
        return any(
            not (path == cur.path and found.name == cur.found.name)
            and not (copies and os.path.dirname(path) == here)
            and (not namesake or found.short_name == gone.short_name)
            and (gone.name != cur.found.name or found.name == gone.name)
            and compatible(found.symbol, gone.symbol)
            and similarity(gone, found) > alike
            for path, found in self.appeared(sha, parent, files, cur.path)
        )

    def _may_have_taken(
        self,
        sha: str,
        parent: str,
        files: list[tuple[str, str, str]],
        gone: Found,
        alike: float,
        namesake: bool,
    ) -> list[tuple[str, str, str]]:
        """Of `files` ((status, old path, new path) that commit `sha` added, changed or
        renamed), those where a definition more than `alike` like `gone` may have appeared, told
        by text rather than by parsing each twice: the file names `gone`'s last name (when one
        of that name is asked for), or what the commit added to it holds a quarter of `alike` of
        `gone`'s body words (a definition that much like it shares over half of that)."""
        if len(files) < 2:
            return files
        name = gone.short_name.encode()
        if namesake:  # (its whole text: a class renamed in place renames its methods too)
            return [
                (status, old_path, new_path)
                for status, old_path, new_path in files
                if (after := self.blobs.version_at(sha, new_path)) is not None
                and name in after.source
            ]
        changed = [new for status, _, new in files if status[0] == "M"]
        diffs = file_diffs(self.root, parent, sha, changed) if changed else {}
        words = _body_words(gone)
        needed = alike / 4 * sum(words.values())
        kept: list[tuple[str, str, str]] = []
        for status, old_path, new_path in files:
            if status[0] == "M":
                diff = diffs.get(new_path)
                if diff is None:  # not read (a path git quotes): maybe
                    kept.append((status, old_path, new_path))
                    continue
                added = _diff_side(diff, b"+")
            else:
                after = self.blobs.version_at(sha, new_path)
                if after is None:
                    continue
                added = after.source
            if _shared(words, added) >= needed:
                kept.append((status, old_path, new_path))
        return kept

    def went_elsewhere(
        self,
        sha: str,
        parent: str,
        cur: State,
        changes: list[tuple[str, str, str]],
        source: str,
        gone: Found,
    ) -> bool:
        """Whether `gone` (vanished from `source` in commit `sha`) appeared under its own name in
        another file the commit added or changed, more like it there than the symbol is: it
        moved there, and the symbol is a new version beside it (echo moved `Echo.Static` whole
        into echo_fs.go, for Go before 1.16, and wrote a new one, 0.48 alike, in
        echo_fs_go1.16.go). Not into a file beside the symbol's when the symbol is a copy of it
        too (REPLACED_SIMILARITY alike): copies for two builds share its past (websocket's
        bcef843 wrote client.go's `doHandshake` into tls_handshake.go and tls_handshake_116.go,
        0.97 and 1.0 alike). Only files whose diff names it are read."""
        alike = similarity(gone, cur.found)
        copy = alike >= REPLACED_SIMILARITY
        here = os.path.dirname(cur.path)
        language = cur.found.version.language
        others = [
            new
            for status, _, new in changes
            if status[0] in "AM" and new not in (cur.path, source)
            if language_for_path(new) == language
        ]
        if not others:
            return False
        word = gone.short_name.encode()
        diffs = file_diffs(self.root, parent, sha, others)
        for path in others:
            if word not in diffs.get(path, b""):
                continue
            after = self.blobs.version_at(sha, path)
            before = self.blobs.version_at(parent, path)
            if (
                after is None
                or self.foreign(after, sha, cur.path)
                or (before is not None and any(s.name == gone.name for s in before.symbols))
            ):
                continue
            if copy and os.path.dirname(path) == here:
                continue
            for sym in after.symbols:
                if sym.name != gone.name:
                    continue
                there = Found(sym, after)
                like = similarity(gone, there)
                if like > alike and not self.came_from_another(
                    sha, parent, changes, source, there, like
                ):
                    return True
        return False

    def came_from_another(
        self,
        sha: str,
        parent: str,
        changes: list[tuple[str, str, str]],
        source: str,
        there: Found,
        than: float,
    ) -> bool:
        """Whether `there`, which appeared in commit `sha`, is more than `than` like a namesake
        that vanished from another file than `source`: that one is its past (mio's 19d5ebe6
        split both net/tcp.rs and sys/unix/tcp.rs, each with a `TcpListener.accept`: the new
        sys/unix/tcp_listener.rs's came from sys/unix/tcp.rs, not from net/tcp.rs)."""
        word = there.short_name.encode()
        for status, old_path, _ in changes:
            if status[0] not in "DMR" or old_path == source:
                continue
            if not _kindred(language_for_path(old_path), there.version.language):
                continue
            got = self.blobs.read(f"{parent}:{old_path}")
            if got is None or word not in got[1]:
                continue
            old = self.blobs.version_at(parent, old_path)
            after = self.blobs.version_at(sha, old_path) if status[0] == "M" else None
            kept = {s.name for s in after.symbols} if after is not None else set()
            for sym in old.symbols if old is not None else []:
                if (
                    sym.name == there.name
                    and sym.name not in kept
                    and similarity(Found(sym, old), there) > than  # type: ignore[arg-type]
                ):
                    return True
        return False


def _moved_with_its_type(
    target: Found, old: Version, gone: list[Found], present: set[str]
) -> Found | None:
    """The definition of `target`'s own qualified name that vanished from `old`'s file with
    the type or class it belongs to, when that type is now declared in `target`'s file: a
    method moved with its type is that method, however much it was rewritten as it moved
    (gorm's 1f38ec44 deleted clause/join.go and declared `Join` in from.go, its
    `Join.Build` a `// TODO` stub before and written out after). In Go the names may differ
    in the case of their first letters (exported as they moved: cast's cd8c9c3 moved
    `timeFormat` with its `hasTimezone` into internal/time.go as `TimeFormat.HasTimezone`)."""
    owner, dot, _ = target.name.rpartition(".")
    if not dot:
        return None
    for found in gone:
        if not (
            _same_qualified(found.name, target.name, old.language)
            and compatible(found.symbol, target.symbol)
        ):
            continue
        before = found.name.rpartition(".")[0]
        if (
            owner not in present
            and before not in present
            and any(s.name == before for s in old.symbols)
            and any(s.name == owner for s in target.version.symbols)
        ):
            return found
    return None


# The kinds of definition a file is named after when it holds a type (Java's public class).
_TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "trait", "type"})


def _stem(path: str) -> str:
    """A file's name without its directory and extension."""
    return os.path.splitext(os.path.basename(path))[0]


def _same_qualified(a: str, b: str, language: str) -> bool:
    """Whether two qualified names name the same thing, part by part (see `one_name`)."""
    if a == b:
        return True
    parts_a, parts_b = a.split("."), b.split(".")
    return len(parts_a) == len(parts_b) and all(
        one_name(x, y, language) for x, y in zip(parts_a, parts_b, strict=True)
    )


def _move_sources(changes: list[tuple[str, str, str]], cur: State) -> list[tuple[str, str]]:
    """(status, old path) of the files a commit deleted, changed or renamed, other than the
    symbol's own, of its language or a kindred one: where a definition can have moved from.
    A port to another language is new code (yaml's 4cdd993 deleted libyaml's emitter.c and
    wrote its Go translation, whose functions share the C ones' names)."""
    language = language_for_path(cur.path) or cur.found.version.language
    return [
        (status, old)
        for status, old, _ in changes
        if status[0] in "DMR" and old != cur.path and _kindred(language_for_path(old), language)
    ]


# Languages whose files a definition moves between as it is (JavaScript made TypeScript, C
# code compiled as C++).
_KINDRED = (_OBJECT_LANGUAGES, frozenset({"c", "cpp"}))


def _kindred(a: str | None, b: str) -> bool:
    """Whether a file of language `a` can hold an earlier version of a definition in `b`."""
    return a is not None and (a == b or any(a in kin and b in kin for kin in _KINDRED))


def _claimed(gone: Found, target: Found, old: Version, new: Version, patch: Patch | None) -> bool:
    """Whether `gone` (vanished in this commit) became another definition that appeared in it
    rather than `target`: a changed line names that one where it named `gone`, and no changed
    line names `target` so (or one does, but reads as well with that one's name, and that one
    is more like `gone`)."""
    if gone.short_name == target.short_name:
        return False
    to_target = _switched(patch, gone.short_name, target.short_name)
    before = {s.name for s in old.symbols}
    others = [
        s
        for s in new.symbols
        if s.name not in before
        and s.name != target.name
        and s.short_name != target.short_name
        and compatible(s, gone.symbol)
    ]
    if to_target:
        # A changed line names this one where it named `gone`; when it reads as well with
        # another new one's name (the parts of a split declared alike: vue split
        # `processDefineOptions(node: Node): boolean` into `processDefineProps(node: Node):
        # boolean` and `processDefineEmit(node: Node): boolean`), it tells nothing, and the
        # one of them most like `gone` is what it became.
        switched = _switched_to(patch, gone, others, old, new)
        alike = similarity(gone, target)
        return any(similarity(gone, Found(s, new)) > alike for s in switched)
    if any(_switched(patch, gone.short_name, s.short_name) for s in others):
        return True
    # Or another definition that appeared is more like it than this one: that one is what it
    # became, this one a new helper beside it (just's `export_environment_variables` became
    # `export`, 0.64 alike, while its loop went into the new `export_scope`, 0.50).
    alike = similarity(gone, target)
    return any(similarity(gone, Found(s, new)) > alike for s in others)


def _inlined(gone: Found, target: Found, old: Version, new: Version) -> bool:
    """Whether `gone` (vanished in this commit) was written into a definition that called it
    and lives on, rather than becoming `target`: a definition of both versions that named it
    before, and is now more like it than before and than `target` is. serde_json's `parse_value`
    went word for word into `deserialize_any`, until then the one line
    `self.parse_value(visitor)`, while the new `deserialize_seq` took only its `[` branch."""
    if gone.short_name == target.short_name:
        return False
    before = {s.name: s for s in old.symbols}
    alike: float | None = None
    for sym in new.symbols:
        was = before.get(sym.name)
        if was is None or sym.name == target.name or sym.name == gone.name:
            continue
        if not compatible(sym, gone.symbol):
            continue
        if not _whole_words(old.text_of(was).decode("utf-8", "replace"), gone.short_name):
            continue
        if alike is None:
            alike = similarity(gone, target)
        now = similarity(gone, Found(sym, new))
        if now > alike and now > similarity(gone, Found(was, old)):
            return True
    return False


def _alone_in_its_place(
    patch: Patch | None, gone: Symbol, new: Version, name: str, others: Iterable[Symbol | Found]
) -> bool:
    """Whether `name` was declared where `gone` was (see `_in_its_place`) and none of `others`."""
    return _in_its_place(patch, gone, new, name) and not any(
        _in_its_place(patch, gone, new, other.name) for other in others
    )


def _in_its_place(patch: Patch | None, gone: Symbol, new: Version, name: str) -> bool:
    """Whether the definition `name` of `new` is declared in a hunk of the patch that removed
    `gone`'s declaration (one written over the other)."""
    if patch is None:
        return False
    lines = [s.start_line for s in new.symbols if s.name == name]
    return any(
        old_start <= gone.start_line < old_start + old_count
        and any(new_start <= line < new_start + new_count for line in lines)
        for old_start, old_count, new_start, new_count in patch.hunks
    )


def _switched_to(
    patch: Patch | None, gone: Found, candidates: list[Symbol], old: Version, new: Version
) -> list[Symbol]:
    """The `candidates` (definitions that appeared) that a changed line names where it named
    `gone`, leaving out those whose line another vanished definition's name explains as well
    (gin renamed `formValue` to `query` and `postFormValue` to `postForm` in one commit, both
    declared `(key string) (string, bool)`: `formValue`'s line renamed reads as `postForm`'s,
    which is `postFormValue`'s)."""
    hits = [s for s in candidates if _switched(patch, gone.short_name, s.short_name)]
    if not hits:
        return hits
    present = {s.name for s in new.symbols}
    vanished = {
        s.short_name
        for s in old.symbols
        if s.name not in present and s.short_name != gone.short_name
    }
    return [s for s in hits if not any(_switched(patch, v, s.short_name) for v in vanished)]


def _passed_on(namesake: Found, target: Found, old: Version, new: Version | None) -> Found | None:
    """The definition `target` was before a commit that gave its name to it from `namesake`
    (the parent's definition of that name), when the names moved along: `namesake`'s code went
    on under a name that appeared, and a definition that vanished is what `target` was.
    starlette renamed the abstract `Route` to `BaseRoute` and `Path(Route)` to
    `Route(BaseRoute)` in one commit: `Route.__call__` after it is `Path.__call__` (the same
    code), not the base's `raise NotImplementedError()`, which went on as `BaseRoute.__call__`.
    Only names passed along by their qualifiers (classes renamed): a function whose body took
    in another's that vanished beside it (jackson inlined `LockFreePool._getRecycler` into
    `acquireBufferRecycler`, whose old one-line body went to a new default method of the
    interface) stays a change of its own name. None when the namesake is the symbol's past
    (the usual case: no definition vanished, or the namesake is at least half like the
    symbol)."""
    if new is None:
        return None
    # Cheapest first: most walks never get past this (no other definition of the last name),
    # and the newer file is parsed only past the likeness check.
    rivals = [
        s
        for s in old.symbols
        if s.short_name == target.short_name
        and s.name != namesake.name
        and compatible(s, target.symbol)
    ]
    if not rivals:
        return None
    alike = similarity(namesake, target)
    if alike >= RENAME_SIMILARITY:
        return None
    present = {s.name for s in new.symbols}
    gone = [Found(s, old) for s in rivals if s.name not in present]
    if not gone:
        return None
    hit = best_match(target, gone, MOVE_SIMILARITY_OTHER_NAME, MOVE_SIMILARITY_OTHER_NAME)
    if hit is None or hit[1] <= alike:
        return None
    before = {s.name for s in old.symbols}
    went_on = any(
        s.name not in before
        and s.short_name == namesake.short_name
        and compatible(s, namesake.symbol)
        and similarity(namesake, Found(s, new)) >= max(RENAME_SIMILARITY, alike)
        for s in new.symbols
    )
    return hit[0] if went_on else None


def _swapped_in(
    namesake: Found, target: Found, old: Version, new: Version | None, patch: Patch | None
) -> Found | None:
    """The definition `target` was before a commit that passed last names around among the
    file's definitions: the commit rewrote the declaration lines of `namesake` (the parent's
    definition of `target`'s name) and of another one, of another name, which is at least
    MOVE_SIMILARITY_OTHER_NAME like `target` (and more than whatever holds its name now), while
    `namesake` is less than half like it and went on beside it (the same qualifier) under a new
    name or the one the other gave up. marked's 5da102d0 renamed the walker `inlineTokens` to
    `inline` and `inlineOutput` to `inlineTokens`: the new `inlineTokens` is `inlineOutput`,
    word for word; Underscore's 6ae7bac4 swapped the internal `flatten` and the public
    `_flatten`. Not when the namesake's code went elsewhere: rayon's 01cdeb60 moved the
    closure of `Registry.new`, a wrapper of `Registry.spawn` since it was extracted from it,
    into `DefaultSpawn.spawn` and renamed `spawn` back to `new`: that is a change of `new`.
    (Names passed along by their qualifiers: `_passed_on`.)"""
    if new is None or patch is None:
        return None
    # Cheapest first: the text of the diff (most commits leave the namesake's declaration).
    if not _redeclared(old, patch, [namesake.symbol]):
        return None
    # Of another name, or of the same last name under another qualifier (ini's bd7ccfd renamed
    # `Section.MapTo` to `mapTo` and wrote `File.MapTo`'s code as the new `Section.MapTo`).
    candidates = [s for s in old.symbols if s.name != target.name and compatible(s, target.symbol)]
    redeclared = _redeclared(old, patch, candidates)
    others = [s for s in candidates if s.name in redeclared]
    if not others:
        return None
    alike = similarity(namesake, target)
    if alike >= RENAME_SIMILARITY:
        return None
    hit = best_match(
        target,
        [Found(s, old) for s in others],
        MOVE_SIMILARITY_OTHER_NAME,
        MOVE_SIMILARITY_OTHER_NAME,
    )
    if hit is None or hit[1] <= alike:
        return None
    holders = [Found(s, new) for s in new.symbols if s.name == hit[0].name]
    if any(similarity(hit[0], holder) >= hit[1] for holder in holders):
        return None
    before = {s.name for s in old.symbols}
    scope = _scope(namesake.name)
    went_on = any(
        s.short_name != namesake.short_name
        and _scope(s.name) == scope
        and (s.name not in before or s.name == hit[0].name)
        and compatible(s, namesake.symbol)
        and similarity(namesake, Found(s, new)) >= max(RENAME_SIMILARITY, alike)
        for s in new.symbols
    )
    return hit[0] if went_on else None


def _gave_its_name(found: Found, old: Version, new: Version, patch: Patch | None) -> bool:
    """Whether the definition of `found`'s name after the commit is another one's code, the
    name passed to it (see `_swapped_in`): `found` then went on under another name."""
    return any(
        s.name == found.name and _swapped_in(found, Found(s, new), old, new, patch) is not None
        for s in new.symbols
    )


def _redeclared(old: Version, patch: Patch | None, symbols: Iterable[Symbol]) -> set[str]:
    """The names of those of `symbols` (of `old`) whose declaration line (their first) the
    patch removed and did not write back: renamed, or their signature changed."""
    if patch is None:
        return set()
    removed = {line[1:].strip() for line in _diff_side(patch.raw, b"-").split(b"\n")}
    changed = removed - {line[1:].strip() for line in _diff_side(patch.raw, b"+").split(b"\n")}
    lines = old.lines
    return {
        s.name
        for s in symbols
        if s.start_line <= len(lines) and lines[s.start_line - 1].strip() in changed
    }


def _switched(patch: Patch | None, old: str, new: str) -> bool:
    """Whether the patch turned a line using the word `old` into the same line using `new`."""
    return bool(_switched_lines(patch, old, new))


def _switched_alone(patch: Patch | None, olds: list[Found], new: str) -> list[Found]:
    """Those of `olds` (names that vanished) that a line the patch switched to `new` names
    where it reads as switched from no other of them: handlers declared alike all read as
    renamed on their declaration lines, but the route that names one is that one's alone
    (nsq's 58969a94 renamed every `doX` handler `xHandler`)."""
    lines = [_switched_lines(patch, old.short_name, new) for old in olds]
    readers = Counter(line for mine in lines for line in mine)
    return [
        old for old, mine in zip(olds, lines, strict=True) if any(readers[x] == 1 for x in mine)
    ]


def _switched_lines(patch: Patch | None, old: str, new: str) -> set[bytes]:
    """The added lines of the patch that are removed lines using the word `old`, with `new`
    in its place (see `_switched`)."""
    if patch is None or not old or not new:
        return set()
    removed: set[bytes] = set()
    added: set[bytes] = set()
    for line in patch.raw.split(b"\n"):
        if line.startswith(b"-") and not line.startswith(b"---"):
            text = line[1:].decode("utf-8", "replace")
            # A line that is the name and nothing else that names (`this.computeNextState();`,
            # `computeNextState() {`) reads the same with any new name: a rewrite's
            # `this.wakeUp();` is no sign that the old one became `wakeUp` (mobx's
            # `ViewNode.computeNextState` became `DerivedValue.compute`, 0.68 alike).
            at = _whole_words(text, old)
            if at and _names_something(_replaced(text, old, at, "")):
                removed.add(_replaced(text, old, at, new).strip().encode())
        elif line.startswith(b"+") and not line.startswith(b"+++"):
            added.add(line[1:].strip())
    return removed & added


# Words that name nothing of the code's own: `this`, `self`, the keywords of a bare call.
_NOT_NAMES = frozenset({"this", "self", "return", "await", "def", "fn", "func", "function"})
_ASCII_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")


def _word_char(char: str) -> bool:
    """`[\\w$]` of a regular expression over text (`\\w` is `str.isalnum()` and `_`)."""
    return char.isalnum() or char in "_$"


def _whole_words(text: str, word: str) -> list[int]:
    """Where `word` stands in `text` as a whole word (no `[\\w$]` on either side), left to
    right, not overlapping: what `(?<![\\w$])WORD(?![\\w$])` finds. (Written out: `re` costs
    `tether history` ~2 ms to import, see `anchors.lazy`; a property test compares them.)"""
    found: list[int] = []
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not _word_char(text[at - 1])) and (
            end == len(text) or not _word_char(text[end])
        ):
            found.append(at)
            at = text.find(word, end)
        else:
            at = text.find(word, at + 1)
    return found


def _replaced(text: str, word: str, where: list[int], new: str) -> str:
    """`text` with the `word` at each of `where` replaced by `new`."""
    pieces: list[str] = []
    last = 0
    for at in where:
        pieces += (text[last:at], new)
        last = at + len(word)
    pieces.append(text[last:])
    return "".join(pieces)


def _names_something(text: str) -> bool:
    """Whether `text` holds a word that names something: a whole word that starts with an
    ASCII letter, `_` or `$` and is none of `_NOT_NAMES`."""
    at, size = 0, len(text)
    while at < size:
        char = text[at]
        if char in _ASCII_START and (at == 0 or not _word_char(text[at - 1])):
            end = at + 1
            while end < size and _word_char(text[end]):
                end += 1
            if text[at:end] not in _NOT_NAMES:
                return True
            at = end
        else:
            at += 1
    return False


def _kin_first(target: Found, candidates: list[Found], present: set[str]) -> list[Found]:
    """`candidates` without those of the target's last name that are nested less deep in the
    target's own enclosing definitions than another of that name, when that enclosing definition
    lives on (`present`): backbone's 3d8fe92f made each method's `success` callback an
    `options.success`, and `save.options.success` is `save.success`, not the more alike
    `fetch.success`."""
    parts = target.name.split(".")[:-1]
    if not parts:
        return candidates

    def shared(candidate: Found) -> int:
        count = 0
        for mine, theirs in zip(parts, candidate.name.split(".")[:-1], strict=False):
            if mine != theirs:
                break
            count += 1
        return count

    same = [c for c in candidates if c.short_name == target.short_name and "." in c.name]
    if len(same) < 2:
        return candidates
    depth = {id(c): shared(c) for c in same}
    best = max(depth.values())
    if best == 0 or best == min(depth.values()) or ".".join(parts[:best]) not in present:
        return candidates
    return [c for c in candidates if depth.get(id(c), best) == best]


def _in_renamed_class(target: Found, old: Version, new: Version | None) -> Found | None:
    """The method of the target's name in the class the target's class was renamed from, when
    that class's name was given to another in the same commit (so its methods' names live on,
    in the new one): aiohttp renamed `ServerResponse` to `ServerStreamResponse` and declared a
    new `ServerResponse(ServerStreamResponse)` with an `__init__` of its own. The class was
    renamed when at least two of its members, and half of them, are the new class's too; the
    method must be at least `RENAME_SIMILARITY` like the target, and more than like the
    definition that now bears its name."""
    scope = _scope(target.name)
    if new is None or not scope or any(s.name == scope for s in old.symbols):
        return None  # (its class is not new)
    now = {s.name: s for s in new.symbols}
    for sym in old.symbols:
        if (
            sym.short_name != target.short_name
            or sym.name not in now
            or not compatible(sym, target.symbol)
            or not _class_renamed(_scope(sym.name), scope, old, new)
        ):
            continue
        candidate = Found(sym, old)
        alike = similarity(candidate, target)
        if alike >= RENAME_SIMILARITY and alike > similarity(candidate, Found(now[sym.name], new)):
            return candidate
    return None


def _went_to_renamed_class(
    namesake: Found, target: Found, old: Version, new: Version | None, patch: Patch | None
) -> bool:
    """Whether `namesake` (the parent's definition of the target's name) went on in the class
    its own class was renamed to, the target being a new definition of a new class that took
    the old name (see `_in_renamed_class`, whose answer for that method is `namesake`). Asked
    only where the commit changed the class's declaration line (renamed it there): the newer
    file is not parsed for every step that finds the symbol's name where it was."""
    scope = _scope(target.name)
    if new is None or patch is None or not scope:
        return False
    declared = next((s.start_line for s in old.symbols if s.name == scope), None)
    if declared is None or not any(
        start <= declared < start + count for start, count, _, _ in patch.hunks
    ):
        return False
    others = [
        s
        for s in new.symbols
        if s.short_name == target.short_name and s.name != target.name and _scope(s.name)
    ]
    if not others:
        return False
    before = {s.name for s in old.symbols}
    for other in others:
        found = Found(other, new)
        if (
            _scope(other.name) not in before
            and compatible(namesake.symbol, other)
            and _class_renamed(scope, _scope(other.name), old, new)
            and _in_renamed_class(found, old, new) == namesake
        ):
            return True
    return False


def _class_renamed(previous: str, scope: str, old: Version, new: Version) -> bool:
    """Whether class `previous` of `old` became class `scope` of `new`: at least two of its
    members' last names, and half of them, are the new class's, and under half of them are
    still its own."""
    if not previous or previous == scope:
        return False
    members_old = {s.short_name for s in old.symbols if _scope(s.name) == previous}
    members_new = {s.short_name for s in new.symbols if _scope(s.name) == scope}
    # (and the class of the old name, if there is one after the commit, is another: it has
    # under half of its members; zod's `ZodDefaulter`, written from `ZodOptional`, left it as
    # it was)
    kept = {s.short_name for s in new.symbols if _scope(s.name) == previous} & members_old
    shared = len(members_old & members_new)
    return shared >= 2 and 2 * shared >= len(members_old) and 2 * len(kept) < len(members_old)


def _scope(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _constructor_function(target: Found, old: Version) -> Found | None:
    """A JavaScript class's `constructor` written from the constructor function of the class's
    name that the class replaced (`function NyanCat(runner) {...}` with prototype methods became
    `class NyanCat { constructor(runner) {...} }` when mocha's reporters left `util.inherits`):
    that function, its body the constructor's. None otherwise (a class that was a class already
    had no constructor before)."""
    sym = target.symbol
    if sym.short_name != "constructor" or target.version.language not in _CLASS_SCRIPTS:
        return None
    owner = sym.name.rpartition(".")[0]
    if not owner:
        return None
    for before in old.symbols:
        if before.name == owner:
            if before.kind == "function" and before.body_start < before.end_byte:
                return Found(before, old)
            return None
    return None


_CLASS_SCRIPTS = _OBJECT_LANGUAGES


def _class_constructor(target: Found, namesake: Symbol, old: Version) -> Found | None:
    """The other way: a constructor function written from the `constructor` of the class of
    its name that it replaced (node-fetch's f08b120 made `class Body { constructor(body,
    opts) {...} }` `function Body(body, opts) {...}` with prototype methods): that
    constructor, not the class."""
    if (
        namesake.kind != "class"
        or target.symbol.kind != "function"
        or target.version.language not in _CLASS_SCRIPTS
    ):
        return None
    wanted = namesake.name + ".constructor"
    for sym in old.symbols:
        if sym.name == wanted:
            return Found(sym, old)
    return None


# Bytes that are not part of a word (ASCII other than letters, digits, `_` and `$`), as spaces.
_NOT_WORD = bytes(c if (c >= 128 or chr(c).isalnum() or c in b"_$") else 32 for c in range(256))


def _word_counts(text: bytes) -> dict[bytes, int]:
    """How many times each word occurs in `text`."""
    counts: dict[bytes, int] = {}
    for word in text.translate(_NOT_WORD).split():
        counts[word] = counts.get(word, 0) + 1
    return counts


def _body_words(found: Found) -> dict[bytes, int]:
    """The words of a definition's body, counted."""
    symbol = found.symbol
    return _word_counts(found.version.source[symbol.body_start : symbol.end_byte])


def _shared(words: dict[bytes, int], text: bytes) -> int:
    """How many of `words` (counted with repeats) `text` holds."""
    there = _word_counts(text)
    return sum(min(count, there.get(word, 0)) for word, count in words.items())


def _diff_side(diff: bytes, sign: bytes) -> bytes:
    """The lines a `-U0` diff removed (`sign` b"-") or added (b"+"), without their signs' file
    headers (`--- a/...`, `+++ b/...`)."""
    header = sign * 3 + b" "
    return b"\n".join(line for line in diff.split(b"\n") if line[:1] == sign and line[:4] != header)


def _removes(diff: bytes | None, name: bytes) -> bool:
    """Whether a `-U0` diff removes a line containing `name` (a diff not read: maybe)."""
    if diff is None:
        return True
    return any(
        line.startswith(b"-") and not line.startswith(b"---") and name in line
        for line in diff.split(b"\n")
    )


def _copies(hits: list[tuple[float, str, Found, bool]]) -> bool:
    """Whether the candidates are copies of one definition: one last name, each in its own
    file, the same code (a build's per-platform copies of one class; a method copied into
    sibling classes, then pulled up into their new base: commons-cli's `checkRequiredOptions`,
    in both `GnuParser` and `PosixParser` until `Parser` took it)."""
    first = hits[0][2]
    return len({h[1] for h in hits}) == len(hits) and all(
        h[2].short_name == first.short_name and similarity(h[2], first) >= 1.0 for h in hits[1:]
    )


def _declaration_line(cur: State) -> bytes:
    """The symbol's declaration line (the first naming it, below any decorator), stripped:
    what an older version must hold to be parsed when looking for the symbol written back (a
    name the file calls everywhere would have every older version of a big file parsed)."""
    name = cur.found.short_name.encode()
    sym = cur.found.symbol
    lines = cur.found.version.lines[sym.start_line - 1 : sym.end_line]
    return next((line.strip() for line in lines if name in line), name)


def _converted(old_path: str, new_path: str) -> bool:
    """Whether `new_path` is `old_path` with the extension of another language of its kin (a
    JavaScript file made TypeScript, `object.js` to `object.ts`; C made C++)."""
    old_stem, old_ext = os.path.splitext(old_path)
    new_stem, new_ext = os.path.splitext(new_path)
    if old_stem != new_stem or old_ext == new_ext:
        return False
    there, here = language_for_path(old_path), language_for_path(new_path)
    return there is not None and here is not None and _kindred(there, here)


def _aliased(target: Found, old: Version, new: Version | None) -> Found | None:
    """When `target` is a new name given to a definition that had another (`exports.compile =
    function` made `compile = exports.compile = function`: ejs's 43cdac02), the definition
    under its older name: a name of the same span in the newer version that the older one
    held."""
    if new is None:
        return None
    mine = next((s for s in new.symbols if s.name == target.name), None)
    if mine is None:
        return None
    others = {
        s.name
        for s in new.symbols
        if s.name != mine.name and s.start_byte == mine.start_byte and s.end_byte == mine.end_byte
    }
    if not others:
        return None
    for sym in old.symbols:
        if sym.name in others and compatible(sym, mine):
            return Found(sym, old)
    return None


def _shared_qualifiers(a: str, b: str) -> int:
    """How many leading parts of their qualified names two definitions share, their last names
    left out (`Model.save.success`, `Model.save.options.success`: two)."""
    return len(os.path.commonprefix([a.split(".")[:-1], b.split(".")[:-1]]))


def _written_back(
    before: Version, cur: State, same_name: bool = False
) -> tuple[list[str], Found] | None:
    """The symbol's namesake in `before`, the version it was deleted from (the same qualified
    name, or with `same_name` false the same last name part, the likest), when the text
    written back is at least RESTORED_SIMILARITY like it: (what changed, the symbol there)."""
    if same_name:
        alike = [s for s in before.symbols if s.name == cur.found.name]
    else:
        alike = [s for s in before.symbols if s.short_name == cur.found.short_name]
    best: tuple[float, Found] | None = None
    for match in alike:
        found = Found(match, before)
        score = similarity(found, cur.found)
        if score >= RESTORED_SIMILARITY and (best is None or score > best[0]):
            best = (score, found)
    if best is None:
        return None
    return differences(best[1], cur.found), best[1]
