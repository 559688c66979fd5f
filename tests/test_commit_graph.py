"""Tether's commit-graph for history walks (anchors.commit_graph), with real git repositories:
written in the background after a walk of a big history, read through relative alternates,
never trusted when damaged, never written when turned off; and a walk whose git fails is an
error, not a shorter history."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from anchors import commit_graph
from anchors.gitpipe import git_env
from anchors.history_git import FileLog, GitFailed
from tests.conftest import RunTether, git, make_repo

SPEC = "app.py::Client.send"


def _history_repo(path: Path, big: bool) -> Path:
    """A repository where Client.send changes in three commits; `big` adds 1.5 MB of
    incompressible bytes, packed, so its history counts as big enough for a graph."""
    repo = make_repo(path)
    bodies = ["return 1", "return 2", "return 2  # same", "return 3"]
    for number, body in enumerate(bodies):
        (repo / "app.py").write_text(f"class Client:\n    def send(self):\n        {body}\n")
        git(repo, "add", "app.py")
        git(repo, "commit", "-q", "-m", f"send {number}")
    if big:
        (repo / "blob.bin").write_bytes(os.urandom(1_500_000))
        git(repo, "add", "blob.bin")
        git(repo, "commit", "-q", "-m", "data")
        git(repo, "gc", "-q")
    return repo


def _history(run_tether: RunTether, repo: Path, env: dict[str, str] | None = None) -> dict:
    proc = run_tether(["history", SPEC, "--json"], repo, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _wait_verified(repo: Path) -> Path:
    """The graph's directory once the background writer has written and verified it."""
    directory = Path(commit_graph.graph_dir(str(repo / ".git")))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (directory / commit_graph.VERIFIED_FILE).exists():
            return directory
        time.sleep(0.05)
    raise AssertionError("the commit-graph was not written in the background")


def _graphed(path: Path, run_tether: RunTether) -> tuple[Path, dict, Path]:
    """A big-history repository, its first history, and its graph once written and verified."""
    repo = _history_repo(path, big=True)
    first = _history(run_tether, repo)
    return repo, first, _wait_verified(repo)


def _commits(history: dict) -> list[tuple[str, list[str]]]:
    return [(c["commit"], c["changes"]) for c in history["commits"]]


def test_a_big_history_gets_a_graph_that_gives_the_same_answers(
    tmp_path: Path, run_tether: RunTether
) -> None:
    repo = _history_repo(tmp_path / "repo", big=True)
    first = _history(run_tether, repo)
    assert [c[1] for c in _commits(first)] == [["body"], ["body"], ["introduced"]]
    directory = _wait_verified(repo)
    assert (directory / "info" / "alternates").read_text().strip() == "../../objects"
    assert commit_graph.object_dir(str(repo)) == str(directory)
    assert git_env(repo)["GIT_OBJECT_DIRECTORY"] == str(directory)
    assert _history(run_tether, repo) == first
    # git itself vouches for it: the whole chain verifies against the object store.
    verify = subprocess.run(
        ["git", "commit-graph", "verify", "--no-progress"],
        cwd=repo,
        env={**os.environ, "GIT_OBJECT_DIRECTORY": str(directory)},
        capture_output=True,
    )
    assert verify.returncode == 0, verify.stderr


def test_a_new_commit_is_seen_and_the_graph_extended(tmp_path: Path, run_tether: RunTether) -> None:
    repo = _history_repo(tmp_path / "repo", big=True)
    _history(run_tether, repo)
    directory = _wait_verified(repo)
    old_tip = (directory / commit_graph.TIP_FILE).read_text().strip()
    (repo / "app.py").write_text("class Client:\n    def send(self):\n        return 4\n")
    git(repo, "commit", "-q", "-am", "send 4")
    head = git(repo, "rev-parse", "HEAD")
    history = _history(run_tether, repo)  # the graph is behind HEAD: slower, never wrong
    assert history["commits"][0]["commit"] == head
    assert len(history["commits"]) == 4
    deadline = time.monotonic() + 60
    verified = directory / commit_graph.VERIFIED_FILE
    while True:  # the background writer adds a layer for the new commit and verifies it
        stamp = verified.read_text() if verified.exists() else ""
        if not stamp.startswith("single") and stamp == commit_graph._layers(str(directory)):
            break
        assert time.monotonic() < deadline, "the new layer was not verified"
        time.sleep(0.05)
    assert (directory / commit_graph.TIP_FILE).read_text().strip() == head != old_tip
    chain = (directory / commit_graph.CHAIN).read_text().split()
    assert len(chain) in (1, 2)  # a second layer, or the two merged into one
    assert _history(run_tether, repo) == history


def test_init_writes_the_graph_of_a_long_history(tmp_path: Path, run_tether: RunTether) -> None:
    repo = _history_repo(tmp_path / "repo", big=True)
    proc = run_tether(["init"], repo)
    assert proc.returncode == 0, proc.stderr
    directory = _wait_verified(repo)
    head = git(repo, "rev-parse", "HEAD")
    assert (directory / commit_graph.TIP_FILE).read_text().strip() == head
    small = _history_repo(tmp_path / "small", big=False)
    assert run_tether(["init"], small).returncode == 0
    assert not Path(commit_graph.graph_dir(str(small / ".git"))).exists()


def test_a_small_history_gets_no_graph(tmp_path: Path, run_tether: RunTether) -> None:
    repo = _history_repo(tmp_path / "repo", big=False)
    _history(run_tether, repo)
    assert not Path(commit_graph.graph_dir(str(repo / ".git"))).exists()


def test_a_partial_clone_gets_no_graph_but_a_plain_clone_of_one_does(tmp_path: Path) -> None:
    repo = _history_repo(tmp_path / "repo", big=True)
    assert commit_graph.wanted(str(repo / ".git"), "x")
    git(repo, "config", "uploadpack.allowFilter", "true")
    partial = tmp_path / "partial"
    subprocess.run(
        ["git", "clone", "-q", "--filter=blob:limit=1m", f"file://{repo}", str(partial)],
        check=True,
    )
    packs = list((partial / ".git" / "objects" / "pack").glob("*.promisor"))
    assert packs  # git marks what it fetched from the promisor remote
    assert commit_graph.partial_clone(str(partial / ".git"))
    assert not commit_graph.wanted(str(partial / ".git"), "x")
    # A clone of that clone's directory copies its packs, marks and all, but has no remote
    # to fetch missing objects from: git never fetches into the graph's directory there.
    plain = tmp_path / "plain"
    subprocess.run(["git", "clone", "-q", str(partial), str(plain)], check=True)
    assert list((plain / ".git" / "objects" / "pack").glob("*.promisor"))
    assert not commit_graph.partial_clone(str(plain / ".git"))
    assert commit_graph.wanted(str(plain / ".git"), "x")


def test_turned_off_nothing_is_written(tmp_path: Path, run_tether: RunTether) -> None:
    repo = _history_repo(tmp_path / "repo", big=True)
    _history(run_tether, repo, env={"TETHER_COMMIT_GRAPH": "0"})
    time.sleep(0.5)
    assert not Path(commit_graph.graph_dir(str(repo / ".git"))).exists()


def test_a_moved_repository_keeps_its_graph(tmp_path: Path, run_tether: RunTether) -> None:
    repo = _history_repo(tmp_path / "repo", big=True)
    first = _history(run_tether, repo)
    _wait_verified(repo)
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(repo), str(moved))
    assert commit_graph.object_dir(str(moved)) is not None
    assert _commits(_history(run_tether, moved)) == _commits(first)


def test_a_graph_git_fails_on_costs_nothing_and_is_written_again(
    tmp_path: Path, run_tether: RunTether
) -> None:
    repo, first, directory = _graphed(tmp_path / "repo", run_tether)
    # A damaged graph directory: its alternates no longer lead to the objects, so every git
    # that reads through it fails.
    (directory / "info" / "alternates").write_text("../../nowhere\n")
    assert _history(run_tether, repo) == first  # walked again without it
    assert not directory.exists()  # deleted, not trusted again
    assert _history(run_tether, repo) == first  # this run writes it again
    _wait_verified(repo)
    assert _history(run_tether, repo) == first


def test_rotten_bits_in_the_graph_never_change_an_answer(
    tmp_path: Path, run_tether: RunTether
) -> None:
    repo, first, directory = _graphed(tmp_path / "repo", run_tether)
    layer = directory / commit_graph.SINGLE
    layer.chmod(0o644)
    data = bytearray(layer.read_bytes())
    for at in range(100, len(data) - 30, 7):
        data[at] ^= 0x5A
    stat = layer.stat()
    layer.write_bytes(bytes(data))
    os.utime(layer, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as bits rot: same size and time
    # git either skips what it cannot read or fails; a failure deletes the graph.
    assert _history(run_tether, repo) == first
    assert _history(run_tether, repo) == first


def test_an_unverified_graph_is_not_read(tmp_path: Path) -> None:
    repo = _history_repo(tmp_path / "repo", big=False)
    common = str(repo / ".git")
    assert commit_graph.write(str(repo), common, "x", wait=True) == 0
    assert commit_graph.object_dir(str(repo)) is not None
    verified = Path(commit_graph.graph_dir(common), commit_graph.VERIFIED_FILE)
    verified.write_text("another chain\n")
    commit_graph._found.clear()
    assert commit_graph.object_dir(str(repo)) is None


def test_a_linked_worktree_shares_the_main_graph(tmp_path: Path) -> None:
    repo = _history_repo(tmp_path / "repo", big=False)
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "side")
    assert commit_graph.common_dir(str(worktree / "sub" / "dir")) == str(repo / ".git")
    assert commit_graph.common_dir(str(tmp_path)) is None


def test_a_bare_repository_inside_a_work_tree_is_not_that_work_tree(tmp_path: Path) -> None:
    """git takes a bare repository for itself even inside another's work tree: its walks must
    not be pointed at the outer repository's graph (whose alternates name the outer objects)."""
    outer = make_repo(tmp_path / "outer")
    inner = outer / "vendor" / "inner.git"
    git(tmp_path, "clone", "-q", "--bare", str(outer), str(inner))
    assert commit_graph.common_dir(str(outer / "vendor")) == str(outer / ".git")
    assert commit_graph.common_dir(str(inner)) is None
    assert commit_graph.common_dir(str(inner / "refs")) is None
    assert commit_graph.work_tree(str(inner)) is None
    assert commit_graph.work_tree(str(outer / "vendor")) == (str(outer), str(outer / ".git"))


def test_a_git_that_fails_midway_is_an_error_not_a_shorter_history(
    tmp_path: Path, run_tether: RunTether
) -> None:
    repo = _history_repo(tmp_path / "repo", big=False)
    first = git(repo, "rev-list", "--max-parents=0", "HEAD")
    tree = git(repo, "rev-parse", f"{first}^{{tree}}")
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()  # a damaged object store
    log = FileLog(repo, "HEAD", "app.py")
    with pytest.raises(GitFailed):
        while log.first() is not None and not log._eof:
            log._read()
    log.close()
    proc = run_tether(["history", SPEC, "--json"], repo)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
