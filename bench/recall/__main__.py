"""Recall and context benchmark: quality (recall@5, MRR) and latency. `python -m bench.recall`.

1. Quality: a fresh repository gets the 1,100-learning corpus (bench/recall/dataset.py) through the
   normal write path; each question of the four sets (100 tuning, 50 held-out, 100 realistic,
   100 in the second held-out set) is asked in three modes (BM25 alone, vectors alone, hybrid).
   recall@5: the expected learning is in the top 5; MRR: mean of 1/rank within the top 10. The
   second held-out set is also reported per question style (heldout_realistic.py).
2. Latency at 1,100 and at 100,000 learnings: in-process `recall()` with the model loaded (what
   the MCP server and a warm process pay), p50 and p95 of wall-clock and CPU time over three
   passes through all 350 questions. The 98,900 extra
   learnings are more generated distractors, written as ops in batches of 5,000 through the same
   validation and scanner; their vectors are real MiniLM vectors of other distractors with small
   noise added (embedding 99k texts on this shared 2-core machine takes ~15 minutes; pass
   --real-vectors to do it anyway). Latency depends on the number and size of rows, not on
   which words they hold.
3. A control: the 100 target learnings alone (no generated distractors), asked the same questions.
4. The exact-scan/binary-index crossover of the vector cache, and the context pack build time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.recall.dataset import QUESTION_SETS, Learning, corpus, distractors, queries


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "bench@example.com")
    git(path, "config", "user.name", "Bench")
    (path / "README.md").write_text("# bench\n")
    (path / ".tether").mkdir()
    # The benchmark measures retrieval, not eviction: lift the per-category cap.
    (path / ".tether" / "config.toml").write_text("[learnings]\ncap_per_category = 1000000\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "init")
    return path


def load(memory: Any, items: list[Learning]) -> dict[str, str]:
    """Write learnings through Memory.add (near-duplicate refusals counted). key -> record id."""
    from anchors.lifecycle import NearDuplicate

    ids: dict[str, str] = {}
    refused = 0
    for item in items:
        try:
            ids[item.key] = memory.add(item.text, category=item.category).id
        except NearDuplicate:
            refused += 1
    print(f"  loaded {len(ids)} learnings ({refused} refused as near-duplicates)")
    return ids


def bulk_load(memory: Any, items: list[Learning], batch: int = 5000) -> None:
    """Append add ops in large batches through the write path's validation and scanner."""
    from anchors.memory import _record_payload

    for start in range(0, len(items), batch):
        chunk = items[start : start + batch]
        records = [memory.new_learning(i.text, category=i.category) for i in chunk]
        memory._commit(
            lambda c, p, n, records=records: [
                memory._op("add", r.id, {"record": _record_payload(r)}) for r in records
            ]
        )


def evaluate(memory: Any, ids: dict[str, str], which: str, mode: str) -> dict[str, Any]:
    """recall@5 and MRR (top 10) of one question set in one mode; `ranks` holds each question's
    rank of its expected learning (0: not in the top 10), in the set's order."""
    from anchors.recall import recall

    ranks = []
    for q in queries(which):
        result = recall(
            memory, q.text, k=10, use_vectors=mode != "bm25", use_lexical=mode != "vector"
        )
        ranked = [h.record.id for h in result.hits]
        want = ids.get(q.answer)
        ranks.append(ranked.index(want) + 1 if want in ranked else 0)
    return {**scores(ranks), "ranks": ranks}


def scores(ranks: list[int]) -> dict[str, float]:
    """recall@5 and MRR from ranks (0: not in the top 10)."""
    hits5 = sum(1 for r in ranks if 0 < r <= 5)
    reciprocal = sum(1.0 / r for r in ranks if r > 0)
    return {"recall@5": hits5 / len(ranks), "mrr": reciprocal / len(ranks), "n": len(ranks)}


def by_style(ranks: list[int]) -> dict[str, dict[str, float]]:
    """The second held-out set's figures per question style (heldout_realistic.style)."""
    from bench.recall.heldout_realistic import STYLES, style

    return {
        name: scores([r for i, r in enumerate(ranks) if style(i) == name])
        for name in dict.fromkeys(STYLES)
    }


def report(prefix: str, name: str, figures: dict[str, dict[str, Any]]) -> None:
    """Print one set's figures per mode, and per style for the set that has styles."""
    for mode, r in figures.items():
        print(f"  {prefix}{name:9s} {mode:6s} recall@5 {r['recall@5']:.2f}  MRR {r['mrr']:.3f}")
        if name == "heldout_realistic":
            r["by_style"] = by_style(r["ranks"])
            for label, f in r["by_style"].items():
                print(
                    f"  {prefix}{'':9s} {'':6s}   {label:12s} ({f['n']}) recall@5"
                    f" {f['recall@5']:.2f}  MRR {f['mrr']:.3f}"
                )


def latencies(memory: Any, mode: str = "hybrid", rounds: int = 3) -> dict[str, float]:
    """In-process `recall()` over every question, after a warm-up call (model loaded, vector
    cache synced and its matrices in memory): wall-clock and CPU time (the calling thread's; the
    model runs on it). `rounds` passes over the questions; p50/p95 over all calls. The CPU time
    is what contention from other processes on a shared machine does not inflate."""
    from anchors.recall import recall

    asked = [q for which in QUESTION_SETS for q in queries(which)]
    recall(memory, "warm up", k=5)  # model load and cache sync are not per-query costs
    wall, cpu = [], []
    load = os.getloadavg()[0]
    for _ in range(rounds):
        for q in asked:
            start, start_cpu = time.perf_counter(), time.thread_time()
            recall(memory, q.text, k=5, use_vectors=mode != "bm25")
            cpu.append((time.thread_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
    wall.sort()
    cpu.sort()
    return {
        "p50_ms": statistics.median(wall),
        "p95_ms": wall[int(len(wall) * 0.95) - 1],
        "cpu_p50_ms": statistics.median(cpu),
        "cpu_p95_ms": cpu[int(len(cpu) * 0.95) - 1],
        "n": len(wall),
        "load_average": round(load, 2),
    }


def context_timing(memory: Any, runs: int = 20) -> dict[str, float]:
    from anchors.context import build_pack

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        pack = build_pack(memory, 2000, ["src/payments/client.py"])
        times.append((time.perf_counter() - start) * 1000)
    return {"median_ms": statistics.median(times), "max_ms": max(times), "chars": len(pack)}


def crossover(sizes: list[int]) -> list[dict[str, float]]:
    """Time the exact scan and the binary index of VectorCache.nearest at several sizes."""
    import numpy as np

    from anchors import embeddings
    from anchors.embeddings import DIMENSIONS, VectorCache

    rng = np.random.default_rng(0)
    out = []
    saved = embeddings.SCAN_BELOW
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            cache = VectorCache(Path(tmp) / f"v{size}.sqlite")
            vectors = rng.standard_normal((size, DIMENSIONS)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            cache.put([(f"r{i}", "h") for i in range(size)], vectors)
            query = vectors[size // 2]
            row: dict[str, float] = {"size": size}
            for name, threshold in (("scan_ms", size + 1), ("index_ms", 0)):
                embeddings.SCAN_BELOW = threshold
                cache.nearest(query, 50)
                times = []
                for _ in range(15):
                    start = time.perf_counter()
                    cache.nearest(query, 50)
                    times.append((time.perf_counter() - start) * 1000)
                row[name] = statistics.median(times)
            cache.close()
            out.append(row)
    embeddings.SCAN_BELOW = saved
    return out


def fill_vectors_by_copy(memory: Any, donors: int = 1100) -> None:
    """Give every learning without a vector a noisy copy of a real vector (see module docstring)."""
    import numpy as np

    from anchors.embeddings import text_hash
    from anchors.recall import open_vectors, projection_version, retrieval_text

    cache = open_vectors(memory)
    have = cache.hashes()
    real = np.frombuffer(
        b"".join(
            r[0] for r in cache.db.execute("SELECT embedding FROM vectors LIMIT ?", (donors,))
        ),
        dtype=np.float32,
    ).reshape(-1, 384)
    rng = np.random.default_rng(1)
    missing = [
        r
        for r in memory.projection.query(
            "store='learning' AND status IN ('active','stale','quarantined')"
        )
        if r.id not in have
    ]
    for start in range(0, len(missing), 5000):
        chunk = missing[start : start + 5000]
        base = real[rng.integers(0, len(real), len(chunk))]
        noisy = base + rng.normal(0, 0.02, base.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        cache.put([(r.id, text_hash(retrieval_text(r))) for r in chunk], noisy)
    with cache.db:
        cache.db.execute(
            "INSERT OR REPLACE INTO meta VALUES('synced', ?)", (projection_version(memory),)
        )
    cache.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall")
    parser.add_argument("--size", type=int, default=1100, help="corpus size for quality")
    parser.add_argument(
        "--scale", type=int, default=100_000, help="corpus size for latency (0: skip)"
    )
    parser.add_argument(
        "--real-vectors", action="store_true", help="embed every scale learning for real"
    )
    parser.add_argument("--out", default="bench/results/recall.json")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from anchors.embeddings import load_embedder
    from anchors.memory import Memory
    from anchors.recall import open_vectors, sync_vectors

    results: dict[str, Any] = {"size": args.size}
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo")
        memory = Memory.open(repo)
        print(f"quality corpus: {args.size} learnings")
        start = time.perf_counter()
        ids = load(memory, corpus(args.size))
        results["load_s"] = time.perf_counter() - start
        embedder = load_embedder()
        cache = open_vectors(memory)
        start = time.perf_counter()
        sync_vectors(memory, cache, embedder)
        cache.close()
        results["embed_s"] = time.perf_counter() - start
        print(f"  embedded in {results['embed_s']:.1f} s")
        for name in QUESTION_SETS:
            results[name] = {
                m: evaluate(memory, ids, name, m) for m in ("bm25", "vector", "hybrid")
            }
            report("", name, results[name])
        # Control: the 100 hand-written targets alone, no generated distractors. The generated
        # ones come from ~40 templates, so they crowd together in embedding space in a way a
        # real memory's notes may not; a method whose gain vanishes here owes it to that.
        control = Memory.open(make_repo(Path(tmp) / "control"))
        control_ids = load(control, [i for i in corpus(args.size) if i.key.startswith("t")])
        results["control"] = {}
        for name in QUESTION_SETS:
            results["control"][name] = {
                m: evaluate(control, control_ids, name, m) for m in ("bm25", "vector", "hybrid")
            }
            report("control ", name, results["control"][name])
        results["latency_small"] = {m: latencies(memory, m) for m in ("bm25", "hybrid")}
        results["context_small"] = context_timing(memory)
        print(f"  latency at {args.size}: {results['latency_small']}")
        print(f"  context pack at {args.size}: {results['context_small']}")

        if args.scale > args.size:
            extra = [
                Learning(f"x{i:06d}", d.category, d.text)
                for i, d in enumerate(distractors(args.scale, seed=99, distinct=False))
            ][: args.scale - args.size]
            print(f"scale corpus: +{len(extra)} learnings")
            start = time.perf_counter()
            bulk_load(memory, extra)
            results["scale_load_s"] = time.perf_counter() - start
            start = time.perf_counter()
            if args.real_vectors:
                cache = open_vectors(memory)
                sync_vectors(memory, cache, embedder)
                cache.close()
            else:
                fill_vectors_by_copy(memory)
            results["scale_vectors_s"] = time.perf_counter() - start
            total = memory.projection.db.execute("SELECT count(*) FROM records").fetchone()[0]
            results["scale"] = {"learnings": total}
            results["latency_scale"] = {m: latencies(memory, m) for m in ("bm25", "hybrid")}
            results["scale_quality"] = {
                f"{name}_hybrid": evaluate(memory, ids, name, "hybrid") for name in QUESTION_SETS
            }
            print(f"  latency at {total}: {results['latency_scale']}")
            print(f"  quality at {total}: {results['scale_quality']}")
    results["crossover"] = crossover([1000, 5000, 10000, 20000, 50000, 100000])
    for row in results["crossover"]:
        print(
            f"  nearest() at {row['size']:>6}: scan {row['scan_ms']:.2f} ms, index {row['index_ms']:.2f} ms"
        )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
