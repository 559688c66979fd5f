"""What a commit is about to record: staged paths and their staged content, read from the index.

Hooks read the index, not the work tree: under the pre-commit framework both agree (it stashes
unstaged changes), but as plain git hooks only the index says what the commit will hold.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from anchors import git

MEMORY_GLOBS = (".tether/*",)


def repo_root(start: Path | str | None = None) -> Path:
    """The work tree root of the repository around `start` (raises git.NotARepository)."""
    return git.find_repo(start).root


def tether_dir(root: Path) -> Path:
    """`.git/tether` of the repository at `root` (it exists once `tether init` or a write ran)."""
    return Path(git.find_repo(root).git_dir) / "tether"


def is_initialised(root: Path) -> bool:
    """True when this repository uses Tether: a local op-log, or a `.tether/` directory (a fresh
    clone of a team's repository). Otherwise hooks do nothing: they never set Tether up."""
    return tether_dir(root).is_dir() or (root / ".tether").is_dir()


def staged_paths(root: Path, deleted: bool = False) -> list[str]:
    """Paths the index changes relative to HEAD (added, copied, modified, renamed[, deleted])."""
    has_head = git.run(["rev-parse", "--verify", "-q", "HEAD"], root, check=False).returncode == 0
    base = "HEAD" if has_head else git.out(["hash-object", "-t", "tree", "/dev/null"], root)
    filters = "ACMRD" if deleted else "ACMR"
    raw = git.run(
        ["diff", "--cached", "--name-only", "-z", "--no-renames", f"--diff-filter={filters}", base],
        root,
    ).stdout
    return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]


def staged_blob(root: Path, path: str) -> bytes:
    """The content of `path` as staged in the index."""
    return git.run(["cat-file", "blob", f":{path}"], root).stdout


def memory_globs(root: Path) -> list[str]:
    """`.tether/**` plus the globs `.tether/config.toml` lists under `[scan] paths`."""
    globs = list(MEMORY_GLOBS)
    config = root / ".tether" / "config.toml"
    if config.is_file():
        from anchors import toml as tomllib

        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return globs  # the config's own owner reports a broken file; scan the defaults
        extra = data.get("scan", {}).get("paths", []) if isinstance(data.get("scan"), dict) else []
        globs.extend(str(p) for p in extra if isinstance(p, str) and p)
    return globs


def is_memory_path(path: str, globs: list[str]) -> bool:
    """fnmatch, where `*` also crosses `/` (so `.tether/*` covers the whole directory)."""
    return any(fnmatch.fnmatchcase(path, glob) for glob in globs)
