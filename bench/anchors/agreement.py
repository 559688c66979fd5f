"""`tether history` against the exhaustive sweep, stretch by stretch, on random functions of any
repository: a check that needs no hand-made truth, so it can run on code the tool has never seen.

For each function (drawn with a seed among the functions and methods of 6+ lines, defined once in
their file, in files with 20+ commits), `tether history --json` gives its commits, each with the
path and name the symbol had. Each run of one path and name is a stretch; the sweep
(`bench/anchors/sweep.py`, which compares the symbol's text before and after every commit that
touched the path, and never follows anything) is run on it from the commit before the stretch's
end. Within a stretch the two must list the same commits. What this cannot check: where a
stretch begins (a rename, a move, an introduction: the person judging a truth file decides
those), and symbols the sweep's lookup cannot find (it reads fewer definition forms than the
symbol index: `exports.x = function`, `Foo.prototype.x = function`, overloads named `x~2`); those
are counted apart. A stretch that differs is a lead to read, not yet an error: the sweep also walks
into an older life of a path (a file deleted and added again years later) and into another
definition of the same name.

    .venv/bin/python -m bench.anchors.agreement REPO [--seed S] [--count N] [--moving]

`--moving`: only functions whose history has more than one stretch (renamed, moved, or whose file
was renamed).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
from pathlib import Path

from anchors.languages import language_for_path
from anchors.symbols import extract_symbols
from bench.anchors.review import _EXT
from bench.anchors.sweep import sweep

TETHER = str(Path(sys.executable).with_name("tether"))


def pool(repo: Path) -> list[tuple[str, str]]:
    """(path, qualified name) of the candidate functions and methods, sorted."""
    names = subprocess.run(
        ["git", "log", "--format=", "--name-only", "HEAD"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    commits = collections.Counter(n for n in names if n)
    found: list[tuple[str, str]] = []
    for path in sorted(commits):
        language = language_for_path(path)
        if commits[path] < 20 or language is None or Path(path).suffix not in _EXT:
            continue
        if not (repo / path).is_file():
            continue
        symbols = extract_symbols((repo / path).read_bytes(), language)
        # Overloads share a name (the index numbers them `name~2`...): the sweep's lookup takes
        # the first of them, so a name written more than once is left out.
        seen = collections.Counter(s.name.split("~")[0] for s in symbols)
        found += [
            (path, s.name)
            for s in symbols
            if s.kind in ("function", "method")
            and seen[s.name] == 1
            and s.end_line - s.start_line >= 5
        ]
    return found


def check(repo: Path, path: str, name: str) -> tuple[int, list[str], list[str]] | str:
    """(stretches, differing stretches, stretches the sweep could not read) for one function,
    or the error `tether history` gave."""
    done = subprocess.run(
        [TETHER, "history", f"{path}::{name}", "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return done.stderr.strip()
    entries = [(c["commit"], c["path"], c["symbol"]) for c in json.loads(done.stdout)["commits"]]
    # Stretches in order, newest first; a path and name met again later is a stretch of its own.
    stretches: list[tuple[str, str, list[str]]] = []
    for commit, at, symbol in entries:
        if stretches and stretches[-1][:2] == (at, symbol):
            stretches[-1][2].append(commit)
        else:
            stretches.append((at, symbol, [commit]))
    differ: list[str] = []
    unread: list[str] = []
    for k, (at, symbol, mine) in enumerate(stretches):
        if Path(at).suffix not in _EXT:
            unread.append(f"{at}::{symbol}")
            continue
        rev = "HEAD" if k == 0 else stretches[k - 1][2][-1] + "^"
        swept = sweep(repo, at, symbol, rev)
        # The sweep walks on past the stretch's start into older lives of the path: its commits
        # down to the stretch's oldest are compared (a history is a graph: a branch can begin
        # where another goes on), and at the oldest the symbol must have been absent before (a
        # start, a rename, a move), else the stretch was cut short.
        if not swept:
            unread.append(f"{at}::{symbol}")
            continue
        listed = [commit for commit, _ in swept]
        verdicts = dict(swept)
        oldest = mine[-1]
        if oldest in verdicts:
            upto = listed[: listed.index(oldest) + 1]
            if not verdicts[oldest].startswith("absent"):
                differ.append(f"{at}::{symbol}@{rev[:9]} begins at {oldest[:8]}, not a start")
        else:
            upto = []
            for commit, verdict in swept:
                upto.append(commit)
                if verdict.startswith("absent"):
                    break
        if set(upto) != set(mine):
            extra = sorted(c[:8] for c in set(mine) - set(upto))
            missing = sorted(c[:8] for c in set(upto) - set(mine))
            differ.append(f"{at}::{symbol}@{rev[:9]} extra={extra} missing={missing}")
    return len(stretches), differ, unread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--moving", action="store_true")
    args = parser.parse_args()
    candidates = pool(args.repo)
    random.Random(args.seed).shuffle(candidates)
    totals: collections.Counter[str] = collections.Counter()
    for path, name in candidates:
        if totals["functions"] >= args.count:
            break
        result = check(args.repo, path, name)
        if isinstance(result, str):
            totals["functions"] += 1
            totals["failed"] += 1
            print(f"FAIL {path}::{name}: {result}", flush=True)
            continue
        count, differ, unread = result
        if args.moving and count < 2:
            continue
        totals["functions"] += 1
        totals["stretches"] += count
        totals["differing stretches"] += len(differ)
        totals["unread stretches"] += len(unread)
        totals["agreeing functions" if not differ else "differing functions"] += 1
        tag = "same" if not differ else "DIFF"
        print(f"{tag} {path}::{name} ({count} stretches)" + "".join(f"\n    {d}" for d in differ))
    print(
        f"# {args.repo.name} seed {args.seed}: " + ", ".join(f"{v} {k}" for k, v in totals.items())
    )


if __name__ == "__main__":
    main()
