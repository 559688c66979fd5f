"""`tether history`: the commits that introduced or changed one symbol, like `git log -L` but
symbol-aware.

How the walk goes (one `git log` per file the symbol lived in, one `git cat-file --batch`; the
walk is in `history_walk`, the comparison of versions in `history_compare`, git in `history_git`):

1. `git log -p -U0 --parents --remove-empty REV -- PATH` lists, newest first, the commits that
   touched the file, with their hunks and parents rewritten to the previous commit that touched
   it (git's history simplification: a merge whose file equals one parent's follows that parent
   only), down to the commit that added the file.
2. The symbol's line span is carried from each commit to its parent through the hunk headers. Only
   when a hunk touches the span (or the header line of an enclosing class, which is part of the
   qualified name) is its older version parsed with tree-sitter: its lines with the hunks undone,
   under its enclosing declarations, when that small source provably parses to the same symbol;
   else the parent's whole file (once per blob). Most often not even that: when the hunks change
   only plain lines inside the body (`history_lexical`), the older symbol is the newer one with
   those lines swapped back, compared as text, parsed only if a later step needs its tree.
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

from anchors.errors import UsageError
from anchors.history_git import BlobReader, FileLog, big_file
from anchors.history_walk import CHANGE_KINDS, Found, HistoryEntry, State, Walker
from anchors.languages import language_for_path

# Neither `typing`, `pathlib` nor `dataclasses` is imported on the way of `tether history` (see
# `HistoryEntry`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from anchors.history_git import StrPath
    from anchors.symbols import Symbol

__all__ = [
    "CHANGE_KINDS",
    "History",
    "HistoryEntry",
    "HistoryError",
    "iter_changes",
    "parse_spec",
    "locate_path",
    "repo_path",
    "resolve_rev",
    "start_log",
    "symbol_history",
    "without_graph",
]


class HistoryError(UsageError):
    """Bad SPEC, unknown symbol, bad REV, or a path git does not know: exit 2."""


class History:
    """The answer of `symbol_history`: commits newest first, plus notices (e.g. shallow clone)."""

    __slots__ = ("path", "symbol", "rev", "commits", "notices", "truncated")

    def __init__(
        self,
        path: str,
        symbol: str,
        rev: str,
        commits: list[HistoryEntry],
        notices: list[str] | None = None,
        truncated: bool = False,
    ) -> None:
        self.path = path
        self.symbol = symbol
        self.rev = rev
        self.commits = commits
        self.notices: list[str] = [] if notices is None else notices
        self.truncated = truncated

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, History)
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"History(path={self.path!r}, symbol={self.symbol!r}, rev={self.rev!r}, "
            f"commits={self.commits!r}, notices={self.notices!r}, truncated={self.truncated!r})"
        )

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


# --------------------------------------------------------------------------- entry point


def resolve_rev(root: StrPath, rev: str, blobs: BlobReader | None = None) -> str:
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
        if rev == "HEAD":
            raise HistoryError(
                "this repository has no commits yet: history starts at the first one"
            )
        raise HistoryError(f"unknown revision {rev!r}")
    return sha


def repo_path(root: StrPath, path: str, cwd: StrPath | None = None) -> str:
    """PATH as a repository-relative posix path (relative to `cwd` inside the repo when given);
    paths that leave the repository are refused. A symlink in the work tree on the way (the
    file, or a directory above it) is followed to the file it names, whose history is the one
    git has (git knows only the link)."""
    return locate_path(root, path, cwd)[0]


def locate_path(root: StrPath, path: str, cwd: StrPath | None = None) -> tuple[str, bool]:
    """`repo_path`, and whether a symlink was followed to get there."""
    base = os.path.realpath(cwd if cwd is not None else root)
    resolved = os.path.normpath(os.path.join(base, path))  # an absolute PATH stays itself
    top = os.path.realpath(root)
    rel = _inside(os.path.relpath(resolved, top), path, "is outside the repository")
    real = os.path.realpath(resolved)
    if real == resolved:
        return rel, False
    return _inside(
        os.path.relpath(real, top), path, "leads through a symlink out of the repository"
    ), True


def _inside(rel: str, path: str, outside: str) -> str:
    """`rel` (relative to the repository's root) as a posix path, when it names a file in it."""
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        raise HistoryError(f"path {path!r} {outside}")
    if rel == os.curdir:
        raise HistoryError(f"path {path!r} is not a file")
    return rel.replace(os.sep, "/")


def start_log(cwd: StrPath, rev: str, path: str) -> FileLog | None:
    """Start git's walk of PATH (as the user wrote it, relative to `cwd`) from REV, before the
    repository is even located: `symbol_history(..., log=)` reads it while the rest starts up.
    None when REV could be taken for an option."""
    if not rev or rev.startswith("-") or any(c in rev for c in "\n\r\0"):
        return None
    return FileLog(cwd, rev, path, big_file(os.path.join(cwd, path)))


def symbol_history(
    root: StrPath,
    path: str,
    symbol: str,
    rev: str = "HEAD",
    git_dir: StrPath | None = None,
    log: FileLog | None = None,
    blobs: BlobReader | None = None,
) -> History:
    """The commits, newest first, that introduced or changed `symbol` of `path` as of `rev`.

    `path` is relative to the repository root. Raises HistoryError for a bad REV, a file that
    is not at REV, a language without a grammar, or an unknown symbol (naming the closest).
    `log`, from `start_log` with the same REV and the same file, saves waiting for git;
    so does `blobs`, a BlobReader already started (both are closed here).
    """
    blobs = blobs or BlobReader(root)
    walker: Walker | None = None
    try:
        if language_for_path(path) is None:
            raise HistoryError(
                f"no grammar for {path}: history needs a symbol in a supported language"
            )
        sha = resolve_rev(root, rev, blobs)
        # git walks the file's history while the current version is read and parsed.
        log = log or FileLog(root, sha, path, big_file(os.path.join(root, path)))
        walker = Walker(root, blobs, git_dir, raw=log.raw)
        walker.start_renamed(log, path)
        version = blobs.version_at(sha, path)
        if version is None:
            raise HistoryError(f"{path} does not exist at {rev}")
        # While it is parsed, the walk of the file's older name is started as soon as git has
        # shown where the file was added and under what name before.
        renamed = walker

        version.while_parsing = lambda: renamed.finish_renamed(log, path, wait=False)
        from anchors.symbols import lookup

        target, candidates = lookup(version.symbols, symbol)
        version.while_parsing = None
        if target is None:
            raise HistoryError(_unknown_symbol(path, symbol, rev, version.symbols, candidates))
        symbol = target.name
        walker.finish_renamed(log, path)
        walker.walk_file(sha, State.of(path, Found(target, version)), set(), log)
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
        if walker is not None:
            walker.close()
        if log is not None:
            log.close()
        blobs.close()


def without_graph(
    failure: Exception, root: StrPath, path: str, symbol: str, rev: str, git_dir: StrPath | None
) -> History:
    """`symbol_history` again without Tether's commit-graph, after it failed with `failure`
    while the graph was read: a graph git cannot read (a damaged file) must not cost the
    answer. When the walk then works, the graph is deleted and this process reads none from
    then on (the next process writes it again); when it fails again, the error was not the
    graph's, and `failure` is raised as it was."""
    from anchors import commit_graph

    common = commit_graph.common_dir(os.fspath(root))
    if common is None or commit_graph.object_dir(os.fspath(root)) is None:
        raise failure
    with commit_graph.suspended():
        try:
            history = symbol_history(root, path, symbol, rev, git_dir)
        except HistoryError:
            raise failure from None
    commit_graph.discard(common)
    return history


def _unknown_symbol(
    path: str, symbol: str, rev: str, symbols: list[Symbol], candidates: list[Symbol]
) -> str:
    from difflib import get_close_matches

    if candidates:
        listed = ", ".join(s.name for s in candidates[:8])
        return f"{symbol} is ambiguous in {path}: {listed}; give the qualified name"
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
