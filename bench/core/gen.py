"""Synthetic op-logs for the core benchmarks: many authors, a realistic mix of op types."""

from __future__ import annotations

import random
from pathlib import Path

from anchors.operations import Op

WORDS = (
    "retry idempotent gateway cache invalidation timeout payment schema migration lock queue "
    "worker token rotate secret env config parser router handler session cookie auth billing "
    "index shard replica backoff jitter circuit breaker flag rollout metrics trace span log"
).split()


def write_log(ops_dir: Path, authors: int, ops_per_author: int, seed: int = 1) -> int:
    """Write `authors` partitions of `ops_per_author` ops each; return the total op count.

    Ops interleave across authors with causal Lamport clocks (as if they synced now and then);
    40% add, the rest reinforce/update/confirm/mark-stale/invalidate/archive/promote on earlier adds.
    """
    rng = random.Random(seed)
    ops_dir.mkdir(parents=True, exist_ok=True)
    parts = [f"dev{i:03d}@example.com.{i:06x}" for i in range(authors)]
    files = {p: open(ops_dir / f"{p}.jsonl", "wb") for p in parts}  # noqa: SIM115
    prev = dict.fromkeys(parts, "")
    left = dict.fromkeys(parts, ops_per_author)
    ids: list[str] = []
    clock = 0
    total = authors * ops_per_author
    active = list(parts)
    try:
        for n in range(total):
            part = rng.choice(active)
            clock += 1
            if not ids or rng.random() < 0.4:
                rid = f"01J{n:023d}"
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
                payload = {"record": {"id": rid, "text": text, "category": rng.choice(
                    ["pattern", "security", "architecture", "preference", "error", "general"]),
                    "tags": [rng.choice(WORDS)],
                    "anchors": [{"path": f"src/mod{rng.randint(0, 500)}.py",
                                 "symbol": f"f{rng.randint(0, 99)}", "span": [1, 20]}]}}  # fmt: skip
                op = Op("add", rid, part.rsplit(".", 1)[0], part, clock, "2026-01-01T00:00:00.000Z",
                        prev[part], payload)  # fmt: skip
                ids.append(rid)
            else:
                rid = rng.choice(ids)
                kind = rng.choices(
                    [
                        "reinforce",
                        "update",
                        "confirm",
                        "mark-stale",
                        "invalidate",
                        "archive",
                        "promote",
                    ],
                    [30, 15, 20, 10, 10, 10, 5],
                )[0]
                payload = {
                    "reinforce": {}, "promote": {}, "confirm": {},
                    "update": {"fields": {"text": " ".join(rng.choice(WORDS) for _ in range(12))}},
                    "mark-stale": {"reason": "body changed"}, "invalidate": {"reason": "obsolete"},
                    "archive": {"reason": "cap"},
                }[kind]  # fmt: skip
                op = Op(kind, rid, part.rsplit(".", 1)[0], part, clock, "2026-01-01T00:00:00.000Z",
                        prev[part], payload)  # fmt: skip
            op.seal()
            files[part].write(op.to_line())
            prev[part] = op.id
            left[part] -= 1
            if left[part] == 0:
                active.remove(part)
    finally:
        for fh in files.values():
            fh.close()
    return total
