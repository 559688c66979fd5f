"""The SQLite projection of the op-log: records, anchors and full-text search. A cache, never the truth.

`.git/tether/index.sqlite` carries a schema version and, per partition, how far it has read. On open it
is brought up to date: new ops that sort after everything applied are applied incrementally; anything
else (a missing, corrupt or outdated file, ops that arrived out of order through a sync, a partition
that shrank) rebuilds it by replaying the whole log into a fresh file that then replaces the old one.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw
import orjson

from anchors.operations import Op, OpError, parse_line, validate
from anchors.oplog import LineIssue, OpLog, exclusive, fsync_path
from anchors.projection_schema import (
    ANCHORS_FROM_RECORDS,
    COLUMNS,
    FULL_TEXT_FROM_RECORDS,
    LIST_FIELDS,
    SCHEMA,
    SCHEMA_VERSION,
)
from anchors.record import Anchor, Learning
from anchors.replay_write import PlanWriter

ANCHOR_KEYS = frozenset(Anchor("").to_dict())

__all__ = ["COLUMNS", "LIST_FIELDS", "SCHEMA_VERSION", "Projection", "load_quarantine"]

INDEX_FILE = "index.sqlite"
# Ops per replay batch: big enough that each statement shape runs as a long `executemany`, small
# enough that a batch's ops and statements stay a few tens of megabytes.
REPLAY_BATCH = 20_000
# Logs at least this large are replayed by two processes (`anchors.replay_reader`); below it,
# starting the second process costs more than it saves.
PARALLEL_MIN_BYTES = 16 << 20
# Page cache of a rebuild, in KiB. Most of a replay's statements update records spread over the
# whole table (hundreds of megabytes for a million ops), so each page missing from the cache is a
# read and, later, a write. A larger cache was measured not to pay (32, 64 or 128 MB: fewer reads
# and writes, as much more time in the cache itself; 1,000,000 ops, docs/benchmarks.md) and costs
# memory one for one: SQLite's default size, made explicit.
REBUILD_CACHE_KIB = 2048
# ... and once the replay is done (building the full-text and anchor tables and the indexes).
END_CACHE_KIB = 8192
# A file being rebuilt needs no journal and no syncs as it goes: it is thrown away if the rebuild
# fails. It is synced once, whole, before it is renamed into place (`fsync_path`): the commits on
# the way (the replay's, the end's, the checkpoint of the end's WAL) would each wait for the disk.
# Each pragma runs on its own and its answer is read: `journal_mode` answers a row, and a
# multi-statement `execute` waits at such a statement until it is read, so whatever follows it in
# one string never runs.
FRESH_FILE_PRAGMAS = (
    "PRAGMA journal_mode=OFF",
    "PRAGMA synchronous=OFF",
    f"PRAGMA cache_size=-{REBUILD_CACHE_KIB}",
)

# The merge into replay order relies on each partition's clocks never going back (appends make
# them grow); an op whose clock does go back (a hand-edited or tampered partition) is skipped.
CLOCK_BACK = "clock goes back within its partition: skipped"

# (clock, partition, op id, byte offset, op): a replay entry, its replay key first.
_Entry = tuple[int, str, str, int, Op]
QUARANTINE_FILE = "quarantine.jsonl"


@dataclass
class RefreshResult:
    rebuilt: bool = False
    applied: int = 0
    reason: str = ""
    issues: list[LineIssue] = field(default_factory=list)


def load_quarantine(tether_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Lines the sync refused to apply (failed the scanner or their hash), keyed by
    (partition, byte offset): a tampered line may claim another op's id, its place is unique."""
    path = tether_dir / QUARANTINE_FILE
    out: dict[tuple[str, int], dict[str, Any]] = {}
    if not path.exists():
        return out
    for line in path.read_bytes().splitlines():
        with contextlib.suppress(ValueError, AttributeError, KeyError, TypeError):
            entry = json.loads(line)
            out[(str(entry["part"]), int(entry["offset"]))] = entry
    return out


class Projection:
    """Read access to the projected records, kept current with the op-log."""

    def __init__(self, tether_dir: Path, oplog: OpLog) -> None:
        self.tether_dir = tether_dir
        self.oplog = oplog
        self.path = tether_dir / INDEX_FILE
        self.db: apsw.Connection = self._open_current()

    # -- opening and refreshing --------------------------------------------------------------

    def _connect(self, path: Path) -> apsw.Connection:
        db = apsw.Connection(str(path))
        db.setbusytimeout(10_000)
        return db

    def _open_current(self) -> apsw.Connection:
        if self.path.exists():
            try:
                db = self._connect(self.path)
                version = db.execute("SELECT value FROM meta WHERE key='schema_version'").get
                if version == str(SCHEMA_VERSION):
                    return db
                db.close()
            except apsw.Error:
                pass
        self.rebuild()
        return self._connect(self.path)

    def refresh(self) -> RefreshResult:
        """Bring the projection up to date with the op-log (cheap when nothing changed)."""
        try:
            return self._refresh()
        except apsw.Error as exc:
            # A corrupt file shows itself here at the latest: replace it from the log.
            with contextlib.suppress(apsw.Error):
                self.db.close()
            result = self.rebuild(reason=f"projection unreadable ({exc.__class__.__name__})")
            self.db = self._connect(self.path)
            return result

    def _refresh(self) -> RefreshResult:
        parts = self.oplog.parts()
        sizes = {p: self.oplog.complete_size(p) for p in parts}
        quarantine_size = _size(self.tether_dir / QUARANTINE_FILE)
        state = self._meta()
        known: dict[str, list[Any]] = state.get("parts", {})
        if set(known) - set(parts):
            return self._swap_rebuild("a partition disappeared")
        quarantine: dict[tuple[str, int], dict[str, Any]] = {}
        if state.get("quarantine_size", 0) != quarantine_size:
            quarantine = load_quarantine(self.tether_dir)
            # New quarantine entries are fine as long as they are about lines not yet applied.
            if any(off < known.get(part, [0])[0] for part, off in quarantine):
                old = self._quarantined_applied()
                if {k for k in quarantine if k[1] < known.get(k[0], [0])[0]} - old:
                    return self._swap_rebuild("the quarantine list changed")
        new_ops: list[tuple[Op, int]] = []
        issues: list[LineIssue] = []
        for part in parts:
            offset, last_id = known.get(part, [0, ""])
            size = sizes[part]
            if size < offset:
                return self._swap_rebuild(f"partition {part} shrank")
            if size == offset:
                continue
            # The op just before the offset must still be the one we applied last.
            if offset and last_id and self._op_before(part, offset) != last_id:
                return self._swap_rebuild(f"partition {part} was rewritten")
            for off, _number, line in self.oplog.read(part, offset):
                op = _parse(line, part, issues)
                if op is not None:
                    new_ops.append((op, off))
        if (
            not new_ops
            and all(sizes[p] == known.get(p, [0])[0] for p in parts)
            and state.get("quarantine_size", 0) == quarantine_size
        ):
            return RefreshResult()
        if not quarantine and quarantine_size:
            quarantine = load_quarantine(self.tether_dir)
        new_ops.sort(key=lambda pair: pair[0].key)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            # Re-check under SQLite's write lock: another process may have refreshed meanwhile.
            if self._meta().get("parts", {}) != known:
                self.db.execute("ROLLBACK")
                return self._refresh()
            refolded = self._apply_incremental(new_ops, quarantine, issues)
            self._write_meta(self.db, parts, sizes, new_ops, quarantine_size)
            self.db.execute("COMMIT")
        except BaseException:
            if not self.db.getautocommit():
                self.db.execute("ROLLBACK")
            raise
        return RefreshResult(applied=len(new_ops), issues=issues, reason=f"refolded {refolded}")

    def _quarantined_applied(self) -> set[tuple[str, int]]:
        rows = self.db.execute("SELECT value FROM meta WHERE key='quarantined'").get
        return {(p, o) for p, o in json.loads(rows)} if rows else set()

    def _apply_incremental(
        self,
        new_ops: list[tuple[Op, int]],
        quarantine: dict[tuple[str, int], dict[str, Any]],
        issues: list[LineIssue],
    ) -> int:
        """Apply new ops; records that already saw a later op (a sync brought older ones) are
        refolded from their own ops, so the result equals a full replay at a cost that grows with
        the new ops, not with the log."""
        from anchors.apply import apply_ops

        db = self.db
        conflicted: set[str] = set()
        for op, _ in new_ops:
            for rid in targets_of(op):
                row = db.execute(
                    "SELECT o.clock, p.name FROM op_index o JOIN parts p ON p.no = o.part "
                    "WHERE o.target=? ORDER BY o.clock DESC, p.name DESC LIMIT 1",
                    (rid,),
                ).fetchone()
                if row is not None and tuple(row) > (op.clock, op.part):
                    conflicted.add(rid)
        numbers = _part_numbers(db, {op.part for op, _ in new_ops})
        db.executemany("INSERT INTO op_index VALUES (?,?,?,?)", _index_rows(new_ops, numbers))
        fresh = [(op, off) for op, off in new_ops]
        if conflicted:
            # Close over supersede links: a refolded record drags the records it is linked to.
            pending = set(conflicted)
            located: dict[tuple[str, int], None] = {}
            while pending:
                rid = pending.pop()
                for row in db.execute(
                    "SELECT p.name, o.offset FROM op_index o JOIN parts p ON p.no = o.part "
                    "WHERE o.target=?",
                    (rid,),
                ).fetchall():
                    part, off = str(row[0]), int(row[1])  # type: ignore[arg-type]
                    if (part, off) in located:
                        continue
                    located[(part, off)] = None
                    op = self.oplog.find(part, off)
                    for other in targets_of(op):
                        if other not in conflicted:
                            conflicted.add(other)
                            pending.add(other)
            for rid in conflicted:
                db.execute(
                    "DELETE FROM records_fts WHERE rowid=(SELECT rowid FROM records WHERE id=?)",
                    (rid,),
                )
                db.execute("DELETE FROM records WHERE id=?", (rid,))
                db.execute("DELETE FROM forgotten WHERE id=?", (rid,))
            refold = [(self.oplog.find(p, o), o) for p, o in located]
            refold.sort(key=lambda pair: pair[0].key)
            apply_ops(db, self._valid(refold, quarantine, issues))
            fresh = [(op, off) for op, off in new_ops if not set(targets_of(op)) & conflicted]
        touched = apply_ops(db, self._valid(fresh, quarantine, issues))
        self._reindex(db, touched | conflicted)
        return len(conflicted)

    def _valid(
        self,
        ops: list[tuple[Op, int]],
        quarantine: dict[tuple[str, int], dict[str, Any]],
        issues: list[LineIssue],
    ) -> list[Op]:
        out: list[Op] = []
        for op, offset in ops:
            if (op.part, offset) in quarantine:
                continue
            try:
                validate(op)
            except OpError as exc:
                issues.append(LineIssue(op.part, 0, op.id, str(exc)))
                self.db.execute(
                    "INSERT INTO skipped VALUES (?,?,?,?)", (op.part, 0, op.id, str(exc))
                )
                continue
            out.append(op)
        return out

    def _op_before(self, part: str, offset: int) -> str:
        return _id_before(self.oplog, part, offset)

    def reset(self, reason: str) -> RefreshResult:
        """Rebuild from the log now: after the log was rewritten in place (`tether gc`)."""
        return self._swap_rebuild(reason)

    def _swap_rebuild(self, reason: str) -> RefreshResult:
        with contextlib.suppress(apsw.Error):
            self.db.close()
        result = self.rebuild(reason=reason)
        self.db = self._connect(self.path)
        if not result.rebuilt:
            return self._refresh()  # another process rebuilt meanwhile: catch up from there
        return result

    def rebuild(self, reason: str = "no projection yet") -> RefreshResult:
        """Replay the whole log into a fresh file and put it in place, one process at a time.

        Other processes may have the projection open (a language server, a concurrent `tether
        add`): a readable file is therefore overwritten through SQLite's backup API, a write they
        see like any other, never replaced under them (their WAL would then meet another file).
        Only a file SQLite cannot read is replaced. A process that waited while another rebuilt
        takes that result instead of rebuilding again.
        """
        seen = _identity(self.path)
        with exclusive(self.tether_dir / REBUILD_LOCK):
            if _identity(self.path) != seen and self._readable_current():
                return RefreshResult(reason=f"{reason}: rebuilt by another process")
            return self._rebuild(reason)

    def _readable_current(self) -> bool:
        try:
            db = self._connect(self.path)
            try:
                version = db.execute("SELECT value FROM meta WHERE key='schema_version'").get
            finally:
                db.close()
        except apsw.Error:
            return False
        return version == str(SCHEMA_VERSION)

    def _rebuild(self, reason: str) -> RefreshResult:
        parts = self.oplog.parts()
        sizes = {p: self.oplog.complete_size(p) for p in parts}
        parallel = sum(sizes.values()) >= PARALLEL_MIN_BYTES and (os.cpu_count() or 1) > 1
        if parallel:
            from anchors.replay_reader import ReplayReaderError

            try:
                return self._rebuild_from(reason, parts, sizes, parallel=True)
            except ReplayReaderError:
                pass  # the reading process could not run here: replay in this one instead
        return self._rebuild_from(reason, parts, sizes, parallel=False)

    def _rebuild_from(
        self, reason: str, parts: list[str], sizes: dict[str, int], parallel: bool
    ) -> RefreshResult:
        # The new projection is written to a file of its own, without a journal: a crash midway
        # leaves only this file, which the next rebuild deletes; the projection in place is
        # replaced only once this one is complete.
        tmp = self.path.with_name(f"{INDEX_FILE}.{os.getpid()}.tmp")
        _unlink_db(tmp)
        db = self._connect(tmp)
        for pragma in FRESH_FILE_PRAGMAS:
            db.execute(pragma).fetchall()
        issues: list[LineIssue] = []
        quarantine = load_quarantine(self.tether_dir)
        quarantine_size = _size(self.tether_dir / QUARANTINE_FILE)
        early_sync: threading.Thread | None = None
        try:
            with db:
                db.execute(SCHEMA)
                # Secondary indexes are built once at the end, from sorted data, rather than kept
                # up to date row by row; nothing the replay runs reads them.
                deferred = _drop_indexes(db)
                count = self._replay(db, parts, sizes, quarantine, issues, parallel=parallel)
                last = {p: (sizes[p], _id_before(self.oplog, p, sizes[p])) for p in parts}
                _put_meta(db, "schema_version", str(SCHEMA_VERSION))
                _put_meta(db, "parts", json.dumps({p: list(v) for p, v in last.items()}))
                _put_meta(db, "quarantined", json.dumps(sorted(quarantine)))
                _put_meta(db, "quarantine_size", json.dumps(quarantine_size))
                # What is left reads whole tables in order and writes new ones: a large cache no
                # longer saves reads, and a small one keeps SQLite's sorter small too.
                db.execute(f"PRAGMA cache_size=-{END_CACHE_KIB}").fetchall()
                # The reading process is done by now: SQLite's sorter may use the other core.
                db.execute(f"PRAGMA threads={min(4, os.cpu_count() or 1) - 1}").fetchall()
                if not parallel:
                    self._derive(db, deferred)
            if parallel:
                from anchors.rebuild_end import finish_concurrently

                # The replay's pages are written now: let the disk take them while the end
                # computes (a thread waiting in fsync), so the sync before the rename has only the
                # end's own pages left to wait for.
                early_sync = threading.Thread(target=fsync_path, args=(tmp,), daemon=True)
                early_sync.start()
                if not finish_concurrently(db, tmp, deferred, END_CACHE_KIB):
                    with db:
                        self._derive(db, deferred)
        except BaseException:
            _join(early_sync)
            db.close()
            _unlink_db(tmp)
            raise
        _join(early_sync)
        db.execute("PRAGMA journal_mode=WAL")
        if not _copy_into(db, self.path):
            db.close()
            fsync_path(tmp)
            os.replace(tmp, self.path)
            for suffix in ("-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(f"{self.path}{suffix}")
            return RefreshResult(rebuilt=True, applied=count, reason=reason, issues=issues)
        db.close()
        _unlink_db(tmp)
        return RefreshResult(rebuilt=True, applied=count, reason=reason, issues=issues)

    def _derive(self, db: apsw.Connection, deferred: list[str]) -> None:
        """The end of a rebuild in one connection: anchors, full text, the deferred indexes."""
        self._reindex(db, None)
        for sql in deferred:
            db.execute(sql)

    def _replay(
        self,
        db: apsw.Connection,
        parts: list[str],
        sizes: dict[str, int],
        quarantine: dict[tuple[str, int], dict[str, Any]],
        issues: list[LineIssue],
        keep: Callable[[Op], bool] | None = None,
        parallel: bool = False,
    ) -> int:
        """Replay the whole log into an empty projection `db`; return the number of ops read.

        With `parallel`, a second process reads, decodes, orders, validates and plans the ops
        while this one runs the statements (`anchors.replay_reader`): the two halves cost about
        the same, so on two cores the replay takes about half the time."""
        # The replay allocates millions of short-lived, acyclic objects while a batch's worth stay
        # alive: the cyclic collector would scan those over and over and find nothing to free.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            numbers = _part_numbers(db, parts)
            writer = PlanWriter(db, last_clock=self.oplog.max_clock())
            if parallel and keep is None:
                from anchors.replay_reader import replay_in_two_processes

                count = replay_in_two_processes(
                    writer, self.oplog, parts, sizes, numbers, quarantine, issues
                )
            else:
                count = 0
                for batch in replay_batches(self.oplog, parts, sizes, issues, keep):
                    write_batch(writer, prepare_batch(batch, numbers, quarantine, issues))
                    count += len(batch)
            writer.flush()
            return count
        finally:
            if gc_was_on:
                gc.enable()

    # -- applying ---------------------------------------------------------------------------

    def snapshot_until(self, stamp: str) -> apsw.Connection:
        """An in-memory projection of the ops written up to `stamp` (ISO time): what was believed
        then. The caller closes it."""
        db = apsw.Connection(":memory:")
        parts = self.oplog.parts()
        sizes = {p: self.oplog.complete_size(p) for p in parts}
        with db:
            db.execute(SCHEMA)
            self._replay(db, parts, sizes, load_quarantine(self.tether_dir), [],
                         keep=lambda op: op.time <= stamp)  # fmt: skip
            self._reindex(db, None)
        return db

    def _reindex(self, db: apsw.Connection, touched: set[str] | None) -> None:
        """Rebuild the derived rows (anchors, full-text) for touched records, or for all."""
        anchor_sql = ANCHORS_FROM_RECORDS
        fts_sql = FULL_TEXT_FROM_RECORDS
        if touched is None:
            db.execute(anchor_sql)
            db.execute(fts_sql)
            return
        for rid in touched:
            db.execute("DELETE FROM anchors WHERE record_id=?", (rid,))
            row = db.execute("SELECT rowid FROM records WHERE id=?", (rid,)).get
            if row is not None:
                db.execute("DELETE FROM records_fts WHERE rowid=?", (row,))
                db.execute(anchor_sql + " WHERE r.id=?", (rid,))
                db.execute(fts_sql + " WHERE id=?", (rid,))

    def _meta(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self.db.execute("SELECT key, value FROM meta"):
            with contextlib.suppress(ValueError):
                out[key] = json.loads(value)
        return out

    def _write_meta(
        self,
        db: apsw.Connection,
        parts: list[str],
        sizes: dict[str, int],
        new_ops: list[tuple[Op, int]],
        quarantine_size: int,
    ) -> None:
        last = {p: [sizes[p], _id_before(self.oplog, p, sizes[p])] for p in parts}
        _put_meta(db, "parts", json.dumps(last))
        _put_meta(db, "quarantine_size", json.dumps(quarantine_size))
        quarantined = sorted(load_quarantine(self.tether_dir)) if quarantine_size else []
        _put_meta(db, "quarantined", json.dumps(quarantined))

    # -- reading ----------------------------------------------------------------------------

    def get(self, record_id: str) -> Learning | None:
        row = self.db.execute(
            f"SELECT {', '.join(COLUMNS)} FROM records WHERE id=?", (record_id,)
        ).get
        return row_to_learning(row) if row else None

    def match_prefix(self, prefix: str, limit: int = 2) -> list[str]:
        rows = self.db.execute(
            "SELECT id FROM records WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
            (prefix, prefix + "\U0010ffff", limit),
        )
        return [r[0] for r in rows]

    def is_forgotten(self, record_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM forgotten WHERE id=?", (record_id,)).get is not None

    def query(
        self, where: str = "", params: Iterable[Any] = (), order: str = "id"
    ) -> list[Learning]:
        sql = f"SELECT {', '.join(COLUMNS)} FROM records"
        if where:
            sql += f" WHERE {where}"
        sql += f" ORDER BY {order}"
        return [row_to_learning(row) for row in self.db.execute(sql, tuple(params))]

    def query_dicts(
        self, where: str = "", params: Iterable[Any] = (), order: str = "id"
    ) -> list[dict[str, Any]]:
        """Like `query`, as dicts in `Learning.to_dict()` shape, without building dataclasses."""
        sql = f"SELECT {', '.join(COLUMNS)} FROM records"
        if where:
            sql += f" WHERE {where}"
        sql += f" ORDER BY {order}"
        out = []
        for row in self.db.execute(sql, tuple(params)):
            data = dict(zip(COLUMNS, row, strict=True))
            data["tags"] = orjson.loads(data["tags"] or "[]")
            data["evidence"] = orjson.loads(data["evidence"] or "[]")
            data["anchors"] = [
                a if a.keys() >= ANCHOR_KEYS else Anchor.from_dict(a).to_dict()
                for a in orjson.loads(data["anchors"] or "[]")
            ]
            out.append(data)
        return out

    def ops_locations(self, record_id: str) -> list[tuple[str, int]]:
        rows = self.db.execute(
            "SELECT p.name, o.offset FROM op_index o JOIN parts p ON p.no = o.part "
            "WHERE o.target=?",
            (record_id,),
        )
        return [(r[0], r[1]) for r in rows]

    def skipped(self) -> list[LineIssue]:
        return [
            LineIssue(r[0], r[1], r[2], r[3])
            for r in self.db.execute("SELECT part, line, op_id, problem FROM skipped")
        ]


def row_to_learning(row: Any) -> Learning:
    data = dict(zip(COLUMNS, row, strict=True))
    for key in LIST_FIELDS:
        data[key] = orjson.loads(data[key] or "[]")
    return Learning.from_dict(data)


def targets_of(op: Op) -> tuple[str, ...]:
    """The records an op changes: its target, and for a supersede the new record too."""
    if op.type == "supersede":
        record = op.payload.get("record")
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            return (op.target, record["id"])
    return (op.target,)


def in_replay_order(streams: list[Iterator[Any]], chunk: int = 64) -> Iterator[list[Any]]:
    """Merge partitions' entries into replay order, yielding it in sorted runs.

    Within a partition clocks strictly increase, so once every partition has been read up to clock
    H, no entry at or below H is still unread: each round tops up every partition's buffer, takes
    everything at or below the smallest of the buffers' last clocks, and
    sorts that (one C sort of many sorted runs instead of a heap step per entry).
    """
    import itertools
    from bisect import bisect_right

    live: list[tuple[Iterator[Any], list[Any]]] = [(stream, []) for stream in streams]
    while True:
        buffers: list[tuple[Iterator[Any], list[Any]]] = []
        for stream, buf in live:
            # Top every buffer up, not only the empty ones: the horizon is the lowest of the
            # buffers' last clocks, so one short buffer would hold every round back.
            if len(buf) < chunk:
                buf.extend(itertools.islice(stream, chunk - len(buf)))
                if not buf:
                    continue  # this partition is done
            buffers.append((stream, buf))
        if not buffers:
            return
        live = buffers
        # Entries compare as (clock, partition, ...): every partition name sorts below U+FFFF.
        horizon = (min(buf[-1][0] for _, buf in live), "\uffff")
        run: list[Any] = []
        for _, buf in live:
            cut = bisect_right(buf, horizon)
            if cut:
                run.extend(buf[:cut])
                del buf[:cut]
        run.sort()
        yield run


def replay_batches(
    oplog: OpLog,
    parts: list[str],
    sizes: dict[str, int],
    issues: list[LineIssue],
    keep: Callable[[Op], bool] | None = None,
) -> Iterator[list[_Entry]]:
    """The log's ops in replay order, in batches of about `REPLAY_BATCH` (a batch ends between
    sorted runs); unparseable and foreign lines are noted in `issues` and left out."""
    lines = oplog.lines

    def stream(part: str) -> Iterator[_Entry]:
        last = 0
        for off, line in lines(part, 0, sizes[part]):
            op = parse_in_order(line, part, last, issues)
            if op is None:
                continue
            last = op.clock
            if keep is None or keep(op):
                yield op.clock, part, op.id, off, op

    return in_batches(in_replay_order([stream(p) for p in parts]))


def in_batches(runs: Iterable[list[Any]], size: int | None = None) -> Iterator[list[Any]]:
    """Sorted runs gathered into replay batches of about `size` (`REPLAY_BATCH`) entries. Where
    batches are cut matters (records' statements are grouped per batch), so every replay cuts them
    here."""
    size = size or REPLAY_BATCH
    batch: list[Any] = []
    for run in runs:
        batch.extend(run)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


@dataclass
class PreparedBatch:
    """A replay batch turned into what the writer runs: the planned rounds of statements, the
    op-index rows and the ops skipped as invalid. Plain data, so it can cross a pipe."""

    plan: Any
    index_rows: list[tuple[str, int, int, int]]
    skipped: list[tuple[str, int, str, str]]


def prepare_batch(
    batch: Iterable[_Entry],
    numbers: dict[str, int],
    quarantine: Any,
    issues: list[LineIssue],
) -> PreparedBatch:
    """Validate a batch of replay entries and plan its statements (no SQL runs here); `quarantine`
    is anything holding the (partition, offset) pairs to leave out. `batch` is read once, an op
    at a time, so a batch decoded on the fly never holds all its ops at once."""
    from anchors.apply import SINGLE, Rounds

    skipped: list[tuple[str, int, str, str]] = []
    index_rows: list[tuple[str, int, int, int]] = []
    rounds = Rounds()
    add_one, add = rounds.add_one, rounds.add
    single_of = SINGLE.get
    new_row = index_rows.append
    # One loop per op, no generator between: this runs for every op of a full replay.
    for clock, part, op_id, offset, op in batch:
        number = numbers[part]
        if op.type == "supersede":
            for rid in targets_of(op):
                new_row((rid, number, offset, clock))
        else:
            new_row((op.target, number, offset, clock))
        if quarantine and (part, offset) in quarantine:
            continue
        try:
            validate(op)
        except OpError as exc:
            issues.append(LineIssue(part, 0, op_id, str(exc)))
            skipped.append((part, 0, op_id, str(exc)))
            continue
        single = single_of(op.type)
        if single is not None:
            add_one(op.target, single(op))
        else:
            add(op)
    return PreparedBatch(rounds.plan(), index_rows, skipped)


def write_batch(writer: PlanWriter, prepared: PreparedBatch) -> None:
    """Run a prepared batch against the projection being rebuilt (its updates may be held back
    until `writer.flush()`)."""
    db = writer.db
    if prepared.skipped:
        db.executemany("INSERT INTO skipped VALUES (?,?,?,?)", prepared.skipped)
    rows = prepared.index_rows
    writer.run(prepared.plan, rows[-1][3] if rows else None)
    db.executemany("INSERT INTO op_index VALUES (?,?,?,?)", rows)


def _index_rows(
    ops: list[tuple[Op, int]], numbers: dict[str, int]
) -> list[tuple[str, int, int, int]]:
    rows = []
    for op, offset in ops:
        for rid in targets_of(op):
            rows.append((rid, numbers[op.part], offset, op.clock))
    return rows


def _part_numbers(db: apsw.Connection, parts: Iterable[str]) -> dict[str, int]:
    """The number `op_index` stores for each partition, numbering new ones."""
    db.executemany("INSERT OR IGNORE INTO parts(name) VALUES (?)", [(p,) for p in sorted(parts)])
    return {str(name): int(no) for no, name in db.execute("SELECT no, name FROM parts")}


def parse_in_order(line: bytes, part: str, last: int, issues: list[LineIssue]) -> Op | None:
    """A line's op, or None (noted in `issues`) when it does not parse or its clock is below
    `last`, the clock of the partition's previous op (a partition edited by hand: replaying it
    would wait forever for the merge to reach it)."""
    op = _parse(line, part, issues)
    if op is not None and op.clock < last:
        issues.append(LineIssue(part, 0, op.id, CLOCK_BACK))
        return None
    return op


def _parse(line: bytes, part: str, issues: list[LineIssue]) -> Op | None:
    """The op on a line of `part`, or None after noting why it is skipped (malformed, foreign)."""
    try:
        op = parse_line(line, verify=False)
    except OpError as exc:
        issues.append(LineIssue(part, 0, "", str(exc)))
        return None
    if op.part != part:
        issues.append(LineIssue(part, 0, op.id, f"foreign op from partition {op.part}"))
        return None
    return op


def _id_before(oplog: OpLog, part: str, offset: int) -> str:
    """The id of the op whose line ends at `offset`."""
    if offset == 0:
        return ""
    start = max(0, offset - 65536)
    with open(oplog.path_of(part), "rb") as fh:
        fh.seek(start)
        chunk = fh.read(offset - start)
    idx = chunk.rfind(b"\n", 0, len(chunk) - 1)
    return chunk[idx + 1 : idx + 1 + 71][7:71].decode("ascii", "replace")


REBUILD_LOCK = "rebuild.lock"


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _copy_into(source: apsw.Connection, path: Path) -> bool:
    """Overwrite the database at `path` with `source` through SQLite's backup API; False when there
    is no readable database there to overwrite (the caller then replaces the file)."""
    if not path.exists():
        return False
    try:
        dest = apsw.Connection(str(path))
    except apsw.Error:
        return False
    try:
        dest.setbusytimeout(10_000)
        dest.execute("SELECT count(*) FROM sqlite_master").fetchall()  # is it a database at all?
        with dest.backup("main", source, "main") as backup:
            backup.step(-1)
        return True
    except apsw.Error:
        return False
    finally:
        dest.close()


def _drop_indexes(db: apsw.Connection) -> list[str]:
    """Drop the schema's explicit indexes; return the statements that create them again."""
    rows = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL ORDER BY rowid"
    ).fetchall()
    for name, _sql in rows:
        db.execute(f'DROP INDEX "{name}"')
    return [str(sql) for _name, sql in rows]


def _join(thread: threading.Thread | None) -> None:
    if thread is not None:
        thread.join()


def _unlink_db(path: Path) -> None:
    """Delete a database file and whatever SQLite keeps beside it."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def _put_meta(db: apsw.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
