"""`tether gc`: remove the words of forgotten learnings from the op-log and from the shared ref.

`forget` hides a learning at once; its earlier ops keep its words, locally and on
`refs/tether/log`. gc rewrites those ops in place (see `anchors.redact`), replaces the ref with a
single new commit that holds only the redacted partitions (so the old blobs are no longer reachable
from it), drops frozen context packs that quoted a forgotten learning, and rebuilds the projection.
The next `tether sync` pushes the rewritten ref with a lease, and every clone that syncs after that
takes the redactions over and drops its own copy of the old history.

What it cannot do is what git cannot: a clone that fetched the words before keeps them until it
syncs, and git's own objects stay in each object store until git prunes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from anchors.memory import Memory
from anchors.redact import redact_line


@dataclass
class GcReport:
    forgotten: int = 0
    redacted: int = 0
    partitions: list[str] = field(default_factory=list)
    sessions: int = 0
    commit: str = ""
    dry_run: bool = False

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def forgotten_ids(memory: Memory) -> set[str]:
    """Records forgotten by an applied forget op (quarantined ops never count)."""
    rows = memory.projection.db.execute("SELECT id FROM forgotten").fetchall()
    return {str(r[0]) for r in rows}


def redact_bytes(data: bytes, forgotten: set[str]) -> tuple[bytes, int]:
    """A partition's complete lines with the forgotten learnings' ops redacted, and how many."""
    lines = data.split(b"\n")
    count = 0
    for i, line in enumerate(lines):
        if line:
            new = redact_line(line, forgotten)
            if new is not None:
                lines[i] = new
                count += 1
    return b"\n".join(lines), count


def redact_log(memory: Memory, forgotten: set[str], dry_run: bool = False) -> tuple[int, list[str]]:
    """Redact the forgotten learnings' ops in every local partition (the caller holds the lock);
    return how many ops and which partitions changed."""
    oplog = memory.oplog
    total, parts = 0, []
    for part in oplog.parts():
        oplog.repair_torn(part)
        new, count = redact_bytes(oplog.path_of(part).read_bytes(), forgotten)
        if count:
            total += count
            parts.append(part)
            if not dry_run:
                oplog.replace(part, new)
    return total, parts


def gc(memory: Memory, dry_run: bool = False) -> GcReport:
    """Redact what forgotten learnings said, everywhere this clone holds it."""
    from anchors.context import SESSIONS_DIR
    from anchors.sync import GC_STATE, rewrite_ref

    memory.refresh()
    forgotten = forgotten_ids(memory)
    report = GcReport(forgotten=len(forgotten), dry_run=dry_run)
    if not forgotten:
        return report
    with memory.oplog.lock():
        report.redacted, report.partitions = redact_log(memory, forgotten, dry_run=dry_run)
        marks = [f"[{rid[-8:]}]" for rid in forgotten]
        sessions = memory.tether_dir / SESSIONS_DIR
        for pack in sorted(sessions.glob("*.md")) if sessions.is_dir() else []:
            text = pack.read_text(encoding="utf-8", errors="replace")
            if any(mark in text for mark in marks):
                report.sessions += 1
                if not dry_run:
                    pack.unlink()
    if dry_run or not report.redacted:
        return report
    _discard_vectors(memory, forgotten)
    memory.projection.reset("gc rewrote partitions")
    report.commit = rewrite_ref(memory)
    if report.commit:
        (memory.tether_dir / GC_STATE).write_text(json.dumps({"commit": report.commit}))
    return report


def _discard_vectors(memory: Memory, forgotten: set[str]) -> None:
    """Embeddings are derived from the words too: drop the forgotten learnings' vectors."""
    from anchors.embeddings import VECTORS_FILE

    if not (memory.tether_dir / VECTORS_FILE).exists():
        return
    try:
        from anchors.recall import open_vectors

        cache = open_vectors(memory)
    except ImportError:  # the embeddings extra was removed: the cache cannot be read, so drop it
        (memory.tether_dir / VECTORS_FILE).unlink()
        return
    try:
        cache.discard(sorted(forgotten))
    finally:
        cache.close()
