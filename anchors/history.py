"""`tether history`: the commits that introduced or changed one symbol, like `git log -L` but
symbol-aware.

How the walk goes (one `git log` per file the symbol lived in, one `git cat-file --batch`):

1. `git log -p -U0 --parents REV -- PATH` lists, newest first, the commits that touched the file,
   with their hunks and parents rewritten to the previous commit that touched it (git's history
   simplification: a merge whose file equals one parent's follows that parent only).
2. The symbol's line span is carried from each commit to its parent through the hunk headers. Only
   when a hunk touches the span (or the header line of an enclosing class, which is part of the
   qualified name) is the parent's blob read and parsed with tree-sitter (once per blob).
3. In the parent the symbol is found by qualified name; failing that, by body similarity among the
   names that disappeared from the file in that commit (a rename). Normalised signature and body
   are compared, so commits that only touch whitespace or comments are not changes.
4. When the symbol is not in the parent's file: git's rename detection on that commit says whether
   the file was renamed (`file-rename`); otherwise the files the commit deleted or modified are
   searched for a definition that disappeared from them with the same name or body (`move`).
   Failing both, the commit `introduced` it. A function extracted out of another one is therefore
   `introduced` where it was extracted (its code did not disappear from anywhere), and the parent's
   history shows that commit as a `body` change of its own and nothing of the extracted function's
   later edits.
5. A merge commit is a change only when the symbol in it differs from the symbol in every parent
   (a conflict resolution or an "evil" merge); the walk continues into every parent.

"Whitespace" includes whitespace inside string literals: re-wrapping a docstring is not a change,
editing its words is.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from anchors import git
from anchors.errors import UsageError
from anchors.languages import language_for_path

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query, Tree

    from anchors.symbols import Symbol

CHANGE_KINDS = ("introduced", "body", "signature", "rename", "move", "file-rename")
# Below this similarity a definition that vanished is not taken for the one that appeared.
RENAME_SIMILARITY = 0.5
MOVE_SIMILARITY_SAME_NAME = 0.4
MOVE_SIMILARITY_OTHER_NAME = 0.75
# A commit that rewrites more files than this is not searched file by file for a moved symbol
# (a mass reformat or vendoring): only files whose diff mentions the symbol's name are.
MOVE_SEARCH_FILES = 40

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_INDEX = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)", re.M)
_ZERO = re.compile(r"^0+$")


class HistoryError(UsageError):
    """Bad SPEC, unknown symbol, bad REV, or a path git does not know: exit 2."""


@dataclass(frozen=True)
class HistoryEntry:
    """One commit in a symbol's history."""

    commit: str
    changes: tuple[str, ...]
    path: str  # the file the symbol lived in after this commit
    symbol: str  # its qualified name after this commit
    author: str
    date: str  # author date, ISO 8601
    timestamp: int = field(default=0, compare=False)  # committer time, for ordering

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


@dataclass
class History:
    """The answer of `symbol_history`: commits newest first, plus notices (e.g. shallow clone)."""

    path: str
    symbol: str
    rev: str
    commits: list[HistoryEntry]
    notices: list[str] = field(default_factory=list)
    truncated: bool = False

    def to_dict(self) -> dict[str, object]:
        """The JSON document of `tether history --json`."""
        return {
            "path": self.path,
            "symbol": self.symbol,
            "rev": self.rev,
            "commits": [c.to_dict() for c in self.commits],
            "notices": list(self.notices),
            "truncated": self.truncated,
        }


def parse_spec(spec: str) -> tuple[str, str]:
    """`PATH::SYMBOL` -> (path, symbol); anything else is a HistoryError."""
    path, sep, symbol = spec.partition("::")
    if not sep or not path.strip() or not symbol.strip():
        raise HistoryError(
            f"bad spec {spec!r}: expected PATH::SYMBOL, e.g. src/app.py::Client.send"
        )
    return path.strip(), symbol.strip()


# --------------------------------------------------------------------------- reading git


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    env["LC_ALL"] = "C"
    return env


class BlobReader:
    """One `git cat-file --batch` process for the whole walk; parsed symbols cached per blob."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._versions: dict[tuple[str, str], Version] = {}
        self._raw: dict[str, bytes] = {}

    def _object(self, spec: str) -> tuple[str, str, bytes] | None:
        """(sha, type, content) of an object name, or None when git does not know it."""
        if "\n" in spec:
            return None
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self._root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_git_env(),
            )
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or not header[2].isdigit():
            return None
        data = proc.stdout.read(int(header[2]) + 1)[:-1]
        return header[0].decode(), header[1].decode(), data

    def read(self, spec: str) -> tuple[str, bytes] | None:
        """(blob sha, content) of `spec` (a blob sha or `REV:PATH`), or None when missing."""
        got = self._object(spec)
        if got is None or got[1] != "blob":
            return None
        return got[0], got[2]

    def commit(self, rev: str) -> str | None:
        """The full sha of REV's commit (REV peeled to a commit), or None."""
        got = self._object(f"{rev}^{{commit}}")
        return got[0] if got is not None and got[1] == "commit" else None

    def parents(self, sha: str) -> list[str]:
        """The parents of a commit, as recorded in it (not rewritten)."""
        got = self._object(sha)
        if got is None or got[1] != "commit":
            return []
        parents: list[str] = []
        for line in got[2].split(b"\n"):
            if not line:
                break  # the end of the headers
            if line.startswith(b"parent "):
                parents.append(line[7:].decode())
        return parents

    def version(self, blob: str, language: str, base: Version | None = None) -> Version:
        """The parsed version of a blob (parsed once per blob sha; incrementally from `base`,
        a parsed neighbouring version, when given)."""
        key = (blob, language)
        cached = self._versions.get(key)
        if cached is None:
            cached = Version(blob, self.raw(blob), language, base)
            self._versions[key] = cached
        return cached

    def version_at(self, rev: str, path: str) -> Version | None:
        """The parsed version of PATH at REV, or None when the file is not there."""
        language = language_for_path(path)
        if language is None:
            return None
        got = self.read(f"{rev}:{path}")
        if got is None:
            return None
        self._raw.setdefault(got[0], got[1])
        return self.version(got[0], language)

    def raw(self, blob: str) -> bytes:
        """A blob's bytes (cached: the walk asks for the same ones again)."""
        data = self._raw.get(blob)
        if data is None:
            got = self.read(blob)
            data = got[1] if got else b""
            self._raw[blob] = data
        return data

    def close(self) -> None:
        """End the cat-file process."""
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait()
            self._proc = None


Hunk = tuple[int, int, int, int]  # (old_start, old_count, new_start, new_count), as git says


@dataclass
class _Patch:
    """One file's diff in one commit (against one parent), with zero lines of context."""

    old_blob: str | None  # None: the file was added (or only its mode changed: "same")
    new_blob: str | None
    hunks: list[Hunk]
    raw: bytes = b""
    bodies: list[tuple[int, int]] = field(default_factory=list)  # each hunk's lines in `raw`

    def old_lines(self, index: int) -> list[bytes]:
        """The lines hunk `index` removed, each with its newline (as they were in the parent)."""
        start, end = self.bodies[index]
        lines: list[bytes] = []
        for line in self.raw[start:end].split(b"\n"):
            if line.startswith(b"-"):
                lines.append(line[1:] + b"\n")
            elif line.startswith(b"\\") and lines:  # "\ No newline at end of file"
                lines[-1] = lines[-1][:-1]
        return lines[: self.hunks[index][1]]


def _parse_patch(patch: bytes) -> _Patch:
    """The blobs and hunks of one file's `-U0 --full-index` diff."""
    old_blob = new_blob = None
    match = _INDEX.search(patch)
    if match:
        old_blob, new_blob = match.group(1).decode(), match.group(2).decode()
        if _ZERO.match(old_blob):
            old_blob = None
    elif patch.strip():
        old_blob = new_blob = "same"  # a mode change only
    hunks: list[Hunk] = []
    bodies: list[tuple[int, int]] = []
    for m in _HUNK.finditer(patch):
        hunks.append(
            (
                int(m.group(1)),
                int(m.group(2)) if m.group(2) is not None else 1,
                int(m.group(3)),
                int(m.group(4)) if m.group(4) is not None else 1,
            )
        )
        body = patch.find(b"\n", m.end()) + 1 or len(patch)
        if bodies:
            bodies[-1] = (bodies[-1][0], m.start())
        bodies.append((body, len(patch)))
    return _Patch(old_blob, new_blob, hunks, patch, bodies)


@dataclass
class _Commit:
    sha: str
    parents: list[str]  # rewritten: the previous commits that touched the file
    author: str
    date: str
    timestamp: int
    patch: _Patch  # against the first parent; empty for a merge

    @property
    def old_blob(self) -> str | None:
        return self.patch.old_blob

    @property
    def hunks(self) -> list[Hunk]:
        return self.patch.hunks


class FileLog:
    """`git log -p -U0 --parents REV -- PATH`: the commits that touched PATH, with their hunks.

    The process starts at once and its output is read as the walk asks for commits, so git
    walks the history while the caller parses versions; merges are announced to `on_merge` as
    they arrive (to ask for their diffs early).
    """

    def __init__(self, root: Path, rev: str, path: str) -> None:
        env = _git_env()
        env["GIT_FLUSH"] = "1"  # each commit as soon as git has it
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [
                "git", "-c", "core.quotePath=false", "log", "--parents", "--no-renames", "-p",
                "-U0", "--full-index", "--no-color", "--no-ext-diff", "--no-textconv",
                "--format=%x00%H %P%x1f%an%x1f%aI%x1f%ct%x1f", rev, "--", path,
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )  # fmt: skip
        self.rev = rev
        self.path = path
        self.tip: str | None = None
        self._commits: dict[str, _Commit] = {}
        self._merges: list[_Commit] = []
        self._on_merge: Callable[[_Commit], None] | None = None
        self._pending = b""
        self._eof = False

    def on_merge(self, callback: Callable[[_Commit], None]) -> None:
        """Call `callback` with every merge commit read so far and from now on."""
        self._on_merge = callback
        for merge in self._merges:
            callback(merge)

    def get(self, sha: str) -> _Commit | None:
        """The commit, reading git's output until it has arrived whole (None if it never does)."""
        while sha not in self._commits and not self._eof:
            self._read()
        return self._commits.get(sha)

    def first(self) -> str | None:
        """The newest commit that touched the file (None: none did)."""
        while self.tip is None and not self._eof:
            self._read()
        return self.tip

    def _read(self) -> None:
        proc = self._proc
        chunk = os.read(proc.stdout.fileno(), 1 << 16) if proc and proc.stdout else b""
        if not chunk:
            self._eof = True
            records, self._pending = self._pending, b""
            self.close()
        else:
            data = self._pending + chunk
            # A record is whole when the next one begins: keep the last one for later.
            cut = data.rfind(b"\x00")
            if cut <= 0:
                self._pending = data
                return
            records, self._pending = data[:cut], data[cut:]
        for record in records.split(b"\x00")[1:]:
            commit = _parse_record(record)
            if self.tip is None:
                self.tip = commit.sha
            self._commits[commit.sha] = commit
            if len(commit.parents) > 1:
                self._merges.append(commit)
                if self._on_merge is not None:
                    self._on_merge(commit)

    def close(self) -> None:
        """Stop git (the walk needs no more) and reap it."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc.wait()
            self._proc = None


def _parse_record(record: bytes) -> _Commit:
    head, _, patch = record.partition(b"\x1f\n") if b"\x1f\n" in record else (record, b"", b"")
    fields = head.decode("utf-8", "replace").split("\x1f")
    shas = fields[0].split()
    return _Commit(
        sha=shas[0],
        parents=shas[1:],
        author=fields[1] if len(fields) > 1 else "",
        date=fields[2] if len(fields) > 2 else "",
        timestamp=int(fields[3]) if len(fields) > 3 and fields[3].isdigit() else 0,
        patch=_parse_patch(patch),
    )


class _MergeDiffs:
    """`git diff-tree --stdin` for one path: a merge's diff against each of its parents (git log
    -p shows none for merges). One process for the walk; requests are written as soon as the
    log shows a merge and a thread collects the answers, so they are usually ready when the
    walk reaches the merge."""

    _END = b"::tether-end::"

    def __init__(self, root: Path, path: str) -> None:
        self._root = root
        self._path = path
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._asked: dict[tuple[str, str], int] = {}
        self._answers: list[bytes] = []
        self._ready = threading.Condition()
        self._done = False

    def prefetch(self, merge: _Commit) -> None:
        """Ask for the diffs of a merge against each of its parents."""
        for parent in merge.parents:
            self._ask(merge.sha, parent)

    def _ask(self, commit: str, parent: str) -> int:
        key = (commit, parent)
        index = self._asked.get(key)
        if index is not None:
            return index
        if self._proc is None:
            self._proc = subprocess.Popen(
                [
                    "git", "-c", "core.quotePath=false", "diff-tree", "--stdin", "-p", "-U0",
                    "--no-commit-id", "--no-renames", "--full-index", "--no-color",
                    "--no-ext-diff", "--no-textconv", "--", self._path,
                ],
                cwd=self._root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_git_env(),
            )  # fmt: skip
            self._reader = threading.Thread(target=self._collect, daemon=True)
            self._reader.start()
        assert self._proc.stdin is not None
        index = self._asked[key] = len(self._asked)
        # A line that is not an object name is echoed back after the diff: the end marker.
        self._proc.stdin.write(f"{commit} {parent}\n".encode() + self._END + b"\n")
        self._proc.stdin.flush()
        return index

    def _collect(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        chunks: list[bytes] = []
        for line in self._proc.stdout:
            if line.rstrip(b"\n") == self._END:
                with self._ready:
                    self._answers.append(b"".join(chunks))
                    self._ready.notify_all()
                chunks = []
            else:
                chunks.append(line)
        with self._ready:
            self._done = True
            self._ready.notify_all()

    def diff(self, commit: str, parent: str) -> _Patch:
        """The diff of the path from `parent` to `commit`."""
        index = self._ask(commit, parent)
        with self._ready:
            while len(self._answers) <= index and not self._done:
                self._ready.wait()
            raw = self._answers[index] if index < len(self._answers) else b""
        return _parse_patch(raw)

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            if self._reader is not None:
                self._reader.join()
            self._proc.wait()
            self._proc = None


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
    ) -> None:
        self.blob = blob
        self.language = language
        self.snippet = snippet  # a symbol's lines under its enclosing declarations, not a file
        self._source = source
        self._base = base
        self._tree: Tree | None = None
        self._symbols: list[Symbol] | None = None
        self._lines: list[bytes] | None = None
        self._norms: dict[tuple[int, int, str], str] = {}
        self._flats: dict[tuple[int, int, str], str] = {}

    @property
    def source(self) -> bytes:
        return self._source

    @property
    def lines(self) -> list[bytes]:
        """The source's lines, each with its newline (split on newlines only, as git does)."""
        if self._lines is None:
            self.symbols  # noqa: B018 - the parsed source may differ (invalid UTF-8 repaired)
            parts = self._source.split(b"\n")
            self._lines = [part + b"\n" for part in parts[:-1]]
            if parts[-1]:
                self._lines.append(parts[-1])
        return self._lines

    @property
    def has_error(self) -> bool:
        """Whether the parse needed error recovery (a syntax error or a missing token)."""
        self.symbols  # noqa: B018 - parses
        return self._tree is None or self._tree.root_node.has_error

    @property
    def symbols(self) -> list[Symbol]:
        if self._symbols is None:
            from anchors.languages import parser_for
            from anchors.symbols import check_source, symbols_from_tree

            source = check_source(self._source)[0]
            if source is None:
                self._symbols = []
            else:
                self._source = source
                self._tree = self._parse(parser_for(self.language), source)
                self._symbols = symbols_from_tree(self._tree, source, self.language)
            self._base = None
        return self._symbols

    def _parse(self, parser: Parser, source: bytes) -> Tree:
        """Parse, reusing the tree of a neighbouring version: consecutive versions of a file
        differ in a few lines, and tree-sitter re-parses only around the edit."""
        base = self._base
        if base is None or base._tree is None or base.language != self.language:
            return parser.parse(source)
        old = base._source
        start = _common_prefix(old, source)
        tail = _common_suffix(old[start:], source[start:])
        end_old, end_new = len(old) - tail, len(source) - tail
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

    def norm(self, start: int, end: int, own_name: str) -> str:
        """Tokens of bytes [start, end), one per line, comments left out, `own_name` as <self>."""
        key = (start, end, own_name)
        cached = self._norms.get(key)
        if cached is not None:
            return cached
        from anchors.languages import SUPPORTED

        self.symbols  # noqa: B018 - parses
        assert self._tree is not None
        spec = SUPPORTED[self.language]
        comments, blocks = spec.comment_types, spec.block_types
        source = self._source
        out: list[str] = []
        stack: list[Node | str] = [self._tree.root_node]
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
                    out.append("<self>" if own_name and text == own_name else text)
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

    def flat(self, start: int, end: int, own_name: str) -> str:
        """`_squeeze(norm(start, end, own_name))` computed from the text rather than from every
        token: the comments (and Python's blocks, which become braces) are found by a query
        run in tree-sitter, the rest of the text is taken as it is, whitespace removed and the
        own name, as a whole word, replaced. Only equality of these strings is used."""
        key = (start, end, own_name)
        cached = self._flats.get(key)
        if cached is not None:
            return cached
        query = _marks_query(self.language)
        self.symbols  # noqa: B018 - parses
        if query is None or self._tree is None:
            text = _squeeze(self.norm(start, end, own_name))
            self._flats[key] = text
            return text
        from tree_sitter import QueryCursor

        cursor = QueryCursor(query)
        cursor.set_byte_range(start, end)
        marks: list[tuple[int, int, bytes]] = []  # (from, to, replacement)
        for name, nodes in cursor.captures(self._tree.root_node).items():
            for node in nodes:
                a, b = node.start_byte, node.end_byte
                if name == "c":
                    if b > start and a < end:
                        marks.append((max(a, start), min(b, end), b""))
                elif a >= start and b <= end:
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
        text = raw.decode("utf-8", "replace")
        if own_name:
            text = re.sub(rf"(?<![\w$]){re.escape(own_name)}(?![\w$])", "<self>", text)
        text = "".join(text.replace("\\n", " ").split())
        self._flats[key] = text
        return text

    def signature_of(self, symbol: Symbol) -> str:
        """Squeezed signature tokens (the declaration up to the body), own name as <self>."""
        return _squeeze(self.norm(symbol.start_byte, symbol.body_start, symbol.short_name))

    def body_of(self, symbol: Symbol) -> str:
        """Body tokens, one per line, own name as <self> (the whole declaration if no body)."""
        start = symbol.body_start if symbol.body_start < symbol.end_byte else symbol.start_byte
        return self.norm(start, symbol.end_byte, symbol.short_name)

    def text_of(self, symbol: Symbol) -> bytes:
        """The symbol's source bytes."""
        return self._source[symbol.start_byte : symbol.end_byte]


@dataclass(frozen=True)
class _Found:
    """A symbol in one version of a file."""

    symbol: Symbol
    version: Version

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


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """(row, column in bytes) of a byte offset, as tree-sitter counts them."""
    row = source.count(b"\n", 0, offset)
    return row, offset - (source.rfind(b"\n", 0, offset) + 1)


def _squeeze(text: str) -> str:
    """Token text with every whitespace (and escaped newline inside a token) removed."""
    return "".join(text.replace("\\n", " ").split())


def _differences(old: _Found, new: _Found) -> list[str]:
    """Which of signature and body differ between two versions of one symbol."""
    kinds: list[str] = []
    a, b = old.symbol, new.symbol
    if old.version.flat(a.start_byte, a.body_start, a.short_name) != new.version.flat(
        b.start_byte, b.body_start, b.short_name
    ):
        kinds.append("signature")
    if old.version.flat(*_body_span(a)) != new.version.flat(*_body_span(b)):
        kinds.append("body")
    if _CHECK_FLAT:
        slow: list[str] = []
        if old.version.signature_of(a) != new.version.signature_of(b):
            slow.append("signature")
        if _squeeze(old.version.body_of(a)) != _squeeze(new.version.body_of(b)):
            slow.append("body")
        if slow != kinds:
            import sys

            print(f"FLAT MISMATCH {a.name} {kinds} {slow}", file=sys.stderr)
    return kinds


_CHECK_FLAT = bool(os.environ.get("TETHER_CHECK_FLAT"))


def _body_span(symbol: Symbol) -> tuple[int, int, str]:
    start = symbol.body_start if symbol.body_start < symbol.end_byte else symbol.start_byte
    return start, symbol.end_byte, symbol.short_name


_QUERIES: dict[str, Query | None] = {}


def _marks_query(language: str) -> Query | None:
    """A query for the comments (`c`) and meaningful blocks (`b`) of a language."""
    if language not in _QUERIES:
        from tree_sitter import Query

        from anchors.languages import SUPPORTED, grammar

        spec = SUPPORTED[language]
        patterns = [f"({t}) @c" for t in sorted(spec.comment_types)]
        patterns += [f"({t}) @b" for t in sorted(spec.block_types)]
        try:
            _QUERIES[language] = Query(grammar(language), " ".join(patterns))
        except Exception:  # a node type the grammar lacks: use the token walk
            _QUERIES[language] = None
    return _QUERIES[language]


def _similarity(a: _Found, b: _Found) -> float:
    from anchors.fingerprint import similarity

    return similarity(a.version.body_of(a.symbol), b.version.body_of(b.symbol))


def _compatible(a: Symbol, b: Symbol) -> bool:
    callables = {"function", "method"}
    return a.kind == b.kind or (a.kind in callables and b.kind in callables)


def _best_match(
    target: _Found, candidates: list[_Found], same_name: float, other_name: float
) -> tuple[_Found, float] | None:
    """The candidate most like `target`, if it clears the threshold for its name."""
    best: tuple[float, _Found, float] | None = None
    for cand in candidates:
        if not _compatible(cand.symbol, target.symbol):
            continue
        named = cand.short_name == target.short_name
        sim = _similarity(cand, target)
        if sim < (same_name if named else other_name):
            continue
        score = sim + (0.3 if named else 0.0)
        if best is None or score > best[0]:
            best = (score, cand, sim)
    return (best[1], best[2]) if best else None


def _enclosing(symbols: list[Symbol], name: str) -> list[Symbol]:
    """The definitions that qualify `name`, outermost first (their header is part of the name)."""
    parts = name.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts))}
    return [s for s in symbols if s.name in prefixes]


# --------------------------------------------------------------------------- the walk


@dataclass
class _State:
    """Where the symbol is in one version of a file.

    `header` is the text of the enclosing definitions' declarations (the lines from each one's
    start to its body) and `header_spans` their lines here: with the symbol's own lines they
    make a small source that parses to the same qualified symbol (see `_Walker.snippet_step`).
    """

    path: str
    found: _Found  # the last parsed version of it (same code as here)
    start: int
    end: int
    headers: tuple[int, ...]  # start lines of the enclosing definitions
    header_spans: tuple[tuple[int, int], ...] = ()
    header: bytes | None = None  # None: no usable header text (always parse the whole file)

    @classmethod
    def of(cls, path: str, found: _Found) -> _State:
        sym, version = found.symbol, found.version
        outer = _enclosing(version.symbols, sym.name)
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

    def shifted(self, hunks: list[Hunk]) -> _State:
        return _State(
            self.path,
            self.found,
            _shift(self.start, hunks),
            _shift(self.end, hunks),
            tuple(_shift(h, hunks) for h in self.headers),
            tuple((_shift(a, hunks), _shift(b, hunks)) for a, b in self.header_spans),
            self.header,
        )


def _touches(state: _State, hunks: list[Hunk]) -> bool:
    """Whether any hunk (new-side lines) touches the symbol's lines or its qualifiers' first
    lines. A hunk beside the symbol leaves its text whole: it is found by line shifting."""
    lo, hi = state.start, state.end
    for _, _, new_start, new_count in hunks:
        if new_count == 0:  # a deletion after line new_start
            if lo <= new_start <= hi - 1:
                return True
            if any(h == new_start or h == new_start + 1 for h in state.headers):
                return True
            continue
        last = new_start + new_count - 1
        if new_start <= hi and last >= lo:
            return True
        if any(new_start <= h <= last for h in state.headers):
            return True
    return False


def _attached(patch: _Patch, cur: _State, language: str) -> bool:
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
                if not _comment_line(text, language):
                    return True
        elif language == "python" and (
            new_start == cur.end + 1 or (end == cur.end and not new_count)
        ):
            lines = cur.found.version.lines
            head = lines[cur.found.symbol.start_line - 1] if lines else b""
            first = next((x for x in patch.old_lines(index) if x.strip()), None)
            if first is not None and _indent(first) > _indent(head):
                return True
    return False


def _comment_line(text: bytes, language: str) -> bool:
    if language == "python":
        return text.startswith(b"#")
    return text.startswith((b"//", b"/*", b"*"))


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


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


def _overlaps(hunk: Hunk, first: int, last: int) -> bool:
    _, _, new_start, new_count = hunk
    if new_count == 0:
        return first <= new_start < last
    return new_start <= last and new_start + new_count - 1 >= first


# Closing text appended after the symbol for each enclosing declaration, so that the small source
# parses without error.
_CLOSERS = {"python": b"", "c": b"\n};", "cpp": b"\n};"}


class _Walker:
    def __init__(self, root: Path, blobs: BlobReader, git_dir: Path | None = None) -> None:
        self.root = root
        self.blobs = blobs
        self.entries: dict[str, HistoryEntry] = {}
        self.shallow = _shallow_commits(root, git_dir)
        self.boundary: list[str] = []

    def record(self, commit: _Commit, kinds: list[str], state: _State) -> None:
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
        state: _State,
        visited: set[tuple[str, str]],
        log: FileLog | None = None,
    ) -> None:
        """Follow `state` (the symbol as of REV) back through the commits that touched its file."""
        path = state.path
        language = language_for_path(path) or ""
        given = log is not None
        log = log or FileLog(self.root, rev, path)
        merges = _MergeDiffs(self.root, path)
        try:
            tip = log.first()
            if tip is None and given:
                # A log started early (from the user's directory, before the repository was
                # located) that found nothing, though the file is there: ask again from here.
                log.close()
                log = FileLog(self.root, rev, path)
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
        merges: _MergeDiffs,
        state: _State,
        language: str,
        visited: set[tuple[str, str]],
    ) -> None:
        path = state.path
        # The first listed commit is the tip of the simplified history; REV itself may not have
        # touched the file, in which case its content is the tip's.
        stack: list[tuple[str, _State]] = [(tip, state)]
        while stack:
            sha, cur = stack.pop()
            if (sha, path) in visited:
                continue
            visited.add((sha, path))
            commit = log.get(sha)
            if commit is None:
                continue
            if len(commit.parents) > 1:
                stack.extend(self.merge(commit, cur, merges, language))
                continue
            if commit.old_blob is None:  # the file appears here
                self.origin(commit, cur, visited)
                continue
            parent = commit.parents[0] if commit.parents else None
            if parent is None and sha in self.shallow:
                self.boundary.append(sha)
                continue
            attached = _attached(commit.patch, cur, language)
            if commit.old_blob == "same" or not (attached or _touches(cur, commit.hunks)):
                if parent is not None:
                    stack.append((parent, cur.shifted(commit.hunks)))
                continue
            step = self.step(commit.patch, cur, language, whole=attached)
            if step is None:
                self.origin(commit, cur, visited)
                continue
            kinds, older = step
            self.record(commit, kinds, cur)
            if parent is not None:
                stack.append((parent, older))

    def step(
        self, patch: _Patch, cur: _State, language: str, whole: bool = False
    ) -> tuple[list[str], _State] | None:
        """Through a diff that touches the symbol: (change kinds, the symbol before it), or None
        when the symbol was not in the file before. `whole`: read the whole parent file."""
        older = None if whole else self.snippet_step(patch, cur, language)
        if older is not None:
            return _differences(older.found, cur.found), older
        assert patch.old_blob is not None
        base = cur.found.version if not cur.found.version.snippet else None
        old = self.blobs.version(patch.old_blob, language, base=base)
        blob = patch.new_blob
        new = self.blobs.version(blob, language, base=base) if blob else None
        match = self.locate(cur.found, old, new, patch)
        if match is None:
            return None
        kinds = _differences(match, cur.found)
        if match.name != cur.found.name:
            kinds.insert(0, "rename")
        return kinds, _State.of(cur.path, match)

    def snippet_step(self, patch: _Patch, cur: _State, language: str) -> _State | None:
        """The symbol before `patch`, without reading or parsing the whole file, when the patch
        changed only lines strictly inside it (its first and last lines and its qualifiers'
        declarations untouched): its old lines are its new lines with the hunks undone, and
        they are parsed alone under the enclosing declarations. None when that does not apply
        or the small source does not parse to the same symbol (then the whole file is read)."""
        if cur.header is None or patch.old_blob in (None, "same"):
            return None
        hunks = patch.hunks
        touching: list[int] = []
        for index, hunk in enumerate(hunks):
            if any(_overlaps(hunk, a, b + 1) for a, b in cur.header_spans):
                return None
            if _overlaps(hunk, cur.start, cur.end + 1):
                if not _inside(hunk, cur.start, cur.end):
                    return None
                touching.append(index)
        version, sym = cur.found.version, cur.found.symbol
        new_lines = version.lines[sym.start_line - 1 : sym.end_line]
        if len(new_lines) != cur.end - cur.start + 1:
            return None
        old_lines: list[bytes] = []
        at = cur.start  # the next new-side line to copy
        for index in touching:
            _, _, new_start, new_count = hunks[index]
            upto = new_start if new_count else new_start + 1
            old_lines += new_lines[at - cur.start : upto - cur.start]
            old_lines += patch.old_lines(index)
            at = new_start + new_count if new_count else new_start + 1
        old_lines += new_lines[at - cur.start :]
        if not old_lines or not old_lines[-1].endswith(b"\n"):
            return None
        header = cur.header
        depth = len(cur.header_spans)
        closer = _CLOSERS.get(language, b"\n}") * depth
        source = header + b"".join(old_lines) + closer
        # Parsed incrementally from the newer snippet: the two differ only in the hunks.
        base = version if version.snippet else None
        snippet = Version("", source, language, base, snippet=True)
        first = header.count(b"\n") + 1
        last = first + len(old_lines) - 1
        hits = [s for s in snippet.symbols if s.name == cur.found.name]
        if (
            len(hits) != 1
            or snippet.has_error
            or hits[0].start_line != first
            or hits[0].end_line != last
        ):
            return None
        start = _shift(cur.start, hunks)
        return _State(
            cur.path,
            _Found(hits[0], snippet),
            start,
            start + len(old_lines) - 1,
            tuple(_shift(h, hunks) for h in cur.headers),
            tuple((_shift(a, hunks), _shift(b, hunks)) for a, b in cur.header_spans),
            header,
        )

    def locate(
        self, target: _Found, old: Version, new: Version | None, patch: _Patch | None = None
    ) -> _Found | None:
        """The symbol in the parent's file that `target` came from: same name, else a rename."""
        for sym in old.symbols:
            if sym.name == target.name:
                return _Found(sym, old)
        present = {s.name for s in new.symbols} if new is not None else set()
        gone = [_Found(s, old) for s in old.symbols if s.name not in present]
        hit = _best_match(target, gone, RENAME_SIMILARITY, RENAME_SIMILARITY)
        if hit is not None:
            return hit[0]
        # The same name under another qualifier (a method turned function, a class renamed),
        # however rewritten: the name is the evidence.
        same_short = [
            f
            for f in gone
            if f.short_name == target.short_name and _compatible(f.symbol, target.symbol)
        ]
        if len(same_short) == 1:
            return same_short[0]
        if new is None:
            return None
        # A rename that also rewrote most of the body: exactly one definition of its kind
        # vanished from the same enclosing scope while exactly this one appeared.
        scope = _scope(target.name)
        siblings = [
            f for f in gone if _compatible(f.symbol, target.symbol) and _scope(f.name) == scope
        ]
        before = {s.name for s in old.symbols}
        appeared = [
            s for s in new.symbols if s.name not in before and _compatible(s, target.symbol)
        ]
        if len(siblings) != 1 or target.name not in {s.name for s in appeared}:
            return None
        # Several definitions appeared: this one is the renamed one when a line that used the
        # old name now uses the new one (a call site switched, or the declaration itself).
        if (len(appeared) == 1 or _switched(patch, siblings[0].short_name, target.short_name)) and (
            _similarity(siblings[0], target) >= 0.25
        ):
            return siblings[0]
        return None

    def merge(
        self, commit: _Commit, cur: _State, merges: _MergeDiffs, language: str
    ) -> list[tuple[str, _State]]:
        """A merge that touched the file: a change only if it differs from every parent."""
        follow: list[tuple[str, _State]] = []
        same_as_a_parent = False
        first: list[str] | None = None
        for index, parent in enumerate(commit.parents):
            patch = merges.diff(commit.sha, parent)
            if patch.old_blob is None and patch.hunks:  # the file is not in this parent
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
            if index == 0:
                first = kinds
            if not kinds and older.found.name == cur.found.name:
                same_as_a_parent = True
            follow.append((parent, older))
        if not same_as_a_parent:
            if first is not None:
                self.record(commit, first or ["body"], cur)
            elif not follow:
                self.record(commit, ["introduced"], cur)
        return follow

    def origin(self, commit: _Commit, cur: _State, visited: set[tuple[str, str]]) -> None:
        """The symbol is not in this file before `commit`: renamed file, moved, or introduced."""
        sha = commit.sha
        if sha in self.shallow:
            self.boundary.append(sha)
            return
        parents = self.blobs.parents(sha)
        if not parents:
            self.record(commit, ["introduced"], cur)
            return
        parent = parents[0]
        changes = _tree_changes(self.root, parent, sha)
        # 1. The file was renamed (git's rename detection over the whole commit).
        for status, old_path, new_path in changes:
            if status.startswith("R") and new_path == cur.path:
                old = self.blobs.version_at(parent, old_path)
                if old is None:
                    break
                here = self.blobs.version_at(sha, cur.path)
                match = self.locate(cur.found, old, here)
                if match is None:
                    break
                self.arrived(commit, "file-rename", cur, parent, old_path, match, visited)
                return
        # 2. A file git did not pair with this one because much of it was rewritten, but which
        #    this commit deleted and whose definitions are mostly here by name (a class renamed
        #    and reworked with its file): in it, the symbol is found as in a rename.
        paired = self.paired_file(sha, parent, cur, changes)
        if paired is not None:
            old_path, old = paired
            match = self.locate(cur.found, old, self.blobs.version_at(sha, cur.path))
            if match is not None:
                self.arrived(commit, "file-rename", cur, parent, old_path, match, visited)
                return
        # 3. Moved from another file: a definition like it vanished from a file this commit
        #    deleted or modified.
        found = self.moved_from(sha, parent, cur, changes)
        if found is not None:
            old_path, match = found
            self.arrived(commit, "move", cur, parent, old_path, match, visited)
            return
        self.record(commit, ["introduced"], cur)

    def arrived(
        self,
        commit: _Commit,
        how: str,
        cur: _State,
        parent: str,
        old_path: str,
        match: _Found,
        visited: set[tuple[str, str]],
    ) -> None:
        """The symbol came into this file at `commit` (`how`: file-rename or move) from `match`
        in `old_path`: record the change and follow it there."""
        kinds = [how, *_differences(match, cur.found)]
        if match.name != cur.found.name:
            kinds.append("rename")
        self.record(commit, kinds, cur)
        self.walk_file(parent, _State.of(old_path, match), visited)

    def paired_file(
        self, sha: str, parent: str, cur: _State, changes: list[tuple[str, str, str]]
    ) -> tuple[str, Version] | None:
        """The file deleted by commit `sha` that is the symbol's file under another name: at
        least two of its definitions, and half of them, have a namesake (last name part) in the
        added file, and no other deleted file is like that."""
        if not any(s == "A" and new == cur.path for s, _, new in changes):
            return None
        here = self.blobs.version_at(sha, cur.path)
        if here is None:
            return None
        names = {s.short_name for s in here.symbols}
        pairs: list[tuple[str, Version]] = []
        for status, old_path, _ in changes:
            if status != "D" or language_for_path(old_path) != here.language:
                continue
            old = self.blobs.version_at(parent, old_path)
            if old is None:
                continue
            before = {s.short_name for s in old.symbols}
            shared = len(before & names)
            if shared >= 2 and 2 * shared >= len(before):
                pairs.append((old_path, old))
        # Several deleted files that each look like it: they were merged into a new one.
        return pairs[0] if len(pairs) == 1 else None

    def moved_from(
        self, sha: str, parent: str, cur: _State, changes: list[tuple[str, str, str]]
    ) -> tuple[str, _Found] | None:
        """The file and definition `cur` moved from in commit `sha`, if any."""
        sources = [
            (status, old)
            for status, old, _ in changes
            if status[0] in "DMR" and old != cur.path and language_for_path(old) is not None
        ]
        if len(sources) > MOVE_SEARCH_FILES:
            name = cur.found.short_name.encode()
            sources = [
                (status, old)
                for status, old in sources
                if name in _diff_text(self.root, parent, sha, old)
            ][:MOVE_SEARCH_FILES]
        # Definitions that still exist under their name after the commit (in any file it
        # touched) were not moved here: a function whose body went into a new one while it
        # stayed as a wrapper makes the new one an extraction (introduced), not a move.
        kept: set[str] = set()
        for status, _, new_path in changes:
            if status[0] != "D" and language_for_path(new_path) is not None:
                after_version = self.blobs.version_at(sha, new_path)
                if after_version is not None:
                    kept.update(
                        s.name
                        for s in after_version.symbols
                        if not (new_path == cur.path and s.name == cur.found.name)
                    )
        best: tuple[float, str, _Found] | None = None
        for status, old_path in sources:
            old = self.blobs.version_at(parent, old_path)
            if old is None:
                continue
            after = self.blobs.version_at(sha, old_path) if status[0] != "D" else None
            present = {s.name for s in after.symbols} if after else set()
            gone = [
                _Found(s, old) for s in old.symbols if s.name not in present and s.name not in kept
            ]
            hit = _best_match(
                cur.found, gone, MOVE_SIMILARITY_SAME_NAME, MOVE_SIMILARITY_OTHER_NAME
            )
            if hit is None:
                continue
            score = hit[1] + (0.3 if hit[0].short_name == cur.found.short_name else 0.0)
            if best is None or score > best[0]:
                best = (score, old_path, hit[0])
        return (best[1], best[2]) if best else None


def _switched(patch: _Patch | None, old: str, new: str) -> bool:
    """Whether the patch turned a line using the word `old` into the same line using `new`."""
    if patch is None or not old or not new:
        return False
    before = re.compile(rf"(?<![\w$]){re.escape(old)}(?![\w$])")
    removed: set[bytes] = set()
    added: set[bytes] = set()
    for line in patch.raw.split(b"\n"):
        if line.startswith(b"-") and not line.startswith(b"---"):
            text = line[1:].decode("utf-8", "replace")
            if before.search(text):
                removed.add(before.sub(new, text).strip().encode())
        elif line.startswith(b"+") and not line.startswith(b"+++"):
            added.add(line[1:].strip())
    return bool(removed & added)


def _scope(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name else ""


def _tree_changes(root: Path, parent: str, sha: str) -> list[tuple[str, str, str]]:
    """(status, old path, new path) of every file changed between two commits, renames found."""
    out = git.run(
        ["diff-tree", "-r", "-M", "--no-commit-id", "--name-status", "-z", parent, sha], root
    ).stdout.decode("utf-8", "surrogateescape")
    parts = out.split("\0")
    changes: list[tuple[str, str, str]] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i]
        if status[0] in "RC":
            changes.append((status, parts[i + 1], parts[i + 2]))
            i += 3
        else:
            changes.append((status, parts[i + 1], parts[i + 1]))
            i += 2
    return changes


def _diff_text(root: Path, parent: str, sha: str, path: str) -> bytes:
    return git.run(["diff", "-U0", "--no-color", parent, sha, "--", path], root, check=False).stdout


def _shallow_commits(root: Path, git_dir: Path | None = None) -> set[str]:
    """The shallow boundary commits (none in a full clone)."""
    if git_dir is None and (root / ".git").is_dir():
        git_dir = root / ".git"
    if git_dir is not None:
        shallow = git_dir / "shallow"
    else:  # a linked worktree or a bare repository: ask git where the file is
        path = git.out(["rev-parse", "--git-path", "shallow"], root)
        shallow = Path(path) if Path(path).is_absolute() else root / path
    try:
        return set(shallow.read_text().split())
    except OSError:
        return set()


# --------------------------------------------------------------------------- entry point


def resolve_rev(root: Path, rev: str, blobs: BlobReader | None = None) -> str:
    """The full sha of REV's commit, or a HistoryError."""
    if not rev or rev.startswith("-") or any(c in rev for c in "\n\r\0"):
        raise HistoryError(f"bad revision {rev!r}")
    reader = blobs or BlobReader(root)
    try:
        sha = reader.commit(rev)
    finally:
        if blobs is None:
            reader.close()
    if not sha:
        raise HistoryError(f"unknown revision {rev!r}")
    return sha


def repo_path(root: Path, path: str, cwd: Path | None = None) -> str:
    """PATH as a repository-relative posix path (relative to `cwd` inside the repo when given);
    paths that leave the repository are refused."""
    base = (cwd or root).resolve()
    target = Path(path) if Path(path).is_absolute() else base / path
    resolved = Path(_normpath(str(target)))
    try:
        rel = resolved.relative_to(root.resolve())
    except ValueError:
        raise HistoryError(f"path {path!r} is outside the repository") from None
    text = rel.as_posix()
    if text in ("", "."):
        raise HistoryError(f"path {path!r} is not a file")
    return text


def _normpath(path: str) -> str:
    import os.path

    return os.path.normpath(path)


def start_log(cwd: Path, rev: str, path: str) -> FileLog | None:
    """Start git's walk of PATH (as the user wrote it, relative to `cwd`) from REV, before the
    repository is even located: `symbol_history(..., log=)` reads it while the rest starts up.
    None when REV could be taken for an option."""
    if not rev or rev.startswith("-") or any(c in rev for c in "\n\r\0"):
        return None
    return FileLog(cwd, rev, path)


def symbol_history(
    root: Path,
    path: str,
    symbol: str,
    rev: str = "HEAD",
    git_dir: Path | None = None,
    log: FileLog | None = None,
) -> History:
    """The commits, newest first, that introduced or changed `symbol` of `path` as of `rev`.

    `path` is relative to the repository root. Raises HistoryError for a bad REV, a file that
    is not at REV, a language without a grammar, or an unknown symbol (naming the closest).
    `log`, from `start_log` with the same REV and the same file, saves waiting for git.
    """
    blobs = BlobReader(root)
    try:
        if language_for_path(path) is None:
            raise HistoryError(
                f"no grammar for {path}: history needs a symbol in a supported language"
            )
        sha = resolve_rev(root, rev, blobs)
        # git walks the file's history while the current version is read and parsed.
        log = log or FileLog(root, sha, path)
        version = blobs.version_at(sha, path)
        if version is None:
            raise HistoryError(f"{path} does not exist at {rev}")
        target = next((s for s in version.symbols if s.name == symbol), None)
        if target is None:
            raise HistoryError(_unknown_symbol(path, symbol, rev, version.symbols))
        walker = _Walker(root, blobs, git_dir)
        walker.walk_file(sha, _State.of(path, _Found(target, version)), set(), log)
        entries = sorted(walker.entries.values(), key=lambda e: e.timestamp, reverse=True)
        history = History(path=path, symbol=symbol, rev=sha, commits=entries)
        if walker.boundary:
            history.truncated = True
            for boundary in dict.fromkeys(walker.boundary):
                history.notices.append(
                    f"shallow clone: history stops at {boundary[:12]}, where {symbol} already "
                    "existed; older commits are missing (git fetch --unshallow to see them)"
                )
        elif walker.shallow:
            history.notices.append(
                "shallow clone: the symbol was introduced within the fetched history; "
                "older history of the repository is missing"
            )
        return history
    finally:
        if log is not None:
            log.close()
        blobs.close()


def _unknown_symbol(path: str, symbol: str, rev: str, symbols: list[Symbol]) -> str:
    from difflib import get_close_matches

    names = [s.name for s in symbols]
    close = get_close_matches(symbol, names, n=3, cutoff=0.5)
    if not close:
        short = symbol.rsplit(".", 1)[-1]
        close = [n for n in names if n.rsplit(".", 1)[-1] == short][:3]
    hint = f"; closest: {', '.join(close)}" if close else ""
    return f"no symbol {symbol!r} in {path} at {rev}{hint}"


def iter_changes(history: History) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(commit, changes) pairs, newest first (for scorers and scripts)."""
    for entry in history.commits:
        yield entry.commit, entry.changes
