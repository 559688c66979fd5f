"""How each op type changes the projection. One function per type.

Each function returns the SQL statements the op amounts to, plus the record ids it touches; it does not
run them. The projection runs them in batches (`apply_ops`): statements for different records commute,
so a batch is cut into rounds in which each record has at most one op, and each round runs as one
`executemany` per statement shape. Ops on an unknown target (forgotten, quarantined) change nothing, so
replay never fails on a well-formed op.

Most op types amount to one statement about their target alone (`SINGLE`); planning calls those
directly. The writer of a full replay (`anchors.replay_write`) relies on the statements' shapes:
every update of a record is `UPDATE records SET ...` ending with the record's id and touches that
row only, and any other statement that creates or deletes a record has the record's id first.
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


def _add(op: Op) -> Statement:
    return _insert(op.payload["record"], op)


def _update_fields(op: Op) -> Statement:
    fields = op.payload["fields"]
    cols = tuple(sorted(fields))
    values = [orjson.dumps(fields[c]).decode() if c in LIST_FIELDS else fields[c] for c in cols]
    assignments = _ASSIGNMENTS.get(cols)
    if assignments is None:
        assignments = _ASSIGNMENTS[cols] = ", ".join(f"{c}=?" for c in cols)
    return _update(op, assignments, *values)


# Reinforcement is how a quarantined learning earns its way into context.
_REINFORCE = (
    "hits=hits+1, last_used_at=?, "
    "status=CASE WHEN status='quarantined' THEN 'active' ELSE status END"
)


def _reinforce(op: Op) -> Statement:
    return _update(op, _REINFORCE, op.time)


_CONFIRM = (
    "anchors=COALESCE(?, anchors), verified_at=?, status_reason='', "
    "status=CASE WHEN status IN ('stale','quarantined') THEN 'active' ELSE status END"
)


def _confirm(op: Op) -> Statement:
    anchors = op.payload.get("anchors")
    encoded = orjson.dumps(anchors).decode() if anchors is not None else None
    return _update(op, _CONFIRM, encoded, op.time)


_INVALIDATE = (
    "prior_status=status, status='invalidated', status_reason=?, retired_at=?, "
    "valid_to=CASE WHEN valid_to='' THEN ? ELSE valid_to END"
)


def _invalidate(op: Op) -> Statement:
    return _update(op, _INVALIDATE, op.payload["reason"], op.time, op.time)


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


def _reanchor(op: Op) -> Statement:
    return _update(op, "anchors=?", orjson.dumps(op.payload["anchors"]).decode())


_MARK_STALE = (
    "status_reason=CASE WHEN status IN ('active','stale') THEN ? ELSE status_reason END, "
    "status=CASE WHEN status='active' THEN 'stale' ELSE status END"
)


def _mark_stale(op: Op) -> Statement:
    return _update(op, _MARK_STALE, op.payload["reason"])


def _promote(op: Op) -> Statement:
    return _update(op, "layer='L1'")


_ARCHIVE = (
    "prior_status=CASE WHEN status='archived' THEN prior_status ELSE status END, "
    "status='archived', status_reason=?, retired_at=?"
)


def _archive(op: Op) -> Statement:
    return _update(op, _ARCHIVE, op.payload["reason"], op.time)


_RESTORE = (
    "status=CASE WHEN status='archived' AND prior_status NOT IN ('', 'archived') "
    "THEN prior_status ELSE 'active' END, prior_status='', status_reason='', retired_at='', "
    "valid_to=CASE WHEN status IN ('invalidated','superseded') THEN '' ELSE valid_to END"
)


def _restore(op: Op) -> Statement:
    return _update(op, _RESTORE)


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


# The op types that amount to one statement about their target alone: most of a replay. Planning
# calls these directly, without the list and tuple the general appliers return.
SINGLE: dict[str, Callable[[Op], Statement]] = {
    "add": _add,
    "update": _update_fields,
    "reinforce": _reinforce,
    "confirm": _confirm,
    "invalidate": _invalidate,
    "reanchor": _reanchor,
    "mark-stale": _mark_stale,
    "promote": _promote,
    "archive": _archive,
    "restore": _restore,
}


def _one(single: Callable[[Op], Statement]) -> Applier:
    """The general applier of an op type in SINGLE: its one statement, about its target."""

    def applier(op: Op) -> tuple[list[Statement], tuple[str, ...]]:
        return [single(op)], (op.target,)

    return applier


APPLIERS: dict[str, Applier] = {
    **{name: _one(single) for name, single in SINGLE.items()},
    "supersede": apply_supersede,
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
    rounds = Rounds()
    touched: set[str] = set()
    for op in ops:
        touched.update(rounds.add(op))
    return rounds.plan(), touched


class Rounds:
    """Planned statements being gathered into rounds (see `plan_ops`)."""

    __slots__ = ("rounds", "next_round")

    def __init__(self) -> None:
        self.rounds: list[dict[str, list[tuple[Any, ...]]]] = []
        # The round each record's next op goes to.
        self.next_round: dict[str, int] = {}

    def add(self, op: Op) -> tuple[str, ...]:
        """Plan one op after those added before it; return the records it changes."""
        single = SINGLE.get(op.type)
        if single is not None:
            self.add_one(op.target, single(op))
            return (op.target,)
        statements, ids = APPLIERS[op.type](op)
        keys = ids or (op.target,)
        next_round = self.next_round
        index = max(next_round.get(k, 0) for k in keys)
        for key in keys:
            next_round[key] = index + 1
        rounds = self.rounds
        if index == len(rounds):
            rounds.append({})
        by_shape = rounds[index]
        for sql, params in statements:
            group = by_shape.get(sql)
            if group is None:
                by_shape[sql] = [params]
            else:
                group.append(params)
        return ids

    def add_one(self, key: str, statement: Statement) -> None:
        """Plan one statement about record `key` alone (an op of a type in SINGLE)."""
        next_round = self.next_round
        index = next_round.get(key, 0)
        next_round[key] = index + 1
        rounds = self.rounds
        if index == len(rounds):
            rounds.append({statement[0]: [statement[1]]})
            return
        by_shape = rounds[index]
        sql, params = statement
        group = by_shape.get(sql)
        if group is None:
            by_shape[sql] = [params]
        else:
            group.append(params)

    def plan(self) -> Plan:
        """The rounds in order, each a list of (statement, rows), inserts first."""
        plan: Plan = []
        for by_shape in self.rounds:
            order = sorted(by_shape, key=lambda sql: 0 if sql.startswith("INSERT") else 1)
            for sql in order:
                if not sql.startswith("INSERT"):
                    # A round's updates and deletes are about different records, so they commute:
                    # run them in id order, which walks the id index and the table (ids grow with
                    # time, like rowids) in order instead of jumping around a file larger than the
                    # cache. Inserts keep replay order: it gives the rowids.
                    by_shape[sql].sort(key=_LAST)
            plan.append([(sql, by_shape[sql]) for sql in order])
        return plan


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
