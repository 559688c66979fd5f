"""`tether history` both ways on random functions and methods: from git's diffs (how small files
are read) and from the blobs with the text search (big files, `anchors.history_text`). The two
must give the same histories; any difference is printed.

    .venv/bin/python -m bench.anchors.both_ways REPO FILE... [--per-file N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import anchors.history
from anchors.languages import language_for_path
from anchors.symbols import extract_symbols

Walked = list[tuple[str, tuple[str, ...], str, str]] | str


def walk(repo: Path, path: str, symbol: str, blobs: bool) -> Walked:
    """The history of one symbol, read one way (or the error it raised)."""
    anchors.history.big_file = lambda _path: blobs  # type: ignore[assignment]
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
    args = parser.parse_args()
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
            diffs = walk(args.repo, path, symbol.name, blobs=False)
            blobs = walk(args.repo, path, symbol.name, blobs=True)
            checked += 1
            if diffs != blobs:
                differ += 1
                print(f"DIFFERENT {path}::{symbol.name}\n  diffs: {diffs}\n  blobs: {blobs}")
    print(f"{checked} symbols, {differ} with different histories")


if __name__ == "__main__":
    main()
