"""Replay one log with two (or more) versions of `anchors`, alternating, and print medians.

`python -m bench.core.ab ROUNDS TREE [TREE ...] [--log DIR] [--keep PREFIX]`: each TREE is a
directory holding an `anchors/` package (e.g. `git archive HEAD anchors | tar -x -C /tmp/old`);
each round rebuilds the projection of the log once with every tree, in turn, in a fresh process
with that tree first on `PYTHONPATH` (the reading process inherits it). Alternating is what makes
the figures comparable on a machine that others use too. The log is the replay benchmark's
(100 authors x 10,000 ops), written under `--log` if it is not there yet. With `--keep`, each
tree's last projection is copied to PREFIX_<tree name>.sqlite, for `python -m bench.core.compare`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from bench.core.__main__ import REPLAY_CHILD
from bench.core.gen import write_log


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.core.ab")
    parser.add_argument("rounds", type=int)
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--log", type=Path, default=Path("/tmp/tether-replay-log"))
    parser.add_argument("--keep", help="copy each tree's last projection to KEEP_<tree>.sqlite")
    args = parser.parse_args(argv)
    tether_dir = args.log / "tether"
    if not (tether_dir / "ops").is_dir():
        write_log(tether_dir / "ops", 100, 10_000)
    ops = 0
    for part in (tether_dir / "ops").iterdir():
        with open(part, "rb") as fh:
            ops += sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    results: dict[Path, list[tuple[float, float, float]]] = {t: [] for t in args.trees}
    for _ in range(args.rounds):
        for tree in args.trees:
            for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
                (tether_dir / name).unlink(missing_ok=True)
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env["PYTHONPATH"] = str(tree.resolve())
            # Run from the tree: `python -c` puts the working directory first on the path.
            out = subprocess.run([sys.executable, "-c", REPLAY_CHILD, str(tether_dir)], env=env,
                                 cwd=tree, check=True, capture_output=True,
                                 text=True).stdout.split()  # fmt: skip
            wall, rss, cpu = float(out[0]), int(out[1]) / 1024, float(out[3])
            results[tree].append((wall, cpu, rss))
            print(f"{tree} wall {wall:.2f} s, cpu {cpu:.2f} s, peak rss {rss:.0f} MB", flush=True)
            if args.keep:
                shutil.copy(tether_dir / "index.sqlite", f"{args.keep}_{tree.name}.sqlite")
    for tree, rows in results.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        print(f"{tree}: median wall {wall:.2f} s ({ops / wall:,.0f} ops/s), "
              f"median cpu {cpu:.2f} s, peak rss {max(r[2] for r in rows):.0f} MB")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
