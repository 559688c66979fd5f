"""Tether's own commit-graph, with changed-path Bloom filters, for its history walks.

A walk of one file's history (`git log -- PATH`) spends most of its time reading every commit
and its trees out of the object store, whether or not the commit touched the file: ~30 ms for
6,000 commits, the bulk of what `git log -L` costs on a small file. git can answer the same walk
from a commit-graph file with changed-path Bloom filters in a few milliseconds, but a clone has
none (`git clone` writes no commit-graph, `git gc` writes one without filters).

So Tether keeps one of its own, in an object directory of its own under the common git dir
(`.git/tether/commit-graph/`), whose `info/alternates` points back at the repository's objects
by a relative path (a moved repository keeps working). Tether's history processes run git with
`GIT_OBJECT_DIRECTORY` set to it: git then reads objects through the alternate and commits from
this graph. Nothing of the user's repository is written: not its objects, not its own
commit-graph, not its config.

The graph is written in the background (a detached process at lowered priority, `build`) after
a history walk of a repository whose packs hold at least `MIN_PACK_BYTES`, when the graph is
missing or was written at another tip: whole the first time, then a small layer for the new
commits. git verifies each graph before it is marked readable, and a graph git then fails on is
deleted and the walk made again without it (`tether history`). Commits newer than the graph are
read from the object store as usual, so a graph behind the branch is slower, never wrong. git
versions without Bloom filters (before 2.27) fail the write quietly and walk as before.

`TETHER_COMMIT_GRAPH=0` in the environment turns it off: no graph is read or written.

This module imports only `os`: it runs before git is started on `tether history`'s start-up.
"""

from __future__ import annotations

import os

GRAPH_DIR = os.path.join("tether", "commit-graph")
TIP_FILE = "tip"  # the commit the graph was last asked to cover
CHAIN = "info/commit-graphs/commit-graph-chain"  # git's list of the graph's layers
SINGLE = "info/commit-graph"  # the first graph, before it has layers
VERIFIED_FILE = "verified"  # what the graph was made of when git last verified it
MIN_PACK_BYTES = 1 << 20  # below this a walk is cheap: no graph is written
# Set by the user or a hook: git is pointed at other objects, which this graph must not shadow.
_FOREIGN = ("GIT_DIR", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_ALTERNATE_OBJECT_DIRECTORIES")

_found: dict[str, str | None] = {}
_off = {"all": os.environ.get("TETHER_COMMIT_GRAPH", "1") == "0"}


def common_dir(start: str) -> str | None:
    """The common git directory of the work tree holding `start`, found by reading `.git`
    (a directory, or a file naming a linked worktree's directory); None outside a work tree,
    in a bare repository, or when the environment points git elsewhere."""
    if any(name in os.environ for name in _FOREIGN):
        return None
    found = work_tree(start)
    if found is None:
        return None
    here, dot_git = found
    if os.path.isdir(dot_git):
        return dot_git
    if os.path.isfile(dot_git):
        return _linked(here, dot_git)
    return None


def work_tree(start: str) -> tuple[str, str] | None:
    """(the top of the work tree holding `start`, its `.git` entry): the nearest `.git` above
    it, as git looks. None when there is none, or when a git directory itself comes first (a
    bare repository, even one inside another's work tree; a directory within `.git`)."""
    here = os.path.realpath(start)
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.lexists(dot_git):
            return here, dot_git
        if os.path.isfile(os.path.join(here, "HEAD")) and os.path.isdir(
            os.path.join(here, "objects")
        ):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _linked(worktree: str, dot_git: str) -> str | None:
    """The common dir of a `.git` file (`gitdir: PATH`, whose `commondir` names the common dir)."""
    try:
        with open(dot_git, encoding="utf-8") as handle:
            line = handle.readline().strip()
        if not line.startswith("gitdir:"):
            return None
        git_dir = os.path.join(worktree, line[len("gitdir:") :].strip())
        try:
            with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as handle:
                common = handle.readline().strip()
        except FileNotFoundError:
            return os.path.normpath(git_dir)  # a submodule's own git dir
        return os.path.normpath(os.path.join(git_dir, common))
    except OSError:
        return None


def graph_dir(common: str) -> str:
    """Where the graph's object directory is (whether or not it exists)."""
    return os.path.join(common, GRAPH_DIR)


def object_dir(start: str) -> str | None:
    """The object directory to give git as `GIT_OBJECT_DIRECTORY` in the work tree holding
    `start`: the graph's, when it holds a written graph; else None (git's own). Cached per
    directory for the life of the process."""
    if _off["all"]:
        return None
    key = os.path.abspath(start)
    if key not in _found:
        _found[key] = _usable(common_dir(key))
    return _found[key]


def _usable(common: str | None) -> str | None:
    if common is None:
        return None
    directory = graph_dir(common)
    layers = _layers(directory)
    if layers and layers == _read(os.path.join(directory, VERIFIED_FILE)):
        return directory
    return None  # none yet, being written, or not verified: git's own objects only


def _layers(directory: str) -> str | None:
    """What the graph is made of now: the chain of layers (their checksums), or the single
    file's size and time; None when there is no graph."""
    chain = _read(os.path.join(directory, CHAIN))
    if chain:
        return chain
    try:
        single = os.stat(os.path.join(directory, SINGLE))
    except OSError:
        return None
    return f"single {single.st_size} {single.st_mtime_ns}\n"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def disable() -> None:
    """Read and write no graph in this process from now on."""
    _off["all"] = True


class suspended:  # noqa: N801 - used as a context manager, like contextlib's
    """`with suspended():` reads and writes no graph inside the block (a walk made again
    without it); outside, as before."""

    def __enter__(self) -> None:
        self._was = _off["all"]
        _off["all"] = True

    def __exit__(self, *exc: object) -> None:
        _off["all"] = self._was


def discard(common: str) -> None:
    """Stop using the graph in this process and delete it (git could not read it); the next
    history walk writes it again."""
    import shutil

    disable()
    shutil.rmtree(graph_dir(common), ignore_errors=True)


def pack_bytes(common: str) -> int:
    """The size of the repository's packs (how much history a walk has to read); 0 in a
    partial clone, where git would fetch missing objects into the graph's directory instead of
    the repository's."""
    if partial_clone(common):
        return 0
    pack = os.path.join(common, "objects", "pack")
    total = 0
    try:
        with os.scandir(pack) as entries:
            for entry in entries:
                if entry.name.endswith(".pack"):
                    total += entry.stat().st_size
    except OSError:
        return 0
    return total


def partial_clone(common: str) -> bool:
    """Whether git may fetch missing objects for this repository: its config names a promisor
    remote (`extensions.partialClone`, `remote.NAME.promisor`, as `git clone --filter`
    writes them). Read as text, and any such key at all counts: a wrong "yes" only costs the
    graph. (Packs marked `.promisor` alone do not make one: a plain clone of a partial clone's
    directory copies those marks but has no remote to fetch from.)"""
    try:
        with open(os.path.join(common, "config"), encoding="utf-8", errors="replace") as handle:
            text = handle.read().lower()
    except OSError:
        return False
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip()
        if key in ("partialclone", "promisor", "partialclonefilter"):
            return True
    return False


def wanted(common: str, tip: str) -> bool:
    """Whether a walk of this repository at `tip` calls for writing the graph: its history is
    big enough and the graph is missing or was last written at another tip."""
    if _off["all"] or pack_bytes(common) < MIN_PACK_BYTES:
        return False
    try:
        with open(os.path.join(graph_dir(common), TIP_FILE), encoding="ascii") as handle:
            return handle.read().strip() != tip
    except OSError:
        return True


def prepare(common: str) -> str:
    """Create the graph's object directory (alternates back to the repository's objects, by a
    relative path) and return it."""
    directory = graph_dir(common)
    info = os.path.join(directory, "info")
    os.makedirs(info, exist_ok=True)
    os.makedirs(os.path.join(directory, "pack"), exist_ok=True)
    alternates = os.path.join(info, "alternates")
    if not os.path.isfile(alternates):
        objects = os.path.relpath(os.path.join(common, "objects"), directory)
        _write(alternates, objects + "\n")
    return directory


def write(root: str, common: str, tip: str, wait: bool = False) -> int | None:
    """Write (or extend) the graph: `build` in a process of its own, in the background unless
    `wait`. Returns its exit status when waited for.

    In the background it is started through `sh`, which starts it at lowered priority and exits
    at once: the writer is nobody's child then (a long-lived caller, the language server or the
    MCP server, keeps no finished process to reap), in a session of its own."""
    import sys

    args = [sys.executable, "-m", "anchors.commit_graph", root, common, tip]
    if not wait:
        args = ["/bin/sh", "-c", 'nice -n 10 "$@" &', "sh", *args]
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    try:
        pid = os.posix_spawn(args[0], args, dict(os.environ), file_actions=actions, setsid=True)
    except OSError:
        return None
    _, status = os.waitpid(pid, 0)  # the writer itself, or the `sh` that started it
    _found.clear()
    return os.waitstatus_to_exitcode(status) if wait else None


def refresh(root: str, tip: str) -> bool:
    """Start writing the graph of the work tree at `root` in the background when `wanted`
    (True when asked for)."""
    common = common_dir(root)
    if common is None or not tip or not wanted(common, tip):
        return False
    write(root, common, tip)  # the writer itself fails quietly where it cannot write
    return True


def build(root: str, common: str, tip: str) -> bool:
    """Write the graph with `git commit-graph write --reachable --changed-paths`, verify it,
    and only then mark it readable (see `_usable`). `tip` is recorded first, so a git that
    cannot write one (older than 2.27) is not asked again at that tip.

    The first graph is written whole: a split write would leave out every commit already in a
    commit-graph of the repository's own, which git reads through the alternate. Later writes
    add a layer with the new commits only (`--split`; git merges small layers), and only that
    layer is verified: the ones below it were when they were new."""
    import subprocess

    directory = prepare(common)
    _write(os.path.join(directory, TIP_FILE), tip + "\n")
    env = {**os.environ, "GIT_OBJECT_DIRECTORY": directory, "GIT_TERMINAL_PROMPT": "0"}
    split = _layers(directory) is not None
    mode = ["--split"] if split else []
    for step in (
        ["commit-graph", "write", "--reachable", "--changed-paths", *mode, "--no-progress"],
        ["commit-graph", "verify", *(["--shallow"] if split else []), "--no-progress"],
    ):
        done = subprocess.run(["git", "-C", root, *step], env=env, capture_output=True)
        if done.returncode != 0:
            return False
    layers = _layers(directory)
    if layers is None:
        return False
    _write(os.path.join(directory, VERIFIED_FILE), layers)
    return True


def _write(path: str, text: str) -> None:
    """Write a small file whole (a reader sees the old text or the new, never half)."""
    partial = f"{path}.{os.getpid()}.tmp"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(partial, path)


if __name__ == "__main__":  # the background writer: ROOT COMMON TIP
    import sys

    sys.exit(0 if build(*sys.argv[1:4]) else 1)
