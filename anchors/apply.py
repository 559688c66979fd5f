"""How each op type changes the projection. One function per type; each returns the record ids it touched.

Apply functions are total: an op whose target is unknown (forgotten, quarantined, or not yet seen)
changes nothing, so replay never fails on a well-formed op.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import apsw

from anchors.operations import Op
from anchors.projection import COLUMNS, LIST_FIELDS

Applier = Callable[[apsw.Connection, Op], list[str]]

_INSERT = (
    f"INSERT OR IGNORE INTO records ({', '.join(COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in COLUMNS)})"
)


def _insert(db: apsw.Connection, record: dict[str, Any], op: Op, **overrides: Any) -> str:
    row = dict(record)
    row.setdefault("author", op.author)
    row["recorded_at"] = row.get("recorded_at") or op.time
    row["valid_from"] = row.get("valid_from") or op.time
    row["verified_at"] = row.get("verified_at") or op.time
    row.update(overrides)
    values = []
    for col in COLUMNS:
        value = row.get(col)
        if col in LIST_FIELDS:
            value = json.dumps(value or [], ensure_ascii=False)
        elif value is None:
            value = _DEFAULTS.get(col, "")
        values.append(value)
    if db.execute("SELECT 1 FROM forgotten WHERE id=?", (row["id"],)).get:
        return row["id"]
    db.execute(_INSERT, values)
    return str(row["id"])


_DEFAULTS: dict[str, Any] = {
    "kind": "fact",
    "store": "learning",
    "category": "general",
    "confidence": 0.8,
    "stability": "semi-stable",
    "layer": "L2",
    "status": "active",
    "importance": 1.0,
    "hits": 0,
    "review_cadence_days": 0,
    "source": "cli",
}


def _update(db: apsw.Connection, op: Op, assignments: str, params: tuple[Any, ...] = ()) -> list[str]:
    db.execute(
        f"UPDATE records SET {assignments}, updated_at=? WHERE id=?", (*params, op.time, op.target)
    )
    return [op.target]


def apply_add(db: apsw.Connection, op: Op) -> list[str]:
    return [_insert(db, op.payload["record"], op)]


def apply_update(db: apsw.Connection, op: Op) -> list[str]:
    fields = op.payload["fields"]
    cols = sorted(fields)
    values = tuple(
        json.dumps(fields[c], ensure_ascii=False) if c in LIST_FIELDS else fields[c] for c in cols
    )
    return _update(db, op, ", ".join(f"{c}=?" for c in cols), values)


def apply_reinforce(db: apsw.Connection, op: Op) -> list[str]:
    # Reinforcement is how a quarantined learning earns its way into context.
    return _update(
        db,
        op,
        "hits=hits+1, last_used_at=?, "
        "status=CASE WHEN status='quarantined' THEN 'active' ELSE status END",
        (op.time,),
    )


def apply_confirm(db: apsw.Connection, op: Op) -> list[str]:
    anchors = op.payload.get("anchors")
    return _update(
        db,
        op,
        "anchors=COALESCE(?, anchors), verified_at=?, status_reason='', "
        "status=CASE WHEN status IN ('stale','quarantined') THEN 'active' ELSE status END",
        (json.dumps(anchors, ensure_ascii=False) if anchors is not None else None, op.time),
    )


def apply_invalidate(db: apsw.Connection, op: Op) -> list[str]:
    return _update(
        db,
        op,
        "prior_status=status, status='invalidated', status_reason=?, retired_at=?, "
        "valid_to=CASE WHEN valid_to='' THEN ? ELSE valid_to END",
        (op.payload["reason"], op.time, op.time),
    )


def apply_supersede(db: apsw.Connection, op: Op) -> list[str]:
    record = op.payload["record"]
    exists = db.execute("SELECT 1 FROM records WHERE id=?", (op.target,)).get
    if not exists:
        return []
    new_id = _insert(db, record, op, supersedes=op.target)
    _update(
        db,
        op,
        "prior_status=status, status='superseded', superseded_by=?, retired_at=?, "
        "valid_to=CASE WHEN valid_to='' THEN ? ELSE valid_to END",
        (new_id, op.time, op.time),
    )
    return [op.target, new_id]


def apply_reanchor(db: apsw.Connection, op: Op) -> list[str]:
    return _update(db, op, "anchors=?", (json.dumps(op.payload["anchors"], ensure_ascii=False),))


def apply_mark_stale(db: apsw.Connection, op: Op) -> list[str]:
    return _update(
        db,
        op,
        "status=CASE WHEN status='active' THEN 'stale' ELSE status END, "
        "status_reason=CASE WHEN status IN ('active','stale') THEN ? ELSE status_reason END",
        (op.payload["reason"],),
    )


def apply_promote(db: apsw.Connection, op: Op) -> list[str]:
    return _update(db, op, "layer='L1'")


def apply_archive(db: apsw.Connection, op: Op) -> list[str]:
    return _update(
        db,
        op,
        "prior_status=CASE WHEN status='archived' THEN prior_status ELSE status END, "
        "status='archived', status_reason=?, retired_at=?",
        (op.payload["reason"], op.time),
    )


def apply_restore(db: apsw.Connection, op: Op) -> list[str]:
    return _update(
        db,
        op,
        "status=CASE WHEN status='archived' AND prior_status NOT IN ('', 'archived') "
        "THEN prior_status ELSE 'active' END, prior_status='', status_reason='', retired_at='', "
        "valid_to=CASE WHEN status IN ('invalidated','superseded') THEN '' ELSE valid_to END",
    )


def apply_forget(db: apsw.Connection, op: Op) -> list[str]:
    row = db.execute("SELECT rowid FROM records WHERE id=?", (op.target,)).get
    if row is not None:
        db.execute("DELETE FROM records_fts WHERE rowid=?", (row,))
    db.execute("DELETE FROM records WHERE id=?", (op.target,))
    db.execute("DELETE FROM anchors WHERE record_id=?", (op.target,))
    db.execute("INSERT OR IGNORE INTO forgotten VALUES (?, ?)", (op.target, op.time))
    return []


def apply_store_write(db: apsw.Connection, op: Op) -> list[str]:
    db.execute(
        "INSERT OR IGNORE INTO store_writes VALUES (?,?,?,?,?,?)",
        (
            op.id,
            op.payload["store"],
            str(op.payload.get("name", "")),
            op.payload["sha256"],
            op.author,
            op.time,
        ),
    )
    return []


APPLIERS: dict[str, Applier] = {
    "add": apply_add,
    "update": apply_update,
    "reinforce": apply_reinforce,
    "confirm": apply_confirm,
    "invalidate": apply_invalidate,
    "supersede": apply_supersede,
    "reanchor": apply_reanchor,
    "mark-stale": apply_mark_stale,
    "promote": apply_promote,
    "archive": apply_archive,
    "restore": apply_restore,
    "forget": apply_forget,
    "store-write": apply_store_write,
}
