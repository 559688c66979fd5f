"""`tether history SPEC [--rev REV] [--json]`: the commits that introduced or changed a symbol."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the `history` command."""
    parser = subparsers.add_parser(
        "history",
        help="commits that introduced or changed a symbol (git log -L, symbol-aware)",
        description=(
            "The commits, newest first, in which the symbol at SPEC (PATH::SYMBOL, as of REV) "
            "was introduced or changed, following renames, file renames and moves across files. "
            "Commits that only touch whitespace or comments are left out. Needs git history, "
            "not `tether init`."
        ),
    )
    parser.add_argument("spec", metavar="SPEC", help="PATH::SYMBOL, e.g. src/app.py::Client.send")
    parser.add_argument("--rev", default="HEAD", help="the revision SPEC is read at (default HEAD)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(func=cmd_history)


def cmd_history(args: argparse.Namespace) -> int:
    """Run `tether history`."""
    from pathlib import Path

    from anchors.history import parse_spec, start_log, symbol_history

    path, symbol = parse_spec(args.spec)
    # git starts walking the file's history now, while the repository is located and the
    # symbol parsed; an answer that turns out unneeded (an error below) is dropped.
    log = start_log(Path.cwd(), args.rev, path)
    try:
        from anchors.errors import NotInRepository
        from anchors.git import NotARepository, find_repo
        from anchors.history import repo_path

        try:
            repo = find_repo()
        except NotARepository as exc:
            raise NotInRepository(str(exc)) from None
        rel = repo_path(repo.root, path, Path.cwd())
        history = symbol_history(repo.root, rel, symbol, args.rev, repo.git_dir, log)
    finally:
        if log is not None:
            log.close()
    from anchors.cli.output import note, print_json, print_table

    if args.json:
        print_json(history.to_dict())
        return 0
    for notice in history.notices:
        note(f"notice: {notice}")
    rows = [
        (
            e.commit[:12],
            e.date[:10],
            e.author,
            ", ".join(e.changes),
            _place(e.path, e.symbol, rel, symbol),
        )
        for e in history.commits
    ]
    print_table(
        f"history of {rel}::{symbol} at {history.rev[:12]}",
        ["commit", "date", "author", "changes", "as"],
        rows,
    )
    return 0


def _place(path: str, symbol: str, now_path: str, now_symbol: str) -> str:
    """Where the symbol was after that commit, when it is not where it is now."""
    if path == now_path and symbol == now_symbol:
        return ""
    return f"{path}::{symbol}"
