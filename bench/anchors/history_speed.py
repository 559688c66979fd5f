"""Wall time of `tether history` against `git log -L` on the same functions.

Both run as a user runs them (the real `tether` console script, `git log -L :NAME:PATH` with
git's built-in function-name pattern for the language), in repositories of 5,000+ commits. Each
case is timed alternately (tether, git, tether, git, ...), several rounds; the figures are medians,
of wall time and of CPU time (the process and its children: tether runs git beside Python, so on
a busy machine its wall time tends to its CPU time).
Tether's commit-graph (`anchors.commit_graph`) is written first where it is missing, and
tether is timed twice: with it (every run after the first in a repository) and without it
(`TETHER_COMMIT_GRAPH=0`: a repository's first run, before the graph is written in the
background). The repository itself has no commit-graph of git's (as after `git clone`).
`--against DIR` also times another source tree of tether (e.g. `git archive` of an older commit
unpacked in DIR) in the same rounds, for a before/after comparison on an equally busy machine.
`--span` also times `git log -L` chained by hand over tether's answer: where tether's history goes
on in a file or under a name that git's stopped short of (a function moved from another file, a
rename git did not follow), one more `git log -L` from the newest commit of that stretch, the
times summed (what a user of git alone would run, once they knew where to look).
`--random REPO:N:SEED` (repeatable) times N functions drawn at random instead (the agreement
check's pool: functions and methods of 6+ lines defined once in their file, in files of 20+
commits, shuffled with `random.Random(SEED)`), skipping those `git log -L :NAME:PATH` cannot
find.

    .venv/bin/python -m bench.anchors.history_speed [--rounds N] [--only TEXT] [--against DIR]
        [--random REPO:N:SEED ...] [--span]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from anchors import commit_graph
from bench.anchors.accuracy import ATTRIBUTES
from bench.anchors.truth import locate

# (repository, path, symbol): long-lived functions in long-lived files. The mypy ones are in
# large, busy files (checker.py: ~9,500 lines, 1,200 commits), where git's own diffs dominate.
CASES = [
    ("requests", "src/requests/utils.py", "super_len"),
    ("requests", "src/requests/sessions.py", "SessionRedirectMixin.resolve_redirects"),
    ("requests", "src/requests/models.py", "PreparedRequest.prepare_body"),
    ("requests", "src/requests/adapters.py", "HTTPAdapter.send"),
    ("requests", "src/requests/sessions.py", "merge_setting"),
    ("express", "lib/utils.js", "acceptParams"),
    ("express", "lib/view.js", "tryStat"),
    ("mypy", "mypy/checker.py", "TypeChecker.check_assignment"),
    ("mypy", "mypy/checker.py", "is_valid_inferred_type"),
    ("mypy", "mypy/subtypes.py", "is_subtype"),
    ("mypy", "mypy/semanal.py", "SemanticAnalyzer.visit_import_from"),
    ("mypy", "mypy/meet.py", "meet_types"),
    # A function of 1,200 lines changed in 248 commits (most of its 45 KB file): the walk's
    # work per change grows with the symbol, `git log -L`'s does not.
    ("vue-core", "packages/compiler-sfc/src/compileScript.ts", "compileScript"),
    ("vue-core", "packages/runtime-core/src/apiWatch.ts", "doWatch"),
]


# As a user runs it: Python keeps its compiled bytecode (an environment that turns that off
# would time the compilation of every module at every run).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
NO_GRAPH = {**ENV, "TETHER_COMMIT_GRAPH": "0"}


def _time(cmd: list[str], cwd: Path, env: dict[str, str] = ENV) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and the processes it waited for)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime


def _launcher(tree: Path) -> list[str]:
    """A `tether` that runs the source tree `tree` (what the console script does, from there)."""
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); "
        "from anchors.cli.main import main; sys.exit(main())"
    )
    return [sys.executable, "-c", code]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="", help="only the cases whose label contains this")
    ap.add_argument("--against", type=Path, help="another tether source tree, timed alongside")
    ap.add_argument(
        "--random",
        metavar="REPO:N:SEED",
        action="append",
        help="N random functions of REPO instead (repeat it for several repositories)",
    )
    ap.add_argument(
        "--span", action="store_true", help="also git log -L chained over tether's answer"
    )
    args = ap.parse_args(argv)
    cases = CASES
    if args.random:
        cases = [case for drawn in args.random for case in _drawn(*drawn.split(":"))]
    tether = shutil.which("tether", path=str(Path(sys.executable).parent)) or "tether"
    ratios: list[float] = []
    cpu_ratios: list[float] = []
    against: list[float] = []
    cold: list[float] = []
    span_ratios: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        attributes = Path(tmp) / "attributes"
        attributes.write_text(ATTRIBUTES)
        head = f"{'function':58} {'commits':>7} {'tether':>9} {'git -L':>9} {'ratio':>6}"
        head += f" {'cpu':>7} {'cpu -L':>7} {'ratio':>6} {'no graph':>9} {'ratio':>6}"
        head += f" {'other':>9} {'new/other':>9}" if args.against else ""
        print(head + (f" {'git span':>9} {'ratio':>6} {'runs':>4}" if args.span else ""))
        for repo_name, path, symbol in cases:
            label = f"{repo_name}:{path}::{symbol}"
            if args.only not in label:
                continue
            repo = locate(repo_name)
            if repo is None:
                print(f"skip {repo_name}: not found (see bench/anchors/truth.py)")
                continue
            count = subprocess.run(
                ["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True
            ).stdout.strip()
            common = commit_graph.common_dir(str(repo))
            if common is not None and commit_graph.object_dir(str(repo)) is None:
                commit_graph.write(str(repo), common, "bench", wait=True)
            tail = ["history", f"{path}::{symbol}", "--json"]
            commands = [[tether, *tail]]
            short = symbol.rsplit(".", 1)[-1]
            commands.append(
                ["git", "-c", f"core.attributesFile={attributes}", "log", "-L",
                 f":{short}:{path}", "HEAD"]
            )  # fmt: skip
            commands.append([tether, *tail])  # timed without the graph
            if args.against:
                commands.append([*_launcher(args.against.resolve()), *tail])
            envs = [ENV, ENV, NO_GRAPH, ENV][: len(commands)]
            chained = _chained(repo, attributes, [tether, *tail]) if args.span else []
            try:
                for cmd, env in zip(commands, envs, strict=True):  # warm the page cache
                    _time(cmd, repo, env)
            except RuntimeError as exc:  # (a name git's function pattern does not find)
                print(f"skip {label}: {exc}")
                continue
            times: list[list[tuple[float, float]]] = [[] for _ in commands]
            spans: list[float] = []
            for _ in range(args.rounds):
                for cmd, env, into in zip(commands, envs, times, strict=True):
                    into.append(_time(cmd, repo, env))
                if chained:
                    spans.append(sum(_time(cmd, repo)[0] for cmd in chained))
            med = [statistics.median(w for w, _ in t) for t in times]
            cpu = [statistics.median(c for _, c in t) for t in times]
            ratios.append(med[0] / med[1])
            cpu_ratios.append(cpu[0] / cpu[1])
            line = f"{label:58} {count:>7} {med[0] * 1000:7.0f}ms {med[1] * 1000:7.0f}ms"
            line += f" {med[0] / med[1]:6.2f} {cpu[0] * 1000:5.0f}ms {cpu[1] * 1000:5.0f}ms"
            line += f" {cpu[0] / cpu[1]:6.2f} {med[2] * 1000:7.0f}ms {med[2] / med[1]:6.2f}"
            cold.append(med[2] / med[1])
            if args.against:
                against.append(med[0] / med[3])
                line += f" {med[3] * 1000:7.0f}ms {med[0] / med[3]:9.2f}"
            if spans:
                span = statistics.median(spans)
                span_ratios.append(med[0] / span)
                line += f" {span * 1000:7.0f}ms {med[0] / span:6.2f} {len(chained):4}"
            print(line, flush=True)
    if ratios:
        print(f"median ratio tether/git-log-L: {statistics.median(ratios):.2f}", end=" ")
        print(f"(CPU: {statistics.median(cpu_ratios):.2f});", end=" ")
        print(f"without the commit-graph: {statistics.median(cold):.2f}")
    if against:
        print(f"median ratio tether/other: {statistics.median(against):.2f}")
    if span_ratios:
        print(
            f"median ratio tether/git-log-L over the same span: {statistics.median(span_ratios):.2f}"
        )
    return 0


def _chained(repo: Path, attributes: Path, tether: list[str]) -> list[list[str]]:
    """The `git log -L` commands that together cover tether's answer (see `--span`): the first
    from HEAD, then one from the newest commit of each stretch (a path and name) none of whose
    commits the commands before it listed."""
    answer = json.loads(subprocess.run(tether, cwd=repo, capture_output=True, check=True).stdout)
    stretches: list[tuple[str, str, list[str]]] = []
    for entry in answer["commits"]:
        key = (entry["path"], entry["symbol"])
        if stretches and stretches[-1][:2] == key:
            stretches[-1][2].append(entry["commit"])
        else:
            stretches.append((*key, [entry["commit"]]))
    commands: list[list[str]] = []
    listed: set[str] = set()
    for index, (path, symbol, shas) in enumerate(stretches):
        if index and listed.intersection(shas):
            continue
        short = symbol.rsplit(".", 1)[-1]
        cmd = ["git", "-c", f"core.attributesFile={attributes}", "log", "-L",
               f":{short}:{path}", "--format=commit %H", "HEAD" if not index else shas[0]]  # fmt: skip
        run = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
        if run.returncode != 0:  # (a name git's function pattern does not find there)
            continue
        listed.update(line[7:] for line in run.stdout.splitlines() if line.startswith("commit "))
        commands.append(cmd)
    return commands
    return 0


def _drawn(repo_name: str, count: str, seed: str) -> list[tuple[str, str, str]]:
    """`count` functions of the subject `repo_name` drawn with `random.Random(seed)`."""
    import random

    from bench.anchors.agreement import pool

    repo = locate(repo_name)
    if repo is None:
        raise SystemExit(f"{repo_name}: not found (see bench/anchors/truth.py)")
    candidates = pool(repo)
    random.Random(int(seed)).shuffle(candidates)
    return [(repo_name, path, symbol) for path, symbol in candidates[: int(count)]]


if __name__ == "__main__":
    sys.exit(main())
