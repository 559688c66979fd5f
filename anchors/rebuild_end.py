"""The end of a large rebuild: the full-text index built beside the anchors table and the indexes.

Once a replay has put every record in place, a rebuild still derives the anchors table and the
full-text index from the records and creates the secondary indexes: about two seconds for a
million ops, all in SQLite, while the replay's reading process has nothing left to do. SQLite
writes a file from one connection at a time, so the full-text index is built by a second
connection, in a thread, into a file of its own, from the records as committed; this connection
meanwhile writes the anchors and the indexes (the database is in WAL mode by then, so the reader
and the writer do not wait for each other). apsw lets go of the GIL while SQLite works, so both run
at once. The full-text index's tables are then copied in, row for row: the same rows, in the same
order, as building it in place gives (the same inserts into an empty index, in one transaction).
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import apsw

from anchors.projection_schema import ANCHORS_FROM_RECORDS, FULL_TEXT_FIELDS

_FTS = "records_fts"
_AUX = "fulltext_build"


def finish_concurrently(
    db: apsw.Connection, path: Path, deferred: list[str], cache_kib: int
) -> bool:
    """Build the anchors table, the full-text index and the `deferred` index statements of the
    projection open as `db` at `path`, whose records are committed; leaves `db` in WAL mode. False,
    having done nothing, where the file cannot be put in WAL mode (the caller builds them alone)."""
    if str(db.execute("PRAGMA journal_mode=WAL").get).lower() != "wal":
        return False  # without it, reading the records would stall the writer: do it in one go
    aux = path.with_name(path.name + ".fts")
    _unlink(aux)
    failures: list[BaseException] = []
    builder = threading.Thread(
        target=_build_full_text, args=(path, aux, cache_kib, failures), daemon=True
    )
    builder.start()
    try:
        with db:
            db.execute(ANCHORS_FROM_RECORDS)
            for sql in deferred:
                db.execute(sql)
    finally:
        builder.join()
    try:
        if failures:
            raise failures[0]
        db.execute("ATTACH ? AS " + _AUX, (str(aux),))
        try:
            with db:
                for table in _shadow_tables(db):
                    db.execute(f'DELETE FROM main."{table}"')
                    db.execute(f'INSERT INTO main."{table}" SELECT * FROM {_AUX}."{table}"')
        finally:
            db.execute("DETACH " + _AUX)
    finally:
        _unlink(aux)
    return True


def _build_full_text(path: Path, aux: Path, cache_kib: int, failures: list[BaseException]) -> None:
    """Thread: fill a full-text index like the projection's, in a file of its own at `aux`, from
    the records committed at `path`."""
    try:
        conn = apsw.Connection(str(path))
        try:
            conn.setbusytimeout(10_000)
            conn.execute(f"PRAGMA cache_size=-{cache_kib}").fetchall()
            conn.execute("ATTACH ? AS " + _AUX, (str(aux),))
            # A file thrown away once copied: no journal, no syncs.
            conn.execute(f"PRAGMA {_AUX}.journal_mode=OFF").fetchall()
            conn.execute(f"PRAGMA {_AUX}.synchronous=OFF").fetchall()
            create = conn.execute(
                "SELECT sql FROM main.sqlite_master WHERE type='table' AND name=?", (_FTS,)
            ).get
            prefix = f"CREATE VIRTUAL TABLE {_FTS} "
            if not isinstance(create, str) or not create.startswith(prefix):
                raise RuntimeError(f"unexpected definition of {_FTS}: {create!r}")
            with conn:
                conn.execute(f"CREATE VIRTUAL TABLE {_AUX}.{_FTS} " + create[len(prefix) :])
                conn.execute(
                    f"INSERT INTO {_AUX}.{_FTS}(rowid, {FULL_TEXT_FIELDS}) "
                    f"SELECT rowid, {FULL_TEXT_FIELDS} FROM main.records"
                )
        finally:
            conn.close()
    except BaseException as exc:  # handed to the waiting thread, which raises it
        failures.append(exc)


def _shadow_tables(db: apsw.Connection) -> list[str]:
    """The tables that hold the full-text index (data, index, content, sizes, configuration)."""
    rows = db.execute(f"SELECT name FROM {_AUX}.sqlite_master WHERE type='table' ORDER BY name")
    return [str(name) for (name,) in rows if str(name).startswith(_FTS + "_")]


def _unlink(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
