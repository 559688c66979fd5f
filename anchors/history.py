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

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from anchors import git
from anchors.errors import UsageError
from anchors.languages import language_for_path

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

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


class BlobReader:
    """One `git cat-file --batch` process for the whole walk; parsed symbols cached per blob."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._versions: dict[tuple[str, str], Version] = {}
        self._raw: dict[str, bytes] = {}

    def read(self, spec: str) -> tuple[str, bytes] | None:
        """(blob sha, content) of `spec` (a blob sha or `REV:PATH`), or None when missing."""
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self._root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            if len(header) >= 3:  # a tree or commit: skip its content
                proc.stdout.read(int(header[2]) + 1)
            return None
        size = int(header[2])
        data = proc.stdout.read(size + 1)[:-1]
        return header[0].decode(), data

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


@dataclass
class _Commit:
    sha: str
    parents: list[str]  # rewritten: the previous commits that touched the file
    author: str
    date: str
    timestamp: int
    old_blob: str | None  # None: the file was added here (or only its mode changed: "same")
    new_blob: str | None
    hunks: list[tuple[int, int, int, int]]  # (old_start, old_count, new_start, new_count)


def _file_log(root: Path, rev: str, path: str) -> dict[str, _Commit]:
    """The commits that touched PATH in the history of REV, with their hunks, by sha."""
    proc = git.run(
        [
            "-c", "core.quotePath=false", "log", "--parents", "--no-renames", "-p", "-U0",
            "--full-index", "--no-color", "--no-ext-diff", "--no-textconv",
            "--format=%x00%H %P%x1f%an%x1f%aI%x1f%ct%x1f", rev, "--", path,
        ],
        root,
    )  # fmt: skip
    commits: dict[str, _Commit] = {}
    for record in proc.stdout.split(b"\x00")[1:]:
        head, _, patch = record.partition(b"\x1f\n") if b"\x1f\n" in record else (record, b"", b"")
        fields = head.decode("utf-8", "replace").split("\x1f")
        shas = fields[0].split()
        old_blob = new_blob = None
        match = _INDEX.search(patch)
        if match:
            old_blob, new_blob = match.group(1).decode(), match.group(2).decode()
            if _ZERO.match(old_blob):
                old_blob = None
        elif patch.strip():
            old_blob = new_blob = "same"  # a mode change only
        hunks = [
            (
                int(m.group(1)),
                int(m.group(2)) if m.group(2) is not None else 1,
                int(m.group(3)),
                int(m.group(4)) if m.group(4) is not None else 1,
            )
            for m in _HUNK.finditer(patch)
        ]
        commits[shas[0]] = _Commit(
            sha=shas[0],
            parents=shas[1:],
            author=fields[1] if len(fields) > 1 else "",
            date=fields[2] if len(fields) > 2 else "",
            timestamp=int(fields[3]) if len(fields) > 3 and fields[3].isdigit() else 0,
            old_blob=old_blob,
            new_blob=new_blob,
            hunks=hunks,
        )
    return commits


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
        self, blob: str, source: bytes, language: str, base: Version | None = None
    ) -> None:
        self.blob = blob
        self.language = language
        self._source = source
        self._base = base
        self._tree: Tree | None = None
        self._symbols: list[Symbol] | None = None
        self._norms: dict[tuple[int, int, str], str] = {}

    @property
    def source(self) -> bytes:
        return self._source

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
    if old.version.signature_of(old.symbol) != new.version.signature_of(new.symbol):
        kinds.append("signature")
    if _squeeze(old.version.body_of(old.symbol)) != _squeeze(new.version.body_of(new.symbol)):
        kinds.append("body")
    return kinds


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


def _enclosing_lines(symbols: list[Symbol], name: str) -> tuple[int, ...]:
    """Start lines of the definitions that qualify `name` (their header is part of the name)."""
    parts = name.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts))}
    return tuple(s.start_line for s in symbols if s.name in prefixes)


# --------------------------------------------------------------------------- the walk


@dataclass
class _State:
    """Where the symbol is in one version of a file."""

    path: str
    found: _Found  # the last parsed version of it (same code as here)
    start: int
    end: int
    headers: tuple[int, ...]

    @classmethod
    def of(cls, path: str, found: _Found) -> _State:
        sym = found.symbol
        headers = _enclosing_lines(found.version.symbols, sym.name)
        return cls(path, found, sym.start_line, sym.end_line, headers)

    def shifted(self, hunks: list[tuple[int, int, int, int]]) -> _State:
        return _State(
            self.path,
            self.found,
            _shift(self.start, hunks),
            _shift(self.end, hunks),
            tuple(_shift(h, hunks) for h in self.headers),
        )


def _touches(state: _State, hunks: list[tuple[int, int, int, int]], margin: int = 1) -> bool:
    """Whether any hunk (new-side lines) touches the symbol, its neighbours or its qualifiers."""
    lo, hi = state.start - margin, state.end + margin
    for _, _, new_start, new_count in hunks:
        if new_count == 0:  # a deletion after line new_start
            if lo <= new_start <= state.end + margin - 1:
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


def _shift(line: int, hunks: list[tuple[int, int, int, int]]) -> int:
    """Map a new-side line that no hunk touches to its old-side number."""
    delta = 0
    for _, old_count, new_start, new_count in hunks:
        end = new_start + new_count - 1 if new_count else new_start
        if end < line:
            delta += new_count - old_count
    return line - delta


class _Walker:
    def __init__(self, root: Path, blobs: BlobReader) -> None:
        self.root = root
        self.blobs = blobs
        self.entries: dict[str, HistoryEntry] = {}
        self.shallow = _shallow_commits(root)
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

    def walk_file(self, rev: str, state: _State, visited: set[tuple[str, str]]) -> None:
        """Follow `state` (the symbol as of REV) back through the commits that touched its file."""
        path = state.path
        language = language_for_path(path) or ""
        log = _file_log(self.root, rev, path)
        if not log:
            return
        # The first listed commit is the tip of the simplified history; REV itself may not have
        # touched the file, in which case its content is the tip's.
        tip = next(iter(log))
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
                stack.extend(self.merge(commit, cur))
                continue
            if commit.old_blob is None:  # the file appears here
                self.origin(commit, cur, visited)
                continue
            parent = commit.parents[0] if commit.parents else None
            if parent is None and sha in self.shallow:
                self.boundary.append(sha)
                continue
            if commit.old_blob == "same" or not _touches(cur, commit.hunks):
                if parent is not None:
                    stack.append((parent, cur.shifted(commit.hunks)))
                continue
            # A hunk beside the symbol (not in it) leaves its text whole in the parent: find
            # it there without parsing.
            if not _touches(cur, commit.hunks, margin=0):
                unchanged = self.unchanged_in(commit.old_blob, cur)
                if unchanged is not None:
                    if parent is not None:
                        stack.append((parent, unchanged))
                    continue
            old = self.blobs.version(commit.old_blob, language, base=cur.found.version)
            new = self.blobs.version(commit.new_blob or "", language, base=cur.found.version)
            match = self.locate(cur.found, old, new)
            if match is None:
                self.origin(commit, cur, visited)
                continue
            kinds = _differences(match, cur.found)
            if match.name != cur.found.name:
                kinds.insert(0, "rename")
            self.record(commit, kinds, cur)
            if parent is not None:
                stack.append((parent, _State.of(path, match)))

    def unchanged_in(self, blob: str, cur: _State) -> _State | None:
        """The state in the parent when the symbol's exact text is there once, else None."""
        text = cur.found.version.text_of(cur.found.symbol)
        data = self.blobs.raw(blob)
        at = data.find(text)
        if at < 0 or data.find(text, at + 1) >= 0:
            return None
        start = data.count(b"\n", 0, at) + 1
        headers = tuple(h - (cur.start - start) for h in cur.headers)
        return _State(cur.path, cur.found, start, start + (cur.end - cur.start), headers)

    def locate(self, target: _Found, old: Version, new: Version | None) -> _Found | None:
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
        if (
            len(siblings) == 1
            and len(appeared) == 1
            and appeared[0].name == target.name
            and _similarity(siblings[0], target) >= 0.25
        ):
            return siblings[0]
        return None

    def merge(self, commit: _Commit, cur: _State) -> list[tuple[str, _State]]:
        """A merge that touched the file: a change only if it differs from every parent."""
        follow: list[tuple[str, _State]] = []
        same_as_a_parent = False
        first: _Found | None = None
        here = self.blobs.version_at(commit.sha, cur.path)
        for index, parent in enumerate(commit.parents):
            got = self.blobs.read(f"{parent}:{cur.path}")
            if got is None:
                continue
            quick = self.unchanged_in(got[0], cur)
            if quick is not None:
                same_as_a_parent = True
                follow.append((parent, quick))
                continue
            old = self.blobs.version(got[0], cur.found.version.language)
            match = self.locate(cur.found, old, here)
            if match is None:
                continue
            if index == 0:
                first = match
            if match.name == cur.found.name and not _differences(match, cur.found):
                same_as_a_parent = True
            follow.append((parent, _State.of(cur.path, match)))
        if not same_as_a_parent:
            if first is not None:
                kinds = _differences(first, cur.found)
                if first.name != cur.found.name:
                    kinds.insert(0, "rename")
                self.record(commit, kinds or ["body"], cur)
            elif not follow:
                self.record(commit, ["introduced"], cur)
        return follow

    def origin(self, commit: _Commit, cur: _State, visited: set[tuple[str, str]]) -> None:
        """The symbol is not in this file before `commit`: renamed file, moved, or introduced."""
        sha = commit.sha
        if sha in self.shallow:
            self.boundary.append(sha)
            return
        real = git.run(["rev-parse", "-q", "--verify", f"{sha}^"], self.root, check=False)
        parent = real.stdout.decode().strip()
        if real.returncode != 0 or not parent:
            self.record(commit, ["introduced"], cur)
            return
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
                kinds = ["file-rename", *_differences(match, cur.found)]
                if match.name != cur.found.name:
                    kinds.append("rename")
                self.record(commit, kinds, cur)
                self.walk_file(parent, _State.of(old_path, match), visited)
                return
        # 2. Moved from another file: a definition like it vanished from a file this commit
        #    deleted or modified.
        found = self.moved_from(sha, parent, cur, changes)
        if found is not None:
            old_path, match = found
            kinds = ["move", *_differences(match, cur.found)]
            if match.name != cur.found.name:
                kinds.append("rename")
            self.record(commit, kinds, cur)
            self.walk_file(parent, _State.of(old_path, match), visited)
            return
        self.record(commit, ["introduced"], cur)

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


def _shallow_commits(root: Path) -> set[str]:
    path = git.out(["rev-parse", "--git-path", "shallow"], root)
    shallow = Path(path) if Path(path).is_absolute() else root / path
    try:
        return set(shallow.read_text().split())
    except OSError:
        return set()


# --------------------------------------------------------------------------- entry point


def resolve_rev(root: Path, rev: str) -> str:
    """The full sha of REV's commit, or a HistoryError."""
    if not rev or rev.startswith("-"):
        raise HistoryError(f"bad revision {rev!r}")
    proc = git.run(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], root, check=False)
    sha = proc.stdout.decode().strip()
    if proc.returncode != 0 or not sha:
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


def symbol_history(root: Path, path: str, symbol: str, rev: str = "HEAD") -> History:
    """The commits, newest first, that introduced or changed `symbol` of `path` as of `rev`.

    `path` is relative to the repository root. Raises HistoryError for a bad REV, a file that
    is not at REV, a language without a grammar, or an unknown symbol (naming the closest).
    """
    sha = resolve_rev(root, rev)
    language = language_for_path(path)
    if language is None:
        raise HistoryError(f"no grammar for {path}: history needs a symbol in a supported language")
    blobs = BlobReader(root)
    try:
        version = blobs.version_at(sha, path)
        if version is None:
            raise HistoryError(f"{path} does not exist at {rev}")
        target = next((s for s in version.symbols if s.name == symbol), None)
        if target is None:
            raise HistoryError(_unknown_symbol(path, symbol, rev, version.symbols))
        walker = _Walker(root, blobs)
        walker.walk_file(sha, _State.of(path, _Found(target, version)), set())
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
