"""`tether history SPEC [--rev REV] [--json]`: the commits that introduced or changed a symbol."""

from __future__ import annotations

# Neither argparse nor typing is imported on the way to git's start (see fast_args).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from anchors.history import History


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


def fast_args(words: list[str]) -> argparse.Namespace | None:
    """The arguments of `tether [-C DIR] history SPEC [--rev REV] [--json]`, read without
    building a parser (argparse's set-up costs several milliseconds of a command that races
    `git log -L`); None for anything else (help, abbreviations, errors), which the parser reads
    and reports as usual."""
    args, directory = list(words), None
    while len(args) > 1 and args[0] == "-C":
        directory, args = args[1], args[2:]
    if not args or args[0] != "history":
        return None
    spec, rev, as_json = None, "HEAD", False
    rest = args[1:]
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--json":
            as_json = True
        elif word == "--rev" and i + 1 < len(rest) and not rest[i + 1].startswith("-"):
            rev = rest[i + 1]
            i += 1
        elif word.startswith("--rev=") and not word[6:].startswith("-"):
            rev = word[6:]
        elif word.startswith("-") or spec is not None:
            return None
        else:
            spec = word
        i += 1
    if spec is None:
        return None
    from types import SimpleNamespace

    namespace: Any = SimpleNamespace(
        directory=directory, command="history", spec=spec, rev=rev, json=as_json, func=cmd_history
    )
    return namespace  # what argparse would give


def cmd_history(args: argparse.Namespace) -> int:
    """Run `tether history`."""
    import os
    import sys

    # git starts walking the file's history now, from the user's directory, while the rest of
    # the program is imported, the repository located and the symbol parsed; whatever turns
    # out unneeded (an error below) is stopped.
    from anchors.history_git import Prestart

    path_text, sep, _ = args.spec.partition("::")
    rev = args.rev
    early = sep and path_text.strip() and rev and not rev.startswith("-")
    early = early and not any(c in rev + path_text for c in "\n\r\0")
    pre = Prestart(os.getcwd(), rev, path_text.strip()) if early else None
    try:
        from anchors.errors import NotInRepository
        from anchors.history import (
            HistoryError,
            locate_path,
            parse_spec,
            symbol_history,
            without_graph,
        )
        from anchors.history_git import GitFailed

        path, symbol = parse_spec(args.spec)
        where = pre.repository() if pre is not None else None
        if where is None:
            from anchors.git import NotARepository, find_repo

            try:
                found = find_repo()
            except NotARepository as exc:
                raise NotInRepository(str(exc)) from None
            root, git_dir = os.fspath(found.root), os.fspath(found.git_dir)
        else:
            root, git_dir = where
        rel, followed = locate_path(root, path, os.getcwd())
        if followed:  # git knows the link only: the history asked for is its target's
            print(f"tether: {path} leads through a symlink to {rel}: following it", file=sys.stderr)
            if pre is not None:
                pre.forget_log()
        try:
            history = symbol_history(
                root,
                rel,
                symbol,
                args.rev,
                git_dir,
                log=pre.log if pre is not None else None,
                blobs=pre.blobs if pre is not None else None,
            )
        except (GitFailed, HistoryError) as failure:
            history = without_graph(failure, root, rel, symbol, args.rev, git_dir)
    finally:
        if pre is not None:
            pre.close()
    try:
        return _show(args, history, rel, symbol)
    finally:
        # The next walk here reads commits from Tether's graph (anchors.commit_graph).
        from anchors.commit_graph import refresh

        refresh(os.fspath(root), history.rev)


def _show(args: argparse.Namespace, history: History, rel: str, symbol: str) -> int:
    """Print the history (a table, or the JSON document)."""
    if args.json:
        import sys

        # json.dumps's text, without importing json (see the module; orjson's import costs
        # more than this one document too).
        from anchors.cli.json_text import dumps

        text = dumps(history.to_dict())
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape") + b"\n")
        sys.stdout.flush()
        return 0
    from anchors.cli.output import note, print_table

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
