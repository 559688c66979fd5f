"""`tether stale` at scale: 10,000 anchors, and 2 / 20 / 200 modified files in the working tree.

    .venv/bin/python -m bench.stale [--files 1000] [--functions 10] [--runs 5]

Builds a synthetic repository (N Python files of M functions), 500 learnings holding 20 symbol
anchors each (10,000 anchors, verified at HEAD or, with --commits C, spread over C commits), then modifies K files in the working tree (one function
body each) and times:
- `resolve`: resolving every anchor in-process (`Resolver.resolve_all`), the work `tether stale`
  does, medians of --runs;
- `cli`: the whole `tether stale --json --no-record` command, process start-up and imports included.
The work should grow with K (the files that changed), not with the 10,000 anchors.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
WORDS = [
    "cache",
    "retry",
    "ledger",
    "token",
    "parser",
    "queue",
    "socket",
    "batch",
    "window",
    "shard",
    "index",
    "lock",
]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def function(rng: random.Random, name: str) -> str:
    a, b, c = rng.sample(WORDS, 3)
    n = rng.randrange(2, 99)
    return (
        f"def {name}({a}, {b}):\n"
        f'    """{a} then {b}."""\n'
        f"    {c} = [{a}] * {n}\n"
        f"    for item in {b}:\n"
        f"        {c}.append(item + {n})\n"
        f"    return {c}\n"
    )


def build(root: Path, files: int, functions: int) -> None:
    rng = random.Random(1)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "Bench")
    for f in range(files):
        pkg = root / f"pkg{f % 20}"
        pkg.mkdir(exist_ok=True)
        body = "\n\n".join(function(rng, f"fn_{f}_{i}") for i in range(functions))
        (pkg / f"mod{f}.py").write_text(f'"""Module {f}."""\n\n\n' + body)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "code")


def later_commits(root: Path, count: int) -> list[str]:
    """HEAD plus `count - 1` newer commits that touch only a changelog: anchors spread over them
    come from distinct commits, as they do when learnings are written over time."""
    from anchors.git import head_commit

    commits = [head_commit(root)]
    for c in range(count - 1):
        (root / "CHANGES.txt").write_text(f"release {c}\n")
        git(root, "add", "CHANGES.txt")
        git(root, "commit", "-q", "-m", f"release {c}")
        commits.append(head_commit(root))
    return commits


def add_learnings(root: Path, files: int, functions: int, commits: list[str]) -> int:
    from anchors.memory import Memory
    from anchors.specs import symbol_anchor
    from anchors.symbols import extract_symbols

    anchors = []
    for f in range(files):
        rel = f"pkg{f % 20}/mod{f}.py"
        for s in extract_symbols((root / rel).read_bytes(), "python"):
            commit = commits[len(anchors) % len(commits)]
            anchors.append(symbol_anchor(rel, s, "python", commit, False))
    mem = Memory.open(root)
    categories = ["pattern", "security", "architecture", "preference", "error"]
    per = 20
    rng = random.Random(2)
    count = 0
    for i in range(0, len(anchors), per):
        words = " ".join(rng.sample(WORDS, 6))
        mem.add(
            f"Learning {i // per} about {words} ({i})",
            category=categories[(i // per) % len(categories)],
            anchors=anchors[i : i + per],
            status="active",
        )
        count += len(anchors[i : i + per])
    return count


def modify(root: Path, files: int, k: int) -> None:
    """Change one function body in each of k files (working tree only)."""
    for f in range(0, files, max(1, files // k))[:k]:
        path = root / f"pkg{f % 20}" / f"mod{f}.py"
        text = path.read_text()
        path.write_text(text.replace("        ", "        total = 0\n        ", 1))


def time_resolve(root: Path, runs: int) -> tuple[float, dict[str, int]]:
    from anchors.memory import Memory
    from anchors.resolve import Resolver

    mem = Memory.open(root)
    anchors = [a for r in mem.list() for a in r.anchors]
    times = []
    counts: dict[str, int] = {}
    for _ in range(runs):
        start = time.perf_counter()
        with Resolver(root) as resolver:
            verdicts = resolver.resolve_all(anchors)
        times.append(time.perf_counter() - start)
        counts = {}
        for v in verdicts:
            counts[v.status] = counts.get(v.status, 0) + 1
    return statistics.median(times), counts


def time_cli(root: Path, runs: int) -> float:
    tether = str(Path(sys.executable).parent / "tether")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [tether, "stale", "--json", "--no-record"],
            cwd=root,
            env=ENV,
            check=False,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.stale", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--functions", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modified", default="0,2,20,200")
    parser.add_argument("--commits", type=int, default=1, help="distinct anchor commits")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tether-bench-stale-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        build(root, args.files, args.functions)
        commits = later_commits(root, args.commits)
        total = add_learnings(root, args.files, args.functions, commits)
        print(
            f"setup: {args.files} files, {total} anchors from {len(commits)} distinct commits"
            f" in {time.perf_counter() - t0:.1f} s"
        )
        print(
            "| modified files | anchors | resolve (median) | `tether stale` (median) | verdicts |"
        )
        print("|---:|---:|---:|---:|---|")
        for k in (int(x) for x in args.modified.split(",")):
            git(root, "checkout", "-q", "--", ".")
            if k:
                modify(root, args.files, k)
            resolve_s, counts = time_resolve(root, args.runs)
            cli_s = time_cli(root, args.runs)
            shown = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
            print(
                f"| {k} | {total} | {resolve_s * 1000:.0f} ms | {cli_s * 1000:.0f} ms | {shown} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
