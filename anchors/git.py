"""Thin wrappers over the git command line (plumbing only; never the user's index or work tree)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


class GitError(RuntimeError):
    """A git command failed; the message is git's own first line of complaint."""


class NotARepository(GitError):
    """The directory is not inside a git repository."""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    env["LC_ALL"] = "C"
    return env


def run(
    args: list[str],
    cwd: Path | str,
    *,
    input: bytes | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `git ARGS` in `cwd` and return the completed process (bytes in, bytes out)."""
    full_env = _env()
    if env:
        full_env.update(env)
    proc = subprocess.run(
        ["git", *args], cwd=str(cwd), input=input, capture_output=True, env=full_env
    )
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = next((m for m in message if m.startswith(("fatal:", "error:"))), None)
        raise GitError(first or (message[0] if message else f"git {args[0]} failed"))
    return proc


def out(args: list[str], cwd: Path | str, **kwargs: object) -> str:
    """Run git and return its stdout as stripped text."""
    return run(args, cwd, **kwargs).stdout.decode("utf-8", "replace").strip()  # type: ignore[arg-type]


@dataclass(frozen=True)
class RepoPaths:
    root: Path  # the work tree (or the git dir for a bare repository)
    git_dir: Path  # the common git dir (shared by worktrees)
    bare: bool


def find_repo(start: Path | str | None = None) -> RepoPaths:
    """Locate the repository containing `start` (default: the current directory)."""
    cwd = Path(start or os.getcwd())
    if not cwd.exists():
        raise NotARepository(f"{cwd} does not exist")
    proc = run(
        ["rev-parse", "--is-bare-repository", "--git-common-dir", "--show-toplevel"],
        cwd,
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode != 0 and not (lines and lines[0] == "true"):
        raise NotARepository(f"not inside a git repository: {cwd}")
    bare = lines[0] == "true"
    git_dir = (cwd / lines[1]).resolve()
    root = git_dir if bare or len(lines) < 3 else Path(lines[2]).resolve()
    return RepoPaths(root=root, git_dir=git_dir, bare=bare)


def head_commit(root: Path) -> str:
    """The commit HEAD points at, or "" in a repository with no commits yet."""
    proc = run(["rev-parse", "--verify", "-q", "HEAD^{commit}"], root, check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else ""


def identity(root: Path) -> tuple[str, str]:
    """(email, name) of the git identity that writes here; falls back to the OS user."""
    # One process for both keys: this runs on every command's start-up path.
    found = run(["config", "--get-regexp", r"^user\.(name|email)$"], root, check=False)
    values: dict[str, str] = {}
    for line in found.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        values[key] = value.strip()  # later (more local) values win
    email = values.get("user.email", "")
    name = values.get("user.name", "")
    if not email:
        user = os.environ.get("USER") or os.environ.get("USERNAME") or "unknown"
        email = f"{user}@localhost"
    return email, name or email.split("@")[0]
