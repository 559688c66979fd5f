"""Core benchmarks: replay, CLI latency, and sync cost. `python -m bench.core [--quick]`.

Prints a markdown table of medians; figures go into docs/benchmarks.md by hand, with the command.
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

from bench.core.gen import write_log

BIN = Path(sys.executable).parent
TETHER = str(BIN / "tether")
# Byte-code caching on, as on a user's machine (some shells here turn it off, which doubles start-up).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["GIT_CONFIG_NOSYSTEM"] = "1"

REPLAY_CHILD = """
import resource, sys, time
from pathlib import Path
from anchors.oplog import OpLog
from anchors.projection import Projection
d = Path(sys.argv[1])
t = time.perf_counter()
p = Projection(d, OpLog(d, "bench@example.com", "ffffff"))
elapsed = time.perf_counter() - t
rows = p.db.execute("SELECT count(*) FROM records").get
ru = resource.getrusage(resource.RUSAGE_SELF)
# The replay may run a second, reading process: count its CPU, and add its peak to this one's (an
# upper bound of the two together).
rc = resource.getrusage(resource.RUSAGE_CHILDREN)
print(elapsed, ru.ru_maxrss + rc.ru_maxrss, rows, ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime)
"""


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def bench_replay(authors: int, per_author: int, runs: int) -> dict[str, float]:
    base = Path(tempfile.mkdtemp(prefix="tether-bench-replay-"))
    tether_dir = base / "tether"
    total = write_log(tether_dir / "ops", authors, per_author)
    times: list[float] = []
    rss: list[float] = []
    cpu: list[float] = []  # CPU time of the replaying processes: less sensitive to other load
    for _ in range(runs):
        for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
            (tether_dir / name).unlink(missing_ok=True)
        out = subprocess.run([sys.executable, "-c", REPLAY_CHILD, str(tether_dir)], check=True,
                             capture_output=True, text=True).stdout.split()  # fmt: skip
        times.append(float(out[0]))
        rss.append(int(out[1]) / 1024)
        cpu.append(float(out[3]))
    size = sum(p.stat().st_size for p in (tether_dir / "ops").iterdir())
    shutil.rmtree(base)
    med = statistics.median(times)
    return {"ops": total, "authors": authors, "seconds": med, "ops_per_s": total / med,
            "cpu_seconds": statistics.median(cpu), "ops_per_cpu_s": total / statistics.median(cpu),
            "peak_rss_mb": max(rss), "log_mb": size / 1e6}  # fmt: skip


def _repo_with_learnings(n: int) -> Path:
    base = Path(tempfile.mkdtemp(prefix="tether-bench-cli-"))
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "Bench")
    (repo / "README.md").write_text("bench\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "init")
    (repo / ".tether").mkdir()
    (repo / ".tether" / "config.toml").write_text("[learnings]\ncap_per_category = 1000000\n")
    # n visible learnings from 10 other authors: 40% of ops are adds and about a fifth of those
    # end up invalidated or archived, so write about 3.2 n ops.
    write_log(repo / ".git" / "tether" / "ops", 10, int(n * 3.2 / 10))
    subprocess.run([TETHER, "list", "--json"], cwd=repo, env=ENV, check=True, capture_output=True)
    return repo


def _time(cmd: list[str], cwd: Path, runs: int, texts: list[str] | None = None) -> list[float]:
    out = []
    for i in range(runs):
        argv = [a.replace("{text}", texts[i]) if texts else a for a in cmd]
        t = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=ENV, check=True, capture_output=True)
        out.append(time.perf_counter() - t)
    return out


def bench_cli(n: int, runs: int) -> dict[str, float]:
    repo = _repo_with_learnings(n)
    import random

    rng = random.Random(3)
    vocab = ("retry cache schema token queue parser router billing shard lock worker session "
             "cookie flag rollout metrics trace index replica backoff jitter timeout").split()  # fmt: skip
    # Distinct texts: a near-duplicate would be refused (and measure the refusal instead).
    texts = [" ".join(rng.sample(vocab, 12)) + f" #{i}" for i in range(runs)]
    add = _time([TETHER, "add", "{text}", "-c", "general"], repo, runs, texts)
    listing = _time([TETHER, "list", "--json"], repo, max(5, runs // 3))
    python = _time([sys.executable, "-c", "pass"], repo, runs)
    count = len(json.loads(subprocess.run([TETHER, "list", "--json"], cwd=repo, env=ENV,
                                          capture_output=True, text=True).stdout))  # fmt: skip
    shutil.rmtree(repo.parent)
    return {"learnings": count, "add_median_ms": statistics.median(add) * 1000,
            "list_json_median_ms": statistics.median(listing) * 1000,
            "python_startup_ms": statistics.median(python) * 1000}  # fmt: skip


def bench_sync(authors: int, per_author: int, new_ops: int) -> dict[str, float]:
    """A remote holding authors x per_author ops; a fresh clone syncs (cost ~ total), then one
    teammate adds `new_ops` and both sync again (cost ~ new ops)."""
    base = Path(tempfile.mkdtemp(prefix="tether-bench-sync-"))
    remote = base / "remote.git"
    git(base, "init", "-q", "--bare", str(remote))
    clones = []
    for name in ("a", "b"):
        path = base / name
        git(base, "clone", "-q", str(remote), str(path))
        git(path, "config", "user.email", f"{name}@example.com")
        git(path, "config", "user.name", name)
        clones.append(path)
    a, b = clones
    write_log(a / ".git" / "tether" / "ops", authors, per_author)
    # The synthetic log ignores caps; without this the first add would archive thousands.
    (a / ".tether").mkdir()
    (a / ".tether" / "config.toml").write_text("[learnings]\ncap_per_category = 1000000\n")
    t = time.perf_counter()
    subprocess.run([TETHER, "sync"], cwd=a, env=ENV, check=True, capture_output=True)
    first_push = time.perf_counter() - t
    t = time.perf_counter()
    subprocess.run([TETHER, "sync"], cwd=b, env=ENV, check=True, capture_output=True)
    first_pull = time.perf_counter() - t
    for i in range(new_ops):
        proc = subprocess.run([TETHER, "add", f"fresh learning {i} about sync cost {i * 7919}"],
                              cwd=a, env=ENV, capture_output=True, text=True)  # fmt: skip
        if proc.returncode != 0:
            raise SystemExit(f"tether add failed: {proc.stderr}")
    t = time.perf_counter()
    subprocess.run([TETHER, "sync"], cwd=a, env=ENV, check=True, capture_output=True)
    again_push = time.perf_counter() - t
    t = time.perf_counter()
    subprocess.run([TETHER, "sync"], cwd=b, env=ENV, check=True, capture_output=True)
    again_pull = time.perf_counter() - t
    shutil.rmtree(base)
    return {"total_ops": authors * per_author, "authors": authors, "first_push_s": first_push,
            "first_pull_s": first_pull, "new_ops": new_ops, "incremental_push_s": again_push,
            "incremental_pull_s": again_pull}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.core")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", choices=["replay", "cli", "sync"])
    args = parser.parse_args()
    results: dict[str, object] = {}
    if args.only in (None, "replay"):
        size = (20, 500) if args.quick else (100, 10_000)
        results["replay"] = bench_replay(*size, runs=1 if args.quick else 3)
        print("replay", json.dumps(results["replay"]), flush=True)
    if args.only in (None, "cli"):
        results["cli"] = bench_cli(1_000 if args.quick else 10_000, runs=7 if args.quick else 21)
        print("cli", json.dumps(results["cli"]), flush=True)
    if args.only in (None, "sync"):
        rows = []
        for authors in (10, 100) if args.quick else (10, 100):
            rows.append(bench_sync(authors, 100 if args.quick else 1_000, new_ops=10))
            print("sync", json.dumps(rows[-1]), flush=True)
        results["sync"] = rows
    out = Path("bench/results")
    out.mkdir(parents=True, exist_ok=True)
    (out / "core.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
