"""Shared fixtures: real git repositories in temp dirs and the real `tether` console script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

TETHER = shutil.which("tether", path=str(Path(sys.executable).parent)) or "tether"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada Test",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Test",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path | str, *args: str, check: bool = True) -> str:
    """Run git in `cwd`, returning stdout."""
    proc = subprocess.run(
        ["git", *args], cwd=str(cwd), capture_output=True, text=True, env={**os.environ, **GIT_ENV}
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout.strip()


def make_repo(path: Path, email: str = "ada@example.com", name: str = "Ada Test") -> Path:
    """A fresh repository with an identity and one commit."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", email)
    git(path, "config", "user.name", name)
    git(path, "config", "commit.gpgsign", "false")
    (path / "README.md").write_text("# demo\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the real user's config or data dirs."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Ada Test\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository with one commit, its identity configured."""
    return make_repo(tmp_path / "repo")


RunTether = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_tether() -> RunTether:
    """Run the real `tether` console script: `run_tether(args, cwd, input=None)`."""

    def run(
        args: Sequence[str],
        cwd: Path | str,
        input: str | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TETHER, *args],
            cwd=str(cwd),
            input=input,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=120,
        )

    return run


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A bare remote holding one commit on main, and two clones by different people."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = make_repo(tmp_path / "seed")
    git(seed, "remote", "add", "origin", str(remote))
    git(seed, "push", "-q", "origin", "main")
    clones = []
    for name in ("alice", "bob"):
        path = tmp_path / name
        git(tmp_path, "clone", "-q", str(remote), str(path))
        git(path, "config", "user.email", f"{name}@example.com")
        git(path, "config", "user.name", name.title())
        clones.append(path)
    return remote, clones[0], clones[1]
