"""How each op type changes the projection. One function per type.

Each function returns the SQL statements the op amounts to, plus the record ids it touches; it does not
run them. The projection runs them in batches (`apply_ops`): statements for different records commute,
so a batch is cut into rounds in which each record has at most one op, and each round runs as one
`executemany` per statement shape. Ops on an unknown target (forgotten, quarantined) change nothing, so
replay never fails on a well-formed op.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

import apsw
import orjson

from anchors.operations import Op
from anchors.projection_schema import COLUMNS, LIST_FIELDS

Statement = tuple[str, tuple[Any, ...]]
Applier = Callable[[Op], tuple[list[Statement], tuple[str, ...]]]

_INSERT = (
    f"INSERT OR IGNORE INTO records ({', '.join(COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in COLUMNS)})"
)

_DEFAULTS: dict[str, Any] = {
    **dict.fromkeys(COLUMNS, ""),
    "tags": [],
    "anchors": [],
    "evidence": [],
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


# Per column its default, in column order. Built once: replay calls `_insert` for every add, and
# a per-call dict merge costs more than the lookups.
_DEFAULT_ROW = tuple(_DEFAULTS[col] for col in COLUMNS)
_AUTHOR = COLUMNS.index("author")
_TIMED = tuple(COLUMNS.index(c) for c in ("recorded_at", "valid_from", "verified_at"))
_LISTS = tuple(COLUMNS.index(c) for c in LIST_FIELDS)
_INDEX = {col: i for i, col in enumerate(COLUMNS)}
_dumps = orjson.dumps
# The statement of each set of assignments an update makes, built once (replay makes hundreds of
# thousands of updates of a dozen shapes).
_UPDATE_SQL: dict[str, str] = {}
_ASSIGNMENTS: dict[tuple[str, ...], str] = {}


def _insert(record: dict[str, Any], op: Op, **overrides: Any) -> Statement:
    row = list(map(record.get, COLUMNS, _DEFAULT_ROW))
    if "author" not in record:
        row[_AUTHOR] = op.author
    for key, value in overrides.items():
        row[_INDEX[key]] = value
    for i in _TIMED:
        if not row[i]:
            row[i] = op.time
    for i in _LISTS:
        value = row[i]
        row[i] = _dumps(value).decode() if value else "[]"  # what an empty or missing list dumps to
    return _INSERT, tuple(row)


def _update(op: Op, assignments: str, *params: Any) -> Statement:
    sql = _UPDATE_SQL.get(assignments)
    if sql is None:
        sql = _UPDATE_SQL[assignments] = (
            f"UPDATE records SET {assignments}, updated_at=? WHERE id=?"
        )
    return sql, (*params, op.time, op.target)


def apply_add(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    return [_insert(op.payload["record"], op)], (op.target,)


def apply_update(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    fields = op.payload["fields"]
    cols = tuple(sorted(fields))
    values = [orjson.dumps(fields[c]).decode() if c in LIST_FIELDS else fields[c] for c in cols]
    assignments = _ASSIGNMENTS.get(cols)
    if assignments is None:
        assignments = _ASSIGNMENTS[cols] = ", ".join(f"{c}=?" for c in cols)
    return [_update(op, assignments, *values)], (op.target,)


def apply_reinforce(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    # Reinforcement is how a quarantined learning earns its way into context.
    sql = (
        "hits=hits+1, last_used_at=?, "
        "status=CASE WHEN status='quarantined' THEN 'active' ELSE status END"
    )
    return [_update(op, sql, op.time)], (op.target,)


def apply_confirm(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    anchors = op.payload.get("anchors")
    encoded = orjson.dumps(anchors).decode() if anchors is not None else None
    sql = (
        "anchors=COALESCE(?, anchors), verified_at=?, status_reason='', "
        "status=CASE WHEN status IN ('stale','quarantined') THEN 'active' ELSE status END"
    )
    return [_update(op, sql, encoded, op.time)], (op.target,)


def apply_invalidate(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    sql = (
        "prior_status=status, status='invalidated', status_reason=?, retired_at=?, "
        "valid_to=CASE WHEN valid_to='' THEN ? ELSE valid_to END"
    )
    return [_update(op, sql, op.payload["reason"], op.time, op.time)], (op.target,)


def apply_supersede(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    record = op.payload["record"]
    new_id = str(record["id"])
    sql = (
        "prior_status=status, status='superseded', superseded_by=?, retired_at=?, "
        "valid_to=CASE WHEN valid_to='' THEN ? ELSE valid_to END"
    )
    # The new record exists only if the old one does (it may have been forgotten).
    insert_sql, values = _insert(record, op, supersedes=op.target)
    guarded = (insert_sql.replace("VALUES (", "SELECT ") .rstrip(")")
               + " WHERE EXISTS (SELECT 1 FROM records WHERE id=?)")  # fmt: skip
    return [(guarded, (*values, op.target)), _update(op, sql, new_id, op.time, op.time)], (
        op.target,
        new_id,
    )


def apply_reanchor(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    return [_update(op, "anchors=?", orjson.dumps(op.payload["anchors"]).decode())], (op.target,)


def apply_mark_stale(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    sql = (
        "status_reason=CASE WHEN status IN ('active','stale') THEN ? ELSE status_reason END, "
        "status=CASE WHEN status='active' THEN 'stale' ELSE status END"
    )
    return [_update(op, sql, op.payload["reason"])], (op.target,)


def apply_promote(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    return [_update(op, "layer='L1'")], (op.target,)


def apply_archive(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    sql = (
        "prior_status=CASE WHEN status='archived' THEN prior_status ELSE status END, "
        "status='archived', status_reason=?, retired_at=?"
    )
    return [_update(op, sql, op.payload["reason"], op.time)], (op.target,)


def apply_restore(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    sql = (
        "status=CASE WHEN status='archived' AND prior_status NOT IN ('', 'archived') "
        "THEN prior_status ELSE 'active' END, prior_status='', status_reason='', retired_at='', "
        "valid_to=CASE WHEN status IN ('invalidated','superseded') THEN '' ELSE valid_to END"
    )
    return [_update(op, sql)], (op.target,)


def apply_forget(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    target = (op.target,)
    return [
        ("DELETE FROM records_fts WHERE rowid=(SELECT rowid FROM records WHERE id=?)", target),
        ("DELETE FROM records WHERE id=?", target),
        ("DELETE FROM anchors WHERE record_id=?", target),
        ("INSERT OR IGNORE INTO forgotten VALUES (?, ?)", (op.target, op.time)),
    ], ()


def apply_store_write(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
    values = (
        op.id, op.payload["store"], str(op.payload.get("name", "")), op.payload["sha256"],
        op.author, op.time,
    )  # fmt: skip
    return [("INSERT OR IGNORE INTO store_writes VALUES (?,?,?,?,?,?)", values)], ()


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


Plan = list[list[tuple[str, list[tuple[Any, ...]]]]]


def plan_ops(ops: Iterable[Op]) -> tuple[Plan, set[str]]:
    """Cut ops (already in replay order) into rounds, no record seeing two ops in one round, and
    group each round's statements by shape; return the rounds and the record ids touched.

    Within a round, shapes keep the order they first appear in, inserts first: a supersede's
    guarded insert must see its old record before that record is updated.
    """
    rounds: list[dict[str, list[tuple[Any, ...]]]] = []
    next_round: dict[str, int] = {}
    touched: set[str] = set()
    get_round = next_round.get
    appliers = APPLIERS
    for op in ops:
        statements, ids = appliers[op.type](op)
        if len(ids) == 1:
            key = ids[0]
            index = get_round(key, 0)
            next_round[key] = index + 1
            touched.add(key)
        else:
            keys = ids or (op.target,)
            index = max(get_round(k, 0) for k in keys)
            for key in keys:
                next_round[key] = index + 1
            touched.update(ids)
        if index == len(rounds):
            rounds.append({})
        by_shape = rounds[index]
        for sql, params in statements:
            group = by_shape.get(sql)
            if group is None:
                by_shape[sql] = [params]
            else:
                group.append(params)
    plan: Plan = []
    for by_shape in rounds:
        order = sorted(by_shape, key=lambda sql: 0 if sql.startswith("INSERT") else 1)
        for sql in order:
            if not sql.startswith("INSERT"):
                # A round's updates and deletes are about different records, so they commute: run
                # them in id order, which walks the id index and the table (ids grow with time,
                # like rowids) in order instead of jumping around a file larger than the cache.
                # Inserts keep replay order: it gives the rowids.
                by_shape[sql].sort(key=_LAST)
        plan.append([(sql, by_shape[sql]) for sql in order])
    return plan, touched


_LAST = operator.itemgetter(-1)  # the record id: every update and delete ends with it


def run_plan(db: apsw.Connection, plan: Plan) -> None:
    """Run planned rounds in order, one `executemany` per statement shape."""
    for round_ in plan:
        for sql, rows in round_:
            db.executemany(sql, rows)


def apply_ops(db: apsw.Connection, ops: Iterable[Op]) -> set[str]:
    """Apply ops (already in replay order) to the projection; return the record ids touched.

    Ops are cut into rounds so that no record sees two ops in one round; within a round, statements
    of the same shape run together. Per-record order is kept, which is all that order means here.
    """
    plan, touched = plan_ops(ops)
    run_plan(db, plan)
    return touched
