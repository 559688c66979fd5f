"""Wall time of `tether history` against `git log -L` on the same functions.

Both run as a user runs them (the real `tether` console script, `git log -L :NAME:PATH` with
git's built-in function-name pattern for the language), in repositories of 5,000+ commits. Each
pair is timed alternately, several rounds; the figure is the median.

    .venv/bin/python -m bench.anchors.history_speed [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.anchors.accuracy import ATTRIBUTES
from bench.anchors.truth import locate

# (repository, path, symbol): long-lived functions in long-lived files.
CASES = [
    ("requests", "src/requests/utils.py", "super_len"),
    ("requests", "src/requests/sessions.py", "SessionRedirectMixin.resolve_redirects"),
    ("requests", "src/requests/models.py", "PreparedRequest.prepare_body"),
    ("requests", "src/requests/adapters.py", "HTTPAdapter.send"),
    ("requests", "src/requests/sessions.py", "merge_setting"),
    ("express", "lib/utils.js", "acceptParams"),
    ("express", "lib/view.js", "tryStat"),
]


# As a user runs it: Python keeps its compiled bytecode (an environment that turns that off
# would time the compilation of every module at every run).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.decode().strip()}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    tether = shutil.which("tether", path=str(Path(sys.executable).parent)) or "tether"
    ratios: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        attributes = Path(tmp) / "attributes"
        attributes.write_text(ATTRIBUTES)
        print(f"{'function':62} {'commits':>7} {'tether':>8} {'git -L':>8} {'ratio':>6}")
        for repo_name, path, symbol in CASES:
            repo = locate(repo_name)
            if repo is None:
                print(f"skip {repo_name}: not found (see bench/anchors/truth.py)")
                continue
            count = subprocess.run(
                ["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True
            ).stdout.strip()
            ours = [tether, "history", f"{path}::{symbol}", "--json"]
            short = symbol.rsplit(".", 1)[-1]
            theirs = [
                "git", "-c", f"core.attributesFile={attributes}", "log", "-L",
                f":{short}:{path}", "HEAD",
            ]  # fmt: skip
            _time(ours, repo), _time(theirs, repo)  # warm the page cache for both
            t_ours, t_theirs = [], []
            for _ in range(args.rounds):
                t_ours.append(_time(ours, repo))
                t_theirs.append(_time(theirs, repo))
            a, b = statistics.median(t_ours), statistics.median(t_theirs)
            ratios.append(a / b)
            label = f"{repo_name}:{path}::{symbol}"
            print(f"{label:62} {count:>7} {a * 1000:7.0f}ms {b * 1000:7.0f}ms {a / b:6.2f}")
    if ratios:
        print(f"median ratio tether/git-log-L: {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
