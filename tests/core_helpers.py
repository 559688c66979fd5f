"""Helpers for the core tests: building ops by hand and dumping a projection comparably."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchors.operations import Op
from anchors.projection import COLUMNS, Projection


def make_op(
    op_type: str, target: str, payload: dict[str, Any], *, part: str = "ada@example.com.aaaaaa",
    clock: int = 1, prev: str = "", time: str = "2026-01-01T00:00:00.000Z",
) -> Op:  # fmt: skip
    return Op(
        type=op_type, target=target, author=part.rsplit(".", 1)[0], part=part, clock=clock,
        time=time, prev=prev, payload=payload,
    ).seal()  # fmt: skip


def record(
    record_id: str, text: str = "retries must stay idempotent", **extra: Any
) -> dict[str, Any]:
    return {"id": record_id, "text": text, "category": "pattern", **extra}


def dump(projection: Projection) -> list[tuple[Any, ...]]:
    """Every record row plus derived rows, order-independent."""
    db = projection.db
    rows = sorted(tuple(r) for r in db.execute(f"SELECT {', '.join(COLUMNS)} FROM records"))
    anchors = sorted(tuple(r) for r in db.execute("SELECT * FROM anchors"))
    fts = sorted(tuple(r) for r in db.execute("SELECT text, description, tags FROM records_fts"))
    return [*rows, *anchors, *fts]


def write_partition(ops_dir: Path, ops: list[Op]) -> None:
    ops_dir.mkdir(parents=True, exist_ok=True)
    by_part: dict[str, list[Op]] = {}
    for op in ops:
        by_part.setdefault(op.part, []).append(op)
    for part, items in by_part.items():
        with open(ops_dir / f"{part}.jsonl", "ab") as fh:
            for op in items:
                fh.write(op.to_line())
