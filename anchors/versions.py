"""Versions of a repository's files that anchors are resolved against, read through git plumbing.

A `Version` is a commit, the index (`--staged`) or the working tree. What resolution needs from
git is asked in batches and cached: which files changed between an anchor's commit and the
version (one `git diff-tree --stdin` for all anchor commits, plus one `git diff` for uncommitted
work), which anchor commits are ancestors of it (one `git rev-list`), and file contents (one
long-lived `git cat-file --batch`). So the work grows with the number of distinct anchor commits
and changed files, not with the size of the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from anchors import git
from anchors.errors import UsageError
from anchors.symbols import MAX_SOURCE_BYTES, check_source, load_source

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


@dataclass
class Changes:
    """Files that differ between two versions (git's view, renames detected)."""

    changed: set[str] = field(default_factory=set)  # modified, added, deleted or renamed away
    deleted: set[str] = field(default_factory=set)
    added: set[str] = field(default_factory=set)
    renames: dict[str, str] = field(default_factory=dict)  # old path -> new path

    def merge(self, later: Changes) -> Changes:
        """These changes followed by `later` ones (a file changed in either counts as changed)."""
        renames = {old: later.renames.get(new, new) for old, new in self.renames.items()}
        for old, new in later.renames.items():
            if old not in self.renames.values():
                renames.setdefault(old, new)
        return Changes(
            changed=self.changed | later.changed,
            deleted=(self.deleted - later.added) | later.deleted,
            added=(self.added - later.deleted) | later.added,
            renames=renames,
        )


def parse_name_status(tokens: list[str], reverse: bool = False) -> Changes:
    """`git diff --name-status -z -M` output, split on NUL; `reverse` reads it backwards (a
    diff from the new version to the old one)."""
    changes = Changes()
    i = 0
    while i < len(tokens):
        status = tokens[i]
        if not status:
            i += 1
            continue
        if status[0] in "RC" and i + 2 < len(tokens):
            old, new = tokens[i + 1], tokens[i + 2]
            if reverse:
                old, new = new, old
            if status[0] == "R":
                changes.renames[old] = new
                changes.changed.add(old)
            changes.added.add(new)
            changes.changed.add(new)
            i += 3
            continue
        if i + 1 >= len(tokens):
            break
        path = tokens[i + 1]
        changes.changed.add(path)
        if status[0] == ("A" if reverse else "D"):
            changes.deleted.add(path)
        elif status[0] == ("D" if reverse else "A"):
            changes.added.add(path)
        i += 2
    return changes


class BlobReader:
    """One `git cat-file --batch` process answering many `REV:PATH` reads."""

    BATCH = 200  # names per prefetch: their answers must not fill both pipes at once

    def __init__(self, root: Path) -> None:
        self.root = root
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready: dict[str, tuple[bytes | None, int]] = {}

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            self._proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=str(self.root),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "LC_ALL": "C"},
            )
        return self._proc

    def prefetch(self, names: list[str]) -> None:
        """Ask for many objects in one round trip (each answer waits in memory for `read`)."""
        todo = [n for n in dict.fromkeys(names) if n not in self._ready and "\n" not in n]
        for i in range(0, len(todo), self.BATCH):
            chunk = todo[i : i + self.BATCH]
            proc = self._start()
            assert proc.stdin is not None
            proc.stdin.write(b"".join(n.encode("utf-8", "surrogateescape") + b"\n" for n in chunk))
            proc.stdin.flush()
            for name in chunk:
                self._ready[name] = self._answer()

    def read(self, name: str) -> bytes | None:
        """The content of the object called `name` (e.g. `HEAD:src/a.py`), or None if missing.

        Objects over the size cap are read out of the pipe and dropped (b"" is never returned
        for them: None with the size known is reported by `read_capped`).
        """
        data, _ = self.read_capped(name)
        return data

    def read_capped(self, name: str) -> tuple[bytes | None, int]:
        """(content or None, size): None when missing, not a blob, or over MAX_SOURCE_BYTES."""
        if "\n" in name:
            return None, 0
        if name in self._ready:
            return self._ready.pop(name)
        proc = self._start()
        assert proc.stdin is not None
        proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
        proc.stdin.flush()
        return self._answer()

    def _answer(self) -> tuple[bytes | None, int]:
        proc = self._start()
        assert proc.stdout is not None
        header = proc.stdout.readline().decode("utf-8", "replace").split()
        if len(header) != 3:  # "<name> missing" / "ambiguous"
            return None, 0
        kind, size = header[1], int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the newline after each object
        if kind != "blob" or size > MAX_SOURCE_BYTES:
            return None, size
        return data, size

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin is not None:
                self._proc.stdin.close()
            self._proc.wait()
            self._proc = None


class Version:
    """The files of one version: `kind` is "commit", "index" or "worktree"."""

    def __init__(self, root: Path, kind: str, commit: str, label: str, blobs: BlobReader) -> None:
        self.root = root
        self.kind = kind
        self.commit = commit  # the commit itself, or HEAD for the index and the working tree
        self.label = label
        self.blobs = blobs

    @classmethod
    def open(cls, root: Path, rev: str | None = None, staged: bool = False) -> Version:
        """The version named by `rev` (any commit-ish), the index, or the working tree.

        Raises UsageError for a revision that does not name a commit.
        """
        blobs = BlobReader(root)
        if rev is not None:
            proc = git.run(
                ["rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}"],
                root,
                check=False,
            )
            sha = proc.stdout.decode().strip()
            if proc.returncode != 0 or not sha:
                raise UsageError(f"unknown revision {rev!r}: not a commit in this repository")
            return cls(root, "commit", sha, rev, blobs)
        head = git.head_commit(root)
        if staged:
            return cls(root, "index", head, "index", blobs)
        return cls(root, "worktree", head, "working tree", blobs)

    def read(self, path: str) -> tuple[bytes | None, str]:
        """(source or None, note): binary, over the size cap, missing or unreadable give None."""
        if not is_safe_path(self.root, path):
            return None, f"refused: {path} is outside the repository"
        if self.kind == "worktree":
            full = self.root / path
            if not full.exists():
                return None, "missing"
            return load_source(full)
        name = f"{self.commit}:{path}" if self.kind == "commit" else f":0:{path}"
        data, size = self.blobs.read_capped(name)
        if data is None:
            if size > MAX_SOURCE_BYTES:
                return (
                    None,
                    f"skipped: {size:,} bytes is over the {MAX_SOURCE_BYTES:,}-byte size cap",
                )
            return None, "missing"
        return check_source(data)

    def exists(self, path: str) -> bool:
        if self.kind == "worktree":
            return is_safe_path(self.root, path) and (self.root / path).is_file()
        name = f"{self.commit}:{path}" if self.kind == "commit" else f":0:{path}"
        proc = git.run(["cat-file", "-e", name], self.root, check=False)
        return proc.returncode == 0

    def close(self) -> None:
        self.blobs.close()


def is_safe_path(root: Path, path: str) -> bool:
    """A relative path that stays inside the repository (a fetched op-log is not trusted)."""
    if not path or path.startswith("/") or "\0" in path:
        return False
    parts = Path(path).parts
    if ".." in parts or (parts and parts[0] == ".git"):
        return False
    try:
        return (root / path).resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


class History:
    """What git knows about anchor commits relative to one version, asked in batches and cached."""

    def __init__(self, version: Version) -> None:
        self.version = version
        self.root = version.root
        self._known: dict[str, bool] = {}
        self._ancestor: dict[str, bool] = {}
        self._commit_changes: dict[str, Changes] = {}
        self._merged: dict[str, Changes] = {}
        self._uncommitted: Changes | None = None
        self._untracked: list[str] | None = None
        self._shallow: bool | None = None

    @property
    def shallow(self) -> bool:
        if self._shallow is None:
            out = git.out(["rev-parse", "--is-shallow-repository"], self.root)
            self._shallow = out == "true"
        return self._shallow

    def prepare(self, commits: set[str]) -> None:
        """Learn, for all these anchor commits at once, which exist, which are ancestors of the
        version, and which files changed since each."""
        todo = sorted(c for c in commits if c and c not in self._known)
        if not todo:
            return
        listing = "".join(f"{c}^{{commit}}\n" for c in todo).encode()
        out = git.run(["cat-file", "--batch-check"], self.root, input=listing).stdout.decode()
        present = []
        for commit, line in zip(todo, out.splitlines(), strict=False):
            ok = " commit " in line and bool(_SHA.match(commit))
            self._known[commit] = ok
            if ok:
                present.append(commit)
        target = self.version.commit
        if not present:
            return
        if not target:
            for c in present:
                self._ancestor[c] = False
            return
        # Commits reachable from the anchor commits but not from the target: an anchor commit in
        # this list is not an ancestor (e.g. made on another branch).
        outside = (
            git.run(["rev-list", *present, "--not", target], self.root).stdout.decode().split()
        )
        outside_set = set(outside)
        for c in present:
            self._ancestor[c] = c not in outside_set
        pairs = [c for c in present if c != target]
        if pairs:
            # `diff-tree --stdin` reads "COMMIT PARENT" lines and prints COMMIT before each diff;
            # giving "ANCHOR TARGET" labels each diff by its anchor commit, read in reverse.
            stdin = "".join(f"{c} {target}\n" for c in pairs).encode()
            proc = git.run(
                ["diff-tree", "--stdin", "-r", "-z", "--name-status", "-M", "--no-ext-diff"],
                self.root,
                input=stdin,
            )
            self._parse_batch(proc.stdout.decode("utf-8", "surrogateescape"), set(pairs))
        for c in present:
            self._commit_changes.setdefault(c, Changes())

    def _parse_batch(self, text: str, pairs: set[str]) -> None:
        tokens = text.split("\0")
        current: str | None = None
        chunk: list[str] = []
        for token in tokens:
            # Each pair's output starts with its first commit's full id.
            if token in pairs:
                if current is not None:
                    self._commit_changes[current] = parse_name_status(chunk, reverse=True)
                current, chunk = token, []
                continue
            chunk.append(token)
        if current is not None:
            self._commit_changes[current] = parse_name_status(chunk, reverse=True)

    def known(self, commit: str) -> bool:
        if commit not in self._known:
            self.prepare({commit})
        return self._known.get(commit, False)

    def is_ancestor(self, commit: str) -> bool:
        if commit not in self._known:
            self.prepare({commit})
        return self._ancestor.get(commit, False)

    def uncommitted(self) -> Changes:
        """Changes of the index or working tree relative to HEAD (none for a commit version)."""
        if self._uncommitted is None:
            if self.version.kind == "commit" or not self.version.commit:
                self._uncommitted = Changes()
            else:
                args = ["diff", "--name-status", "-z", "-M", "--no-ext-diff"]
                if self.version.kind == "index":
                    args.append("--cached")
                proc = git.run([*args, self.version.commit, "--"], self.root)
                changes = parse_name_status(
                    proc.stdout.decode("utf-8", "surrogateescape").split("\0")
                )
                if self.version.kind == "worktree":
                    changes.added |= set(self.untracked())
                    changes.changed |= set(self.untracked())
                self._uncommitted = changes
        return self._uncommitted

    def untracked(self) -> list[str]:
        if self._untracked is None:
            if self.version.kind != "worktree":
                self._untracked = []
            else:
                proc = git.run(["ls-files", "--others", "--exclude-standard", "-z"], self.root)
                self._untracked = [
                    p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p
                ]
        return self._untracked

    def committed_changes(self, commit: str) -> Changes | None:
        """Files that commits since `commit` left different at the version's commit (None when
        `commit` is unknown here)."""
        if commit not in self._known:
            self.prepare({commit})
        return self._commit_changes.get(commit)

    def changes_since(self, commit: str) -> Changes:
        """Files that differ between `commit` and the version (cached per commit)."""
        merged = self._merged.get(commit)
        if merged is None:
            self.prepare({commit})
            committed = self._commit_changes.get(commit, Changes())
            merged = self._merged[commit] = committed.merge(self.uncommitted())
        return merged

    def log(
        self, commit: str, paths: list[str], span: tuple[int, int] | None = None
    ) -> list[CommitInfo]:
        """Commits after `commit` up to the version's commit that touched `paths` (or, with a
        span of the first path as of the version's commit, those lines), newest first."""
        target = self.version.commit
        if not target or commit == target or not self.known(commit):
            return []
        committed = self.committed_changes(commit)
        if committed is not None and not committed.changed.intersection(paths):
            # No commit since `commit` left these files different: nothing to show, no git call.
            return []
        fmt = "--format=%x1e%H%x1f%an%x1f%aI%x1f%s"
        rng = f"{commit}..{target}"
        if span is not None:
            args = ["log", fmt, "-s", f"-L{span[0]},{span[1]}:{paths[0]}", rng]
        else:
            args = ["log", fmt, "-M", rng, "--", *dict.fromkeys(paths)]
        proc = git.run(args, self.root, check=False)
        if proc.returncode != 0 and span is not None:
            return self.log(commit, paths, None)
        commits = []
        for line in proc.stdout.decode("utf-8", "replace").split(
            "\n"
        ):  # not splitlines: \x1e is a break to it
            if line.startswith("\x1e"):
                parts = line[1:].split("\x1f")
                if len(parts) == 4:
                    commits.append(CommitInfo(*parts))
        return commits

    def diff_hunks(
        self, commit: str, old_path: str, new_path: str
    ) -> list[tuple[int, int, int, int]]:
        """The `-U0` hunks (old_start, old_count, new_start, new_count) from `commit` to the version."""
        args = ["diff", "-U0", "--no-color", "--no-ext-diff", "-M"]
        if self.version.kind == "index":
            args.append("--cached")
        args.append(commit)
        if self.version.kind == "commit":
            args.append(self.version.commit)
        proc = git.run([*args, "--", *dict.fromkeys([old_path, new_path])], self.root, check=False)
        hunks = []
        for m in re.finditer(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", proc.stdout, re.M):
            a, b, c, d = m.groups()
            hunks.append(
                (int(a), int(b if b is not None else 1), int(c), int(d if d is not None else 1))
            )
        return hunks


@dataclass(frozen=True)
class CommitInfo:
    """A commit given as evidence: who changed the code, when, and why."""

    sha: str
    author: str
    date: str
    subject: str

    def to_dict(self) -> dict[str, str]:
        return {"sha": self.sha, "author": self.author, "date": self.date, "subject": self.subject}
