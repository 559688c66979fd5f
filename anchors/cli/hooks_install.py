"""`tether hooks install [--force]` / `tether hooks uninstall`: plain git hooks, without the framework.

install writes pre-commit (scan the staged memory files, then list learnings on changed code),
post-commit, pre-push, post-merge and post-checkout (sync the op-log ref, refresh the projection).
A hook that Tether did not write is never overwritten: install stops and names it, or with
`--force` keeps it as `<name>.pre-tether` and runs it first. uninstall removes Tether's hooks and
puts chained ones back. Using the pre-commit framework instead? See docs/hooks.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from anchors.errors import NotInRepository, UsageError


def run_install(args: argparse.Namespace) -> int:
    from anchors import git
    from anchors.cli.output import print_json, print_line
    from hooks.git_hooks import HookConflict, install

    try:
        repo = git.find_repo()
    except git.NotARepository as exc:
        raise NotInRepository(str(exc)) from None
    if repo.bare:
        raise UsageError("a bare repository runs no commit hooks")
    try:
        report = install(repo.root, force=args.force)
    except HookConflict as exc:
        names = ", ".join(p.name for p in exc.paths)
        raise UsageError(
            f"hooks not written by tether are in the way: {names} in {exc.paths[0].parent} "
            "(--force keeps each as <name>.pre-tether and runs it first)"
        ) from None
    if args.json:
        print_json({"hooks_dir": str(report.hooks_dir), "written": report.written,
                    "chained": report.chained})  # fmt: skip
        return 0
    print_line(f"installed {', '.join(report.written)} in {report.hooks_dir}")
    for name in report.chained:
        print_line(f"kept your {name} hook as {name}.pre-tether; it runs first")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from anchors import git
    from anchors.cli.output import print_json, print_line
    from hooks.git_hooks import uninstall

    try:
        repo = git.find_repo()
    except git.NotARepository as exc:
        raise NotInRepository(str(exc)) from None
    removed = uninstall(repo.root)
    if args.json:
        print_json({"removed": removed})
    else:
        print_line(f"removed {', '.join(removed)}" if removed else "no tether hooks installed")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "hooks",
        help="install plain git hooks (scan, stale, sync) without the pre-commit framework",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="hooks_command", metavar="ACTION", required=True)
    install = sub.add_parser("install", help="write the hooks into this repository")
    install.add_argument(
        "--force", action="store_true", help="chain existing hooks instead of stopping"
    )
    install.add_argument("--json", action="store_true", help="one JSON document on stdout")
    install.set_defaults(func=run_install)
    uninstall = sub.add_parser("uninstall", help="remove the hooks tether wrote")
    uninstall.add_argument("--json", action="store_true", help="one JSON document on stdout")
    uninstall.set_defaults(func=run_uninstall)
