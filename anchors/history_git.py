"""Reading git for `tether history`: the file's log with its hunks, merges' diffs, blobs.

Every process is started with `os.posix_spawn` (no fork of the interpreter, no `subprocess`
import on the way), and their output is read as the walk asks for it.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from anchors import git
from anchors.languages import language_for_path

if TYPE_CHECKING:
    from anchors.history_compare import Version

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_INDEX = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)", re.M)
_ZERO = re.compile(r"^0+$")

# --------------------------------------------------------------------------- reading git


def git_env() -> dict[str, str]:
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
                env=git_env(),
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
            from anchors.history_compare import Version

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
class Patch:
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


def parse_patch(patch: bytes) -> Patch:
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
    return Patch(old_blob, new_blob, hunks, patch, bodies)


@dataclass
class Commit:
    sha: str
    parents: list[str]  # rewritten: the previous commits that touched the file
    author: str
    date: str
    timestamp: int
    patch: Patch  # against the first parent; empty for a merge

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
        env = git_env()
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
        widen(self._proc.stdout)
        self.rev = rev
        self.path = path
        self.tip: str | None = None
        self._commits: dict[str, Commit] = {}
        self._merges: list[Commit] = []
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
            commit = parse_record(record)
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


def widen(pipe: object) -> None:
    """Let git write up to 1 MB ahead of the reader (the default pipe holds 64 KB), so that its
    walk goes on while the walk here parses."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError):
        pass


def parse_record(record: bytes) -> Commit:
    head, _, patch = record.partition(b"\x1f\n") if b"\x1f\n" in record else (record, b"", b"")
    fields = head.decode("utf-8", "replace").split("\x1f")
    shas = fields[0].split()
    return Commit(
        sha=shas[0],
        parents=shas[1:],
        author=fields[1] if len(fields) > 1 else "",
        date=fields[2] if len(fields) > 2 else "",
        timestamp=int(fields[3]) if len(fields) > 3 and fields[3].isdigit() else 0,
        patch=parse_patch(patch),
    )


class MergeDiffs:
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

    def prefetch(self, merge: Commit) -> None:
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
                env=git_env(),
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

    def diff(self, commit: str, parent: str) -> Patch:
        """The diff of the path from `parent` to `commit`."""
        index = self._ask(commit, parent)
        with self._ready:
            while len(self._answers) <= index and not self._done:
                self._ready.wait()
            raw = self._answers[index] if index < len(self._answers) else b""
        return parse_patch(raw)

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            if self._reader is not None:
                self._reader.join()
            self._proc.wait()
            self._proc = None


def tree_changes(root: Path, parent: str, sha: str) -> list[tuple[str, str, str]]:
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


def diff_text(root: Path, parent: str, sha: str, path: str) -> bytes:
    return git.run(["diff", "-U0", "--no-color", parent, sha, "--", path], root, check=False).stdout


def shallow_commits(root: Path, git_dir: Path | None = None) -> set[str]:
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
