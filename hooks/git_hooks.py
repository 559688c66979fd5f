"""Plain git hooks equivalent to the pre-commit framework's hooks, for people who do not use it.

`install(root)` writes `pre-commit` (tether-scan, then tether-stale as a warning), `post-commit`,
`pre-push`, `post-merge` and `post-checkout` (tether-sync) into the repository's hooks directory
(`git rev-parse --git-path hooks`, so `core.hooksPath` is honoured). Hooks that Tether wrote are
rewritten in place. A hook someone else wrote is never overwritten: without `force` the install
stops and names it; with `force` it is kept as `<name>.pre-tether` and run first, its exit status
deciding for the hooks that can block (pre-commit, pre-push).
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from anchors import git

MARKER = "# tether: managed hook (tether hooks install)"
CHAINED_SUFFIX = ".pre-tether"

# hook name -> the hook modules it runs, with their arguments
HOOKS: dict[str, list[str]] = {
    "pre-commit": ["hooks.tether_scan", "hooks.tether_stale"],
    "post-commit": ["hooks.tether_sync --stage post-commit"],
    "pre-push": ["hooks.tether_sync --stage pre-push"],
    "post-merge": ["hooks.tether_sync --stage post-merge"],
    "post-checkout": ["hooks.tether_sync --stage post-checkout"],
}
BLOCKING = ("pre-commit", "pre-push")


class HookConflict(Exception):
    """Hooks that are not ours are in the way (install without force)."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__(", ".join(str(p) for p in paths))
        self.paths = paths


@dataclass
class InstallReport:
    hooks_dir: Path
    written: list[str] = field(default_factory=list)
    chained: list[str] = field(default_factory=list)  # foreign hooks kept and run first


def hooks_dir(root: Path) -> Path:
    """The directory git runs hooks from (honours core.hooksPath)."""
    path = Path(git.out(["rev-parse", "--git-path", "hooks"], root))
    return path if path.is_absolute() else (root / path)


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")[:500]
    except OSError:
        return False


def script(name: str, python: str, chained: bool) -> str:
    """The shell script of one hook."""
    lines = ["#!/bin/sh", MARKER, "set -u"]
    if chained:
        previous = f'"$(dirname "$0")/{name}{CHAINED_SUFFIX}"'
        if name in BLOCKING:
            lines.append(f'{previous} "$@" || exit $?')
        else:
            lines.append(f'{previous} "$@" || true')
    for command in HOOKS[name]:
        module, *extra = command.split()
        invocation = " ".join([shlex.quote(python), "-m", module, *extra, '"$@"'])
        if name == "pre-commit" and module == "hooks.tether_scan":
            lines.append(f"{invocation} || exit $?")  # rejected memory blocks the commit
        elif name == "pre-commit":
            lines.append(invocation)  # stale learnings warn, never block
        else:
            lines.append(f"{invocation} || true")  # sync never blocks git
    lines.append("exit 0")
    return "\n".join(lines) + "\n"


def install(root: Path, force: bool = False, python: str | None = None) -> InstallReport:
    """Write the hooks; raise HookConflict (writing nothing) when foreign hooks are in the way."""
    directory = hooks_dir(root)
    report = InstallReport(directory)
    foreign = [
        directory / name
        for name in HOOKS
        if (directory / name).exists() and not is_ours(directory / name)
    ]
    if foreign and not force:
        raise HookConflict(foreign)
    directory.mkdir(parents=True, exist_ok=True)
    interpreter = python or sys.executable
    for name in HOOKS:
        path = directory / name
        chained_path = directory / f"{name}{CHAINED_SUFFIX}"
        if path in foreign:
            if chained_path.exists():
                raise HookConflict([chained_path])
            os.replace(path, chained_path)
            report.chained.append(name)
        chained = chained_path.exists()
        tmp = path.with_name(f".{name}.tether-tmp")
        tmp.write_text(script(name, interpreter, chained), encoding="utf-8")
        mode = tmp.stat().st_mode
        tmp.chmod(mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        os.replace(tmp, path)
        report.written.append(name)
    return report


def uninstall(root: Path) -> list[str]:
    """Remove the hooks Tether wrote, putting back any hook they had chained; return the names."""
    directory = hooks_dir(root)
    removed = []
    for name in HOOKS:
        path = directory / name
        if path.exists() and is_ours(path):
            path.unlink()
            removed.append(name)
            chained_path = directory / f"{name}{CHAINED_SUFFIX}"
            if chained_path.exists():
                os.replace(chained_path, path)
    return removed
