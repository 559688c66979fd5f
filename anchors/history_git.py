"""Reading git for `tether history`: the file's log with its blobs, diffs on demand, blobs.

Every process is a `GitProcess` (posix_spawn, see `anchors.gitpipe`), and this module imports
little, so that the CLI can start git's walk before the rest of the program is loaded
(`Prestart`): git walks the history on one core while Python starts on the other.
"""

from __future__ import annotations

import os
import select

from anchors.errors import EXIT_FINDINGS, TetherError
from anchors.gitpipe import GitProcess, git_env, run_git

# Nothing more is imported before git is started, and not `re` at all (with `enum` and
# `functools`, ~5 ms of every run): git's output is read with `bytes` methods.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    # A path as the walk takes it: a string or a Path (the walk itself uses os.path only).
    StrPath: TypeAlias = str | os.PathLike[str]

    from anchors.history_compare import Version

_HEX = frozenset(b"0123456789abcdef")


def _zero(sha: str) -> bool:
    return not sha.strip("0")


# git may write this far ahead of the walk (a pipe holds 64 KB by default): its walk goes on
# while the walk here parses versions.
PIPE_SIZE = 1 << 20
# The similarity (percent) at which a definition's move from a file the commit deleted into one
# it added makes the move a file rename (`paired_loosely`): git's default is 50.
LOOSE_RENAME = 40
# From this size on, a file's log lists blobs (`--raw`) rather than diffs (`-p`): in a big file,
# git's diff of every commit costs more than reading the versions and finding the symbol's text
# in them; in a small one, the diffs cost git little and save the walk a question per commit.
RAW_FROM_BYTES = 48 << 10


def big_file(path: str | os.PathLike[str]) -> bool:
    """Whether the working tree's copy of a file is big enough for a `--raw` log (the size at
    the revision asked for is not known yet; this only chooses how to read git)."""
    try:
        return os.stat(path).st_size >= RAW_FROM_BYTES
    except OSError:
        return False


class BlobReader:
    """One `git cat-file --batch` process for the whole walk; parsed symbols cached per blob.

    Blobs asked for ahead (`prefetch`) are read out of the object store by git while the walk
    works on the ones before them; their answers wait in the pipe (1 MB) until read. (A thread
    reading them as they came was measured no faster.) At most a window of questions is asked
    ahead, so git's input pipe never fills while its output pipe is full."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = root
        self._proc: GitProcess | None = None
        self._versions: dict[tuple[str, str], Version] = {}
        self._raw: dict[str, bytes] = {}
        self._recent: dict[str, bytes] = {}  # the last blobs peeked at (see peek)
        self._asked = 0  # questions written to git
        self._read = 0  # answers read
        self._ahead: dict[str, int] = {}  # blobs asked for ahead: the number of their question
        self._answers: dict[int, tuple[str, str, bytes] | None] = {}  # read, not yet taken

    def start(self) -> BlobReader:
        """Start cat-file now rather than at the first question."""
        if self._proc is None:
            self._asked, self._read, self._ahead, self._answers = 0, 0, {}, {}
            self._proc = GitProcess(
                ["cat-file", "--batch"], self._root, stdin=True, pipe_size=PIPE_SIZE
            )
        return self

    def _ask(self, spec: str) -> int:
        proc = self.start()._proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
        self._asked += 1
        return self._asked - 1

    def _answer(self, number: int) -> tuple[str, str, bytes] | None:
        """Answer `number`, reading the ones before it (kept for their turn)."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        if self._read <= number:
            proc.stdin.flush()
        while self._read <= number:
            header = proc.stdout.readline()
            if not header:
                break
            fields = header.split()
            answer = None
            if len(fields) == 3 and fields[2].isdigit():  # not "<name> missing" (or ambiguous)
                data = proc.stdout.read(int(fields[2]) + 1)[:-1]
                answer = (fields[0].decode(), fields[1].decode(), data)
            self._answers[self._read] = answer
            self._read += 1
        return self._answers.pop(number, None)

    def _object(self, spec: str) -> tuple[str, str, bytes] | None:
        """(sha, type, content) of an object name, or None when git does not know it."""
        if "\n" in spec:
            return None
        return self._answer(self._ask(spec))

    def prefetch(self, blobs: list[str]) -> None:
        """Ask for blobs the walk will read soon (`peek` takes them)."""
        for blob in blobs:
            if blob not in self._ahead and blob not in self._raw and blob not in self._recent:
                self._ahead[blob] = self._ask(blob)
        if self._proc is not None and self._proc.stdin is not None:
            self._proc.stdin.flush()

    def read(self, spec: str) -> tuple[str, bytes] | None:
        """(blob sha, content) of `spec` (a blob sha or `REV:PATH`), or None when missing."""
        number = self._ahead.pop(spec, None)
        got = self._object(spec) if number is None else self._answer(number)
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
            from anchors.history_compare import Version

            cached = Version(blob, self.raw(blob), language, base)
            self._versions[key] = cached
        return cached

    def version_at(self, rev: str, path: str, language: str | None = None) -> Version | None:
        """The parsed version of PATH at REV (read as `language`, by default its path's), or
        None when the file is not there or of no known language."""
        from anchors.languages import language_for_path

        language = language or language_for_path(path)
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

    def peek(self, blob: str) -> bytes:
        """A blob's bytes, kept only while the walk is next to it (the walk reads each version of
        a file once, newest first, and compares neighbours: a long history's versions would not
        all fit in memory)."""
        data = self._raw.get(blob) or self._recent.get(blob)
        if data is None:
            got = self.read(blob)
            data = got[1] if got else b""
            if len(self._recent) >= 2:
                del self._recent[next(iter(self._recent))]
            self._recent[blob] = data
        return data

    def close(self) -> None:
        """End the cat-file process (its unread answers are not needed)."""
        if self._proc is not None:
            self._proc.close(kill=True)
            self._proc = None


class ParentReader:
    """Commits' parents as recorded (not rewritten), from a `git cat-file --batch` of their own:
    asked of BlobReader's, a commit's answer waits behind the blobs read ahead there. Asked
    ahead (`prefetch`) of the walk, answers are read in order as needed."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = root
        self._proc: GitProcess | None = None
        self._known: dict[str, list[str]] = {}
        self._waiting: list[str] = []  # asked, not read yet, in the order asked
        self._asked: set[str] = set()

    def _ask(self, shas: list[str]) -> None:
        if self._proc is None:
            self._proc = GitProcess(["cat-file", "--batch"], self._root, stdin=True)
        assert self._proc.stdin is not None
        for sha in shas:
            if sha not in self._asked:
                self._asked.add(sha)
                self._waiting.append(sha)
                self._proc.stdin.write(sha.encode() + b"\n")
        self._proc.stdin.flush()

    def prefetch(self, shas: list[str]) -> None:
        """Ask for commits the walk may ask about soon."""
        # A small window: git writes answers ahead only while the pipe holds them.
        if len(self._waiting) < 64:
            self._ask(shas[: 64 - len(self._waiting)])

    def parents(self, sha: str) -> list[str]:
        known = self._known.get(sha)
        if known is not None:
            return known
        if sha not in self._asked:
            self._ask([sha])
        proc = self._proc
        assert proc is not None
        while self._waiting and sha not in self._known:
            asked = self._waiting.pop(0)
            fields = proc.stdout.readline().split()
            parents: list[str] = []
            if len(fields) == 3 and fields[2].isdigit():
                data = proc.stdout.read(int(fields[2]) + 1)[:-1]
                if fields[1] == b"commit":
                    for line in data.split(b"\n"):
                        if not line:
                            break  # the end of the headers
                        if line.startswith(b"parent "):
                            parents.append(line[7:].decode())
            self._known[asked] = parents
        return self._known.get(sha, [])

    def close(self) -> None:
        if self._proc is not None:
            self._proc.close(kill=True)
            self._proc = None


Hunk = tuple[int, int, int, int]  # (old_start, old_count, new_start, new_count), as git says


class Patch:
    """One file's diff in one commit (against one parent), with zero lines of context."""

    __slots__ = ("old_blob", "new_blob", "hunks", "raw", "bodies", "lazy")

    def __init__(
        self,
        old_blob: str | None,  # None: the file was added (or only its mode changed: "same")
        new_blob: str | None,
        hunks: list[Hunk],
        raw: bytes = b"",
        bodies: list[tuple[int, int]] | None = None,  # each hunk's lines in `raw`
        lazy: bool = False,  # only the blobs are known: ask `PathDiffs` for the hunks
    ) -> None:
        self.old_blob = old_blob
        self.new_blob = new_blob
        self.hunks = hunks
        self.raw = raw
        self.bodies = bodies if bodies is not None else []
        self.lazy = lazy

    def old_lines(self, index: int) -> list[bytes]:
        """The lines hunk `index` removed, each with its newline (as they were in the parent)."""
        return self._lines(index, b"-")[: self.hunks[index][1]]

    def new_lines(self, index: int) -> list[bytes]:
        """The lines hunk `index` added, each with its newline (as they are in the commit)."""
        return self._lines(index, b"+")[: self.hunks[index][3]]

    def _lines(self, index: int, sign: bytes) -> list[bytes]:
        """The lines of hunk `index` marked `sign`, each with its newline unless git said "\\ No
        newline at end of file" after it."""
        start, end = self.bodies[index]
        lines: list[bytes] = []
        previous = b""
        for line in self.raw[start:end].split(b"\n"):
            if line.startswith(sign):
                lines.append(line[1:] + b"\n")
            elif line.startswith(b"\\") and lines and previous == sign:
                lines[-1] = lines[-1][:-1]
            previous = line[:1]
        return lines

    def edits(self, source: bytes, forward: bool) -> list[tuple[int, int, bytes]] | None:
        """The hunks as edits of `source` (as `Version` takes them: (start, end, text), in
        order): of the parent's text into the commit's when `forward`, else of the commit's
        into the parent's. None when the hunks are not known. (The parse checks that they
        give the other text, and parses it whole otherwise.)"""
        if self.lazy or not self.hunks or len(self.bodies) != len(self.hunks):
            return None
        from anchors.history_text import line_offsets

        spans = [(o, oc) if forward else (n, nc) for o, oc, n, nc in self.hunks]
        starts = line_offsets(source, max(first + count for first, count in spans))
        edits: list[tuple[int, int, bytes]] = []
        for index, (first, count) in enumerate(spans):
            begin = starts[first - 1 if count else first]
            end = starts[first - 1 + count] if count else begin
            text = self.new_lines(index) if forward else self.old_lines(index)
            edits.append((begin, end, b"".join(text)))
        return edits


def parse_patch(patch: bytes) -> Patch:
    """The blobs and hunks of one file's `-U0 --full-index` diff."""
    old_blob = new_blob = None
    pair = None
    at = 0 if patch.startswith(b"index ") else patch.find(b"\nindex ") + 1 or -1
    while at >= 0 and pair is None:  # the first `index OLD..NEW` line
        pair = _blob_pair(patch, at + 6)
        at = patch.find(b"\nindex ", at + 1) + 1 or -1
    if pair is not None:
        old_blob, new_blob = pair
        if _zero(old_blob):
            old_blob = None
    elif patch.strip():
        old_blob = new_blob = "same"  # a mode change only
    hunks: list[Hunk] = []
    bodies: list[tuple[int, int]] = []
    # A line of the diff's text starts with `-`, `+`, ` ` or `\`: one starting `@@ -` is a header.
    at = 0 if patch.startswith(b"@@ -") else patch.find(b"\n@@ -") + 1 or -1
    while at >= 0:
        header = _hunk_header(patch, at)
        if header is not None:
            numbers, end = header
            hunks.append(numbers)
            body = patch.find(b"\n", end) + 1 or len(patch)
            if bodies:
                bodies[-1] = (bodies[-1][0], at)
            bodies.append((body, len(patch)))
        at = patch.find(b"\n@@ -", at + 1) + 1 or -1
    return Patch(old_blob, new_blob, hunks, patch, bodies)


def _hunk_header(patch: bytes, at: int) -> tuple[Hunk, int] | None:
    """The numbers of the header `@@ -a[,b] +c[,d] @@` at `at` (b and d are 1 when left out),
    and where its `@@` ends; None when it is not one. (Split and `int` on the header's bytes:
    a loop over its digits cost a fifth of the parse of a long history's diffs.)"""
    end = patch.find(b" @@", at + 4, at + 64)
    if end < 0:
        return None
    old, plus, new = patch[at + 4 : end].partition(b" +")
    if not plus:
        return None
    a, b = _line_range(old)
    c, d = _line_range(new)
    if min(a, b, c, d) < 0:
        return None
    return (a, b, c, d), end + 3


def _line_range(text: bytes) -> tuple[int, int]:
    """`N[,M]`: N and M (1 when left out); -1 for what is not a plain decimal number."""
    first, comma, count = text.partition(b",")
    return _decimal(first), _decimal(count) if comma else 1


def _decimal(text: bytes) -> int:
    """The plain decimal number `text` is, else -1."""
    return int(text) if text.isdigit() else -1


def _blob_pair(data: bytes, at: int) -> tuple[str, str] | None:
    """The object names of `OLD..NEW` at `at` (as on a diff's `index` line), or None."""
    dots = data.find(b"..", at)
    end = data.find(b"\n", at)
    if dots <= at or (0 <= end < dots):
        return None
    old, size, end = data[at:dots], len(data), dots + 2
    while end < size and data[end] in _HEX:
        end += 1
    if end == dots + 2 or not _HEX.issuperset(old):
        return None
    return old.decode(), data[dots + 2 : end].decode()


class Commit:
    """One commit of a file's log: its rewritten parents, author, dates and diff."""

    __slots__ = ("sha", "parents", "author", "date", "timestamp", "patch")

    def __init__(
        self, sha: str, parents: list[str], author: str, date: str, timestamp: int, patch: Patch
    ) -> None:
        self.sha = sha
        self.parents = parents  # rewritten: the previous commits that touched the file
        self.author = author
        self.date = date  # author date, ISO 8601
        self.timestamp = timestamp  # committer time
        self.patch = patch  # against the first parent (blobs only until asked); empty for a merge

    @property
    def old_blob(self) -> str | None:
        return self.patch.old_blob

    @property
    def hunks(self) -> list[Hunk]:
        return self.patch.hunks


def log_args(rev: str, path: str, raw: bool = False) -> list[str]:
    """The `git log` of a file's history as FileLog reads it: each commit's `-U0` diff, or with
    `raw` only its old and new blob (git's diffs of a long, busy file cost more than the rest of
    the walk; most commits leave the symbol's text whole, which the walk finds in the blobs, and
    it asks for the diffs of the others). `--remove-empty`: the walk does not go on past a commit whose
    parent lacks the file (the walk here stops at the commit that added it, and asks where it
    came from); without it git shows that commit only once it has walked every older commit,
    looking for one that touched PATH to rewrite the parent to."""
    diff = (
        ["--raw", "--no-abbrev"]
        if raw
        else ["-p", "-U0", "--full-index", "--no-ext-diff", "--no-textconv"]
    )
    return [
        "-c", "core.quotePath=false", "log", "--parents", "--remove-empty", "--no-renames",
        *diff, "--no-color", "--format=%x00%H %P%x1f%an%x1f%aI%x1f%ct%x1f", rev, "--", path,
    ]  # fmt: skip


class FileLog:
    """`git log -p -U0 --parents REV -- PATH` (or `--raw`): the commits that touched PATH, with
    their hunks (or only their blobs).

    The process starts at once and its output is read as the walk asks for commits, so git
    walks the history while the caller parses versions; merges are announced to `on_merge` as
    they arrive (to ask for their diffs early).
    """

    def __init__(
        self, root: str | os.PathLike[str], rev: str, path: str, raw: bool = False
    ) -> None:
        self.raw = raw
        self._proc: GitProcess | None = GitProcess(
            log_args(rev, path, raw),
            root,
            env=git_env(root, GIT_FLUSH="1"),  # each commit as soon as git has it
            # A log of diffs gets no further ahead than a plain pipe holds (64 KB, dozens of
            # commits): the walk stops where the symbol was introduced, often long before the
            # file was, and git's diffs past that point cost a core the walk's other git
            # processes need (`prepare_body`: 426 of the 755 commits of requests/models.py).
            # A log of blobs costs git little per commit and keeps the wide pipe.
            pipe_size=PIPE_SIZE if raw else 0,
        )
        self.rev = rev
        self.path = path
        self.tip: str | None = None
        self._commits: dict[str, Commit] = {}
        self._order: list[Commit] = []  # as git listed them
        self._merges: list[Commit] = []
        self._added: list[Commit] = []  # commits that added the file (no merges)
        self._on_merge: Callable[[Commit], None] | None = None
        self._pending = b""
        self._eof = False

    def on_merge(self, callback: Callable[[Commit], None]) -> None:
        """Call `callback` with every merge commit read so far and from now on."""
        self._on_merge = callback
        for merge in self._merges:
            callback(merge)

    def get(self, sha: str) -> Commit | None:
        """The commit, reading git's output until it has arrived whole (None if it never does)."""
        while sha not in self._commits and not self._eof:
            self._read()
        return self._commits.get(sha)

    def poll(self) -> None:
        """Take in what git has written so far, without waiting for more."""
        while self._proc is not None and select.select([self._proc.fileno()], [], [], 0)[0]:
            self._read()

    def upcoming(self, after: int, count: int) -> list[Commit]:
        """The commits listed after the first `after` ones, up to `count` of those read so far."""
        return self._order[after : after + count]

    def added(self) -> list[Commit]:
        """The commits read so far that added the file (no merges)."""
        return self._added

    def first(self) -> str | None:
        """The newest commit that touched the file (None: none did)."""
        while self.tip is None and not self._eof:
            self._read()
        return self.tip

    def _read(self) -> None:
        proc = self._proc
        chunk = os.read(proc.fileno(), PIPE_SIZE) if proc is not None else b""
        if not chunk:
            self._eof = True
            records, self._pending = self._pending, b""
            if proc is not None:
                # git closed its output: it is done, so wait for it rather than kill it. A git
                # that failed (a broken object store or commit-graph, a crash) listed only part
                # of the history: that is an error, never a shorter answer.
                self._proc = None
                status = proc.close()
                if status != 0:
                    raise GitFailed(f"git log of {self.path} failed (exit status {status})")
        else:
            data = self._pending + chunk
            # A record is whole when the next one begins: keep the last one for later.
            cut = data.rfind(b"\x00")
            if cut <= 0:
                self._pending = data
                return
            records, self._pending = data[:cut], data[cut:]
        for record in records.split(b"\x00")[1:]:
            commit = parse_record(record, self.raw)
            if self.tip is None:
                self.tip = commit.sha
            self._commits[commit.sha] = commit
            self._order.append(commit)
            if commit.old_blob is None and len(commit.parents) < 2:
                self._added.append(commit)
            if len(commit.parents) > 1:
                self._merges.append(commit)
                if self._on_merge is not None:
                    self._on_merge(commit)

    def close(self) -> None:
        """Stop git (the walk needs no more) and reap it."""
        if self._proc is not None:
            self._proc.close(kill=True)
            self._proc = None


class GitFailed(TetherError):
    """A git process of the walk failed: its answer is incomplete (exit 1)."""

    exit_code = EXIT_FINDINGS


def parse_record(record: bytes, raw: bool = False) -> Commit:
    """One commit of FileLog's output (without its leading NUL)."""
    head, _, rest = record.partition(b"\x1f\n") if b"\x1f\n" in record else (record, b"", b"")
    fields = head.decode("utf-8", "replace").split("\x1f")
    shas = fields[0].split()
    return Commit(
        sha=shas[0],
        parents=shas[1:],
        author=fields[1] if len(fields) > 1 else "",
        date=fields[2] if len(fields) > 2 else "",
        timestamp=int(fields[3]) if len(fields) > 3 and fields[3].isdigit() else 0,
        patch=_blobs(rest) if raw else parse_patch(rest),
    )


def _blobs(raw: bytes) -> Patch:
    """The old and new blob of a `--raw` line, as a Patch whose hunks are not known yet (none for
    a merge: git shows no diff for merges)."""
    # The first line of the form `:MODE MODE OLD NEW STATUS\tPATH`.
    fields: list[bytes] = []
    at = 0 if raw.startswith(b":") else raw.find(b"\n:") + 1 or -1
    while at >= 0 and not fields:
        end = raw.find(b"\n", at)
        fields = raw[at : end if end >= 0 else len(raw)].split(b" ", 4)
        if (
            len(fields) < 5
            or not fields[0][1:].isdigit()
            or not fields[1].isdigit()
            or not fields[2]
            or not fields[3]
            or not _HEX.issuperset(fields[2] + fields[3])
        ):
            fields = []
        at = raw.find(b"\n:", at + 1) + 1 or -1
    if not fields:
        return Patch(None, None, [])
    old_blob: str | None = fields[2].decode()
    new_blob: str | None = fields[3].decode()
    if old_blob == new_blob:
        old_blob = new_blob = "same"  # a mode change only
    elif old_blob is not None and _zero(old_blob):
        old_blob = None
    if new_blob is not None and _zero(new_blob):
        new_blob = None
    return Patch(old_blob, new_blob, [], lazy=old_blob not in (None, "same"))


class PathDiffs:
    """`git diff-tree --stdin` for one path: the diffs the walk asks for (of the commits whose
    blobs do not show the symbol unchanged, and of merges against each parent). One process
    for the walk; a merge's questions are written as soon as the log shows it, so git has
    usually answered (into a wide pipe) when the walk reaches it. Answers come in the order
    asked."""

    _END = b"::tether-end::"

    def __init__(self, root: str | os.PathLike[str], path: str) -> None:
        self._root = root
        self._path = path
        self._proc: GitProcess | None = None
        self._asked: dict[tuple[str, str], int] = {}
        self._answers: list[bytes] = []
        self._buffer = b""
        self._done = False

    def prefetch(self, merge: Commit) -> None:
        """Ask for the diffs of a merge against each of its parents."""
        for parent in merge.parents:
            self._ask(merge.sha, parent, flush=False)
        if self._proc is not None and self._proc.stdin is not None:
            self._proc.stdin.flush()

    def _ask(self, commit: str, parent: str, flush: bool = True) -> int:
        key = (commit, parent)
        index = self._asked.get(key)
        if index is not None:
            return index
        if self._proc is None:
            self._proc = GitProcess(
                [
                    "-c", "core.quotePath=false", "diff-tree", "--stdin", "-p", "-U0",
                    "--no-commit-id", "--no-renames", "--full-index", "--no-color",
                    "--no-ext-diff", "--no-textconv", "--", self._path,
                ],
                self._root,
                stdin=True,
                pipe_size=PIPE_SIZE,
            )  # fmt: skip
        assert self._proc.stdin is not None
        # git blocks when its answers fill the pipe: take them before asking more.
        while not self._done and select.select([self._proc.fileno()], [], [], 0)[0]:
            self._take()
        index = self._asked[key] = len(self._asked)
        # A line that is not an object name is echoed back after the diff: the end marker.
        self._proc.stdin.write(f"{commit} {parent}\n".encode() + self._END + b"\n")
        if flush:
            self._proc.stdin.flush()
        return index

    def _take(self) -> None:
        """Read what git has written and split off the whole answers."""
        assert self._proc is not None
        chunk = os.read(self._proc.fileno(), PIPE_SIZE)
        if not chunk:
            self._done = True
            return
        self._buffer += chunk
        marker = b"\n" + self._END + b"\n"
        while True:
            if self._buffer.startswith(marker[1:]):  # an empty answer
                at, skip = 0, len(marker) - 1
            else:
                at = self._buffer.find(marker)
                if at < 0:
                    return
                at, skip = at + 1, len(marker) - 1
            self._answers.append(self._buffer[:at])
            self._buffer = self._buffer[at + skip :]

    def diff(self, commit: str, parent: str) -> Patch:
        """The diff of the path from `parent` to `commit`."""
        index = self._ask(commit, parent)
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.flush()
        while len(self._answers) <= index and not self._done:
            self._take()
        raw = self._answers[index] if index < len(self._answers) else b""
        return parse_patch(raw)

    def close(self) -> None:
        """End diff-tree."""
        if self._proc is not None:
            self._proc.close(kill=True)
            self._proc = None


class TreeChanges:
    """One `git diff-tree --stdin -r -M --name-status -z` for a walk: the files a commit changed
    against a parent, renames found. A question can be asked early and its answer read later
    (git works meanwhile); answers come in the order asked. One process answers every question
    of the walk: a process of its own for each cost git's start-up (~1.5 ms) every time, on the
    walk's way. git stops at a question it cannot answer (an object missing from the clone): that
    question's answer is empty, as a process of its own would have given, and the ones after it
    are asked again of a new process."""

    _END = b"::tether-end::\n"  # not an object name: diff-tree echoes it after each answer

    def __init__(self, root: StrPath) -> None:
        self._root = root
        self._proc: GitProcess | None = None
        self._asked: dict[tuple[str, str], int] = {}
        self._questions: list[bytes] = []
        self._answers: list[list[tuple[str, str, str]]] = []
        self._current: list[tuple[str, str, str]] = []  # the answer being read
        self._buffer = b""

    def ask(self, parent: str, sha: str) -> None:
        """Ask for the changes of `sha` against `parent` (once)."""
        key = (parent, sha)
        if key in self._asked:
            return
        self._asked[key] = len(self._questions)
        self._questions.append(f"{sha} {parent}\n".encode() + self._END)
        if self._proc is None:
            self._start()  # asks every question not answered yet, this one included
            return
        # git blocks when its answers fill the pipe: take them before asking more.
        while self._proc is not None and select.select([self._proc.fileno()], [], [], 0)[0]:
            self._take()
        if self._proc is not None:
            self._send([self._questions[-1]])

    def answered(self, parent: str, sha: str) -> bool:
        """Whether the answer to a question asked is in, taking what git has written so far
        without waiting for more."""
        index = self._asked.get((parent, sha))
        if index is None:
            return False
        while (
            len(self._answers) <= index
            and self._proc is not None
            and select.select([self._proc.fileno()], [], [], 0)[0]
        ):
            self._take()
        return len(self._answers) > index

    def result(self, parent: str, sha: str) -> list[tuple[str, str, str]]:
        """(status, old path, new path) of every file `sha` changed against `parent`."""
        self.ask(parent, sha)
        index = self._asked[(parent, sha)]
        while len(self._answers) <= index:
            if self._proc is None:
                self._start()
            self._take()
        return self._answers[index]

    def _start(self) -> None:
        self._proc = GitProcess(
            ["diff-tree", "--stdin", "-r", "-M", "--no-commit-id", "--name-status", "-z"],
            self._root,
            stdin=True,
            pipe_size=PIPE_SIZE,
        )
        self._current, self._buffer = [], b""
        self._send(self._questions[len(self._answers) :])

    def _send(self, questions: list[bytes]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(b"".join(questions))
            self._proc.stdin.flush()
        except BrokenPipeError:  # git has stopped: `_take` sees its end
            pass

    def _take(self) -> None:
        """Read what git has written and take the whole entries and answers in it; at git's
        end, the question it stopped at is answered empty."""
        assert self._proc is not None
        chunk = os.read(self._proc.fileno(), PIPE_SIZE)
        if not chunk:
            self._proc.close(kill=True)
            self._proc = None
            if len(self._answers) < len(self._questions):
                self._answers.append([])
            return
        data = self._buffer + chunk
        at = 0
        while at < len(data):
            if data.startswith(self._END, at):
                self._answers.append(self._current)
                self._current = []
                at += len(self._END)
                continue
            if data[at : at + 1] == b":":  # the end marker, not whole yet (no status starts so)
                break
            cut = data.find(b"\0", at)
            if cut < 0:
                break
            status = data[at:cut].decode("ascii", "replace")
            paths: list[str] = []
            next_at = cut + 1
            for _ in range(2 if status[:1] in "RC" else 1):
                end = data.find(b"\0", next_at)
                if end < 0:
                    break
                paths.append(data[next_at:end].decode("utf-8", "surrogateescape"))
                next_at = end + 1
            else:
                self._current.append((status, paths[0], paths[-1]))
                at = next_at
                continue
            break  # an entry not whole yet
        self._buffer = data[at:]

    def close(self) -> None:
        """End diff-tree (answers not read are not needed)."""
        if self._proc is not None:
            self._proc.close(kill=True)
            self._proc = None


def paired_loosely(root: StrPath, parent: str, sha: str, old: str, new: str) -> bool:
    """Whether git's rename detection over the whole commit, at `LOOSE_RENAME` similarity
    instead of its default 50%, pairs the file `old` that `sha` deleted with the file `new` it
    added (each file is paired once, with the one most like it)."""
    out = run_git(
        ["diff-tree", "-r", f"-M{LOOSE_RENAME}", "--no-commit-id", "--name-status", "-z",
         parent, sha],
        root,
    )[0]  # fmt: skip
    fields = out.split(b"\0")
    at = 0
    while at < len(fields) - 1:
        status = fields[at]
        if status[:1] in (b"R", b"C"):
            if status[:1] == b"R" and fields[at + 1 : at + 3] == [
                old.encode("utf-8", "surrogateescape"),
                new.encode("utf-8", "surrogateescape"),
            ]:
                return True
            at += 3
        else:
            at += 2
    return False


def paired_with(root: StrPath, parent: str, sha: str, olds: list[str], new: str) -> str | None:
    """Which of the files `olds` (in `parent`) git's rename detection, at `LOOSE_RENAME`
    similarity and among these files alone, pairs with the file `new` of commit `sha` (an older
    commit than `sha`'s parent: a file deleted by one commit and added under another path by a
    later one); None when none."""
    out = run_git(
        ["diff-tree", "-r", f"-M{LOOSE_RENAME}", "--no-commit-id", "--name-status", "-z",
         parent, sha, "--", *olds, new],
        root,
    )[0]  # fmt: skip
    fields = out.split(b"\0")
    at = 0
    wanted = new.encode("utf-8", "surrogateescape")
    while at < len(fields) - 1:
        status = fields[at]
        if status[:1] in (b"R", b"C"):
            if status[:1] == b"R" and fields[at + 2] == wanted:
                return fields[at + 1].decode("utf-8", "surrogateescape")
            at += 3
        else:
            at += 2
    return None


def files_named(root: StrPath, rev: str, stems: set[str]) -> list[str]:
    """The paths of REV's tree whose file name without its extension is one of `stems`, or
    whose directory of that name holds them as its module (`decorators/__init__.py`,
    `decorators/index.js`, `decorators/mod.rs`)."""
    out = run_git(["ls-tree", "-r", "-z", "--name-only", rev], root)[0]
    found: list[str] = []
    for raw in out.split(b"\0"):
        if not raw:
            continue
        path = raw.decode("utf-8", "surrogateescape")
        folder, base = os.path.split(path)
        stem = os.path.splitext(base)[0]
        if stem in stems or (
            stem in ("__init__", "index", "mod") and os.path.basename(folder) in stems
        ):
            found.append(path)
    return found


def last_touched(root: StrPath, rev: str, path: str) -> str | None:
    """The newest commit, REV or an ancestor, that touched PATH (None when none did)."""
    out = run_git(["rev-list", "-1", rev, "--", path], root)[0].strip()
    return out.decode() if out else None


def file_diffs(root: StrPath, parent: str, sha: str, paths: list[str]) -> dict[str, bytes]:
    """The `-U0` diff of each of `paths` between two commits, in one git process (a path whose
    diff header cannot be told apart, e.g. quoted, is left out)."""
    out = run_git(
        ["-c", "core.quotePath=false", "diff-tree", "-p", "-U0", "--no-renames", "--no-color",
         "--no-ext-diff", "--no-textconv", parent, sha, "--", *paths],
        root,
    )[0]  # fmt: skip
    wanted = set(paths)
    diffs: dict[str, bytes] = {}
    for chunk in out.split(b"diff --git a/")[1:]:
        head = chunk[: chunk.find(b"\n")].decode("utf-8", "surrogateescape")
        half = (len(head) - 3) // 2  # "PATH b/PATH" when the path did not change
        path = head[:half]
        if head[half : half + 3] == " b/" and head[half + 3 :] == path and path in wanted:
            diffs[path] = chunk
    return diffs


def shallow_commits(root: StrPath, git_dir: StrPath | None = None) -> set[str]:
    """The shallow boundary commits (none in a full clone)."""
    if git_dir is None and os.path.isdir(os.path.join(root, ".git")):
        git_dir = os.path.join(root, ".git")
    if git_dir is not None:
        shallow = os.path.join(git_dir, "shallow")
    else:  # a linked worktree or a bare repository: ask git where the file is
        path = run_git(["rev-parse", "--git-path", "shallow"], root)[0].decode().strip()
        shallow = os.path.join(root, path)  # an absolute path stays itself
    try:
        with open(shallow, encoding="utf-8") as file:
            return set(file.read().split())
    except OSError:
        return set()


class Prestart:
    """git started for `tether history` before the rest of the program is imported: the walk of
    PATH (as the user wrote it, relative to `cwd`) from REV, cat-file, and the question of where
    the repository is (read here when plain, see `_plain_repository`). Whatever is not used is
    stopped by `close()`."""

    def __init__(self, cwd: str, rev: str, path: str) -> None:
        self.log: FileLog | None = FileLog(cwd, rev, path, big_file(os.path.join(cwd, path)))
        self.blobs = BlobReader(cwd).start()
        self._cwd = cwd
        self._plain = _plain_repository(cwd)
        self._where: GitProcess | None = None
        if self._plain is None:
            self._where = GitProcess(
                ["rev-parse", "--is-bare-repository", "--git-common-dir", "--show-toplevel"], cwd
            )

    def repository(self) -> tuple[str, str] | None:
        """(root, git dir) as `anchors.git.find_repo` gives them, or None outside a repository."""
        if self._plain is not None:
            return self._plain
        if self._where is None:
            return None
        out, status = self._where.communicate()
        self._where = None
        lines = out.decode("utf-8", "replace").splitlines()
        if len(lines) < 2 or (status != 0 and lines[0] != "true"):
            return None
        bare = lines[0] == "true"
        git_dir = os.path.realpath(os.path.join(self._cwd, lines[1]))
        root = git_dir if bare or len(lines) < 3 else os.path.realpath(lines[2])
        return root, git_dir

    def forget_log(self) -> None:
        """Stop the walk of PATH: another path's history is wanted (PATH was a symlink)."""
        if self.log is not None:
            self.log.close()
            self.log = None

    def close(self) -> None:
        """Stop every process still running."""
        self.forget_log()
        self.blobs.close()
        if self._where is not None:
            self._where.close(kill=True)
            self._where = None


# Set by the user or a hook, these change where git looks for the repository: git is asked.
_DISCOVERY = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS",
)  # fmt: skip


def _plain_repository(cwd: str) -> tuple[str, str] | None:
    """(root, git dir) of the work tree holding `cwd` when it is the plain case: the nearest
    `.git` above is a directory with a HEAD, owned by this user (git refuses another's), no
    worktree set in its config, and nothing in the environment moves git's search. What git's
    `rev-parse` says then, without a process of its own (~2 ms of git beside `tether history`'s
    start-up). None otherwise: git is asked."""
    if any(name in os.environ for name in _DISCOVERY):
        return None
    from anchors.commit_graph import work_tree

    found = work_tree(cwd)
    if found is None:
        return None
    here, dot_git = found
    try:
        if os.path.islink(dot_git) or not os.path.isdir(dot_git):
            return None  # a linked worktree or submodule (`gitdir:` file): git knows best
        if os.stat(dot_git).st_uid != os.getuid() or os.stat(here).st_uid != os.getuid():
            return None
        if not os.path.isfile(os.path.join(dot_git, "HEAD")):
            return None
        with open(os.path.join(dot_git, "config"), "rb") as config:
            if b"worktree" in config.read().lower():
                return None
    except (OSError, AttributeError):  # os.getuid is POSIX only
        return None
    return here, dot_git
