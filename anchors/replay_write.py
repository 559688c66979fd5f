"""The writing end of a full replay: planned batches run with the updates held back and run in bulk.

Most of a replay's statements update records spread over the whole table (a record can change at
any time after it was added), so each update reads a page of the table through a small page cache
and later writes it back: for 1,000,000 ops, about 600,000 updates over a table of about 53,000
pages, two system calls each. Updates about different records commute, and an update changes only
its own row and reads nothing else, so they need not run where they come: the planned groups of
updates (one statement shape, rows about distinct records, in id order) are held back, as they
are, until `HOLD_UPDATES` rows wait. Then they run one stretch of record ids at a time, every held
group's rows of that stretch in the order the groups came: a record's updates keep their order, and
the table's pages of a stretch (ids grow with time, like rowids) are read and written once for all
the updates about them instead of once per update.

Over the last few percent of the log's clocks nothing is held across batches: those updates then
run while the reading process still works on the last batches, not all at once after it is done.

Everything else runs where the plan puts it: inserts, deletes, the other tables. Only a statement
that creates or deletes a record with updates held back waits for them (all of them run first: it
is rare, a record added again after a forget or a supersede naming a record that changed before it
existed). So the rowids, and every row, are what running the plan as it comes gives.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from typing import Any

import apsw

from anchors.apply import Plan

# Held updates run once this many rows wait: each holds its row's values (about two hundred bytes
# with their strings), so this bounds the memory they take.
HOLD_UPDATES = 60_000
# Distinct records with held updates per stretch when they run: the table's pages of a stretch
# should stay in the page cache until its last held update has run.
STRETCH = 500
# Over the last this much of the log's clocks, held updates run after every batch: they then run
# while the reading process still works on the last batches, instead of all at once once it is done.
TAIL_SHARE = 0.05

UPDATE = "UPDATE records SET "

_LAST = operator.itemgetter(-1)  # an update's record id
_FIRST = operator.itemgetter(0)  # the record an insert creates or a delete removes


class PlanWriter:
    """Runs planned batches against a projection being rebuilt, holding updates back (see above).
    Call `flush` once the last batch is written, before anything reads the records."""

    def __init__(
        self,
        db: apsw.Connection,
        hold: int | None = None,
        stretch: int | None = None,
        last_clock: int | None = None,
    ) -> None:
        """`last_clock`, when known, is the log's highest clock: the tail starts near it."""
        self.db = db
        self.hold = HOLD_UPDATES if hold is None else hold
        self.stretch = STRETCH if stretch is None else stretch
        self.tail_from = None if last_clock is None else int(last_clock * (1 - TAIL_SHARE))
        self.groups: list[tuple[str, list[tuple[Any, ...]]]] = []
        self.held_ids: set[Any] = set()
        self.held = 0

    def run(self, plan: Plan, clock: int | None = None) -> None:
        """Run planned rounds: updates held back, any other statement at once (after the held
        updates, should one be about a record they change). `clock` is the batch's last clock."""
        db = self.db
        held_ids = self.held_ids
        for round_ in plan:
            for sql, rows in round_:
                if not rows:
                    continue
                if sql.startswith(UPDATE):
                    # A round has one op per record, so a group's rows are about distinct records.
                    rows.sort(key=_LAST)
                    self.groups.append((sql, rows))
                    held_ids.update(map(_LAST, rows))
                    self.held += len(rows)
                    continue
                if held_ids and not held_ids.isdisjoint(map(_FIRST, rows)):
                    self.flush()
                db.executemany(sql, rows)
        if clock is not None and self.tail_from is not None and clock >= self.tail_from:
            self.hold = 0  # the tail of the log: hold nothing across batches any more
        if self.held >= self.hold:
            self.flush()

    def flush(self) -> None:
        """Run every held update, a stretch of record ids at a time, the groups in the order they
        came within each stretch."""
        groups = self.groups
        if not groups:
            return
        ids = sorted(self.held_ids)
        # The first id of each stretch after the first: a stretch ends before its successor's.
        bounds = ids[self.stretch :: self.stretch]
        starts = [0] * len(groups)
        executemany = self.db.executemany
        for bound in [*bounds, None]:
            for number, (sql, rows) in enumerate(groups):
                start = starts[number]
                if start == len(rows):
                    continue
                end = len(rows) if bound is None else bisect_left(rows, bound, start, key=_LAST)
                if end > start:
                    executemany(sql, rows[start:end])
                    starts[number] = end
        groups.clear()
        self.held_ids.clear()
        self.held = 0
