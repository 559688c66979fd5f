"""`tether history` both ways on random functions and methods: from git's diffs (how small files
are read) and from the blobs with the text search (big files, `anchors.history_text`); or, with
`--graph`, with Tether's commit-graph (`anchors.commit_graph`, written first if missing) and
without it. The two must give the same histories; any difference is printed.

    .venv/bin/python -m bench.anchors.both_ways REPO FILE... [--per-file N] [--seed S] [--graph]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import anchors.history
from anchors import commit_graph
from anchors.languages import language_for_path
from anchors.symbols import extract_symbols

Walked = list[tuple[str, tuple[str, ...], str, str]] | str


def walk(repo: Path, path: str, symbol: str, blobs: bool | None, graph: bool = True) -> Walked:
    """The history of one symbol, read one way (or the error it raised); `blobs` None: as
    `tether history` chooses by the file's size."""
    if blobs is not None:
        anchors.history.big_file = lambda _path: blobs  # type: ignore[assignment]
    commit_graph._off["all"] = not graph
    commit_graph._found.clear()
    try:
        history = anchors.history.symbol_history(repo, path, symbol)
    except Exception as exc:  # reported beside the other way's answer
        return repr(exc)
    return [(e.commit, e.changes, e.path, e.symbol) for e in history.commits]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--per-file", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--graph", action="store_true", help="with and without the commit-graph")
    args = parser.parse_args()
    if args.graph:
        common = commit_graph.common_dir(str(args.repo))
        if common is None or commit_graph.object_dir(str(args.repo)) is None:
            assert common is not None, f"{args.repo} is not a work tree"
            commit_graph.write(str(args.repo), common, "bench", wait=True)
            assert commit_graph.object_dir(str(args.repo)), "git wrote no commit-graph"
    pick = random.Random(args.seed)
    checked = differ = 0
    for path in args.files:
        language = language_for_path(path)
        if language is None:
            continue
        symbols = [
            s
            for s in extract_symbols((args.repo / path).read_bytes(), language)
            if s.kind in ("function", "method")
        ]
        for symbol in pick.sample(symbols, min(args.per_file, len(symbols))):
            if args.graph:
                one, two = (walk(args.repo, path, symbol.name, None, g) for g in (True, False))
                names = ("graph", "no graph")
            else:
                one, two = (walk(args.repo, path, symbol.name, b) for b in (False, True))
                names = ("diffs", "blobs")
            checked += 1
            if one != two:
                differ += 1
                print(f"DIFFERENT {path}::{symbol.name}\n  {names[0]}: {one}\n  {names[1]}: {two}")
    print(f"{checked} symbols, {differ} with different histories")


if __name__ == "__main__":
    main()
