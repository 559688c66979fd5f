"""Compare two projection files table by table, row by row: `python -m bench.core.compare A B`.

Every table is compared (the full-text index's own tables included), each row with its rowid, in a
fixed order; the full-text table is also read back through FTS5 itself. Exit 0 when they are the
same, 1 with the first differences otherwise.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator

import apsw


def tables(db: apsw.Connection) -> list[str]:
    """Every table of the schema that holds rows (virtual tables are read through their own)."""
    rows = db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='table' ORDER BY name"
    ).fetchall()
    return [str(name) for name, sql in rows if not str(sql).startswith("CREATE VIRTUAL")]


def _rows(db: apsw.Connection, table: str) -> Iterator[tuple[object, ...]]:
    info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
    columns = ", ".join(f'"{c[1]}"' for c in info)
    without_rowid = db.execute(
        "SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE name=?", (table,)
    ).get
    head = "" if without_rowid else "rowid, "
    order = ", ".join(str(i + 1) for i in range(len(info) + (0 if without_rowid else 1)))
    yield from db.execute(f'SELECT {head}{columns} FROM "{table}" ORDER BY {order}')


def digests(path: str) -> dict[str, tuple[int, str]]:
    """(row count, SHA-256 of the rows) per table, plus the schema and the FTS5 read-back."""
    db = apsw.Connection(path, flags=apsw.SQLITE_OPEN_READONLY)
    out: dict[str, tuple[int, str]] = {}
    try:
        schema = db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()
        out["(schema)"] = (len(schema), hashlib.sha256(repr(schema).encode()).hexdigest())
        sources: dict[str, Iterator[tuple[object, ...]]] = {t: _rows(db, t) for t in tables(db)}
        sources["(records_fts read back)"] = db.execute(
            "SELECT rowid, text, description, tags FROM records_fts ORDER BY rowid"
        )
        for name, rows in sources.items():
            digest = hashlib.sha256()
            count = 0
            for row in rows:
                digest.update(repr(tuple(row)).encode())
                count += 1
            out[name] = (count, digest.hexdigest())
    finally:
        db.close()
    return out


def differences(a: str, b: str) -> list[str]:
    """What differs between the projections at paths `a` and `b` (empty when nothing does)."""
    left, right = digests(a), digests(b)
    out = []
    for name in sorted(left.keys() | right.keys()):
        if left.get(name) != right.get(name):
            out.append(f"{name}: {left.get(name)} != {right.get(name)}")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m bench.core.compare A.sqlite B.sqlite", file=sys.stderr)
        return 2
    diffs = differences(argv[0], argv[1])
    for line in diffs:
        print(line)
    if not diffs:
        print(f"same: {len(digests(argv[0]))} tables and read-backs compared row by row")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
