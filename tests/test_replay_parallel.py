"""The two-process replay (`anchors.replay_reader`) builds the same projection as the one-process
replay, row for row, on logs with every op type, bad lines, foreign ops and quarantined lines."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import anchors.projection as projection_module
import anchors.replay_reader as replay_reader
from anchors.operations import Op
from anchors.oplog import OpLog
from anchors.projection import Projection
from bench.core.compare import differences
from tests.core_helpers import make_op, record

WORDS = "retry cache gateway token queue parser shard lock backoff jitter timeout".split()


def _random_log(ops_dir: Path, seed: int, count: int = 600) -> list[tuple[str, int]]:
    """Write a random log of every op type over four partitions (one by an author whose name
    JSON escapes) with some bad lines; return (partition, offset) of a few lines to quarantine."""
    rng = random.Random(seed)
    parts = ["ada@x.aaaaaa", "bob@x.bbbbbb", "cy@x.cccccc", "dan@x.dddddd"]
    files = {p: bytearray() for p in parts}
    prev = dict.fromkeys(parts, "")
    clocks = dict.fromkeys(parts, 0)
    ids: list[str] = []
    offsets: list[tuple[str, int]] = []
    clock = 0
    for n in range(count):
        part = rng.choice(parts)
        clock = max(clock + rng.choice([0, 1, 1]), clocks[part] + 1)  # equal clocks across parts
        roll = rng.random()
        if not ids or roll < 0.3:
            rid = f"01J{seed:03d}{n:020d}"
            extra: dict[str, Any] = {"tags": [rng.choice(WORDS)], "description": rng.choice(WORDS)}
            if rng.random() < 0.5:
                extra["anchors"] = [{"path": f"src/m{rng.randint(0, 9)}.py", "symbol": "f",
                                     "span": [1, rng.randint(2, 40)]}]  # fmt: skip
            if rng.random() < 0.2:
                extra["status"] = "quarantined"
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
            op_type, target, payload = "add", rid, {"record": record(rid, text, **extra)}
            ids.append(rid)
        else:
            target = rng.choice(ids)
            op_type = rng.choice(
                ["update", "reinforce", "confirm", "invalidate", "supersede", "reanchor",
                 "mark-stale", "promote", "archive", "restore", "forget", "store-write", "bad"]
            )  # fmt: skip
            anchors = [{"path": f"lib/n{rng.randint(0, 5)}.py", "span": [3, 9]}]
            new_id = f"01K{seed:03d}{n:020d}"
            payload = {
                "update": {"fields": rng.choice([{"text": "edited " + rng.choice(WORDS)},
                                                 {"tags": [rng.choice(WORDS)], "confidence": 0.5},
                                                 {"category": "security"}])},
                "reinforce": {}, "promote": {}, "restore": {}, "forget": {},
                "confirm": rng.choice([{}, {"anchors": anchors}]),
                "invalidate": {"reason": "wrong"}, "mark-stale": {"reason": "moved"},
                "archive": {"reason": "cap"}, "reanchor": {"anchors": anchors},
                "supersede": {"record": record(new_id, "better " + rng.choice(WORDS))},
                "store-write": {"store": "profile", "name": "ada", "sha256": f"{n:064x}"},
                "bad": {"fields": {"status": "active"}},  # not updatable: skipped as invalid
            }[op_type]  # fmt: skip
            if op_type == "bad":
                op_type = "update"
            if op_type == "supersede":
                ids.append(new_id)
        op = make_op(op_type, target, payload, part=part, clock=clock, prev=prev[part])
        if part == "dan@x.dddddd":
            # An author whose name JSON escapes: its lines are placed by decoding them.
            op.author = 'd"an\\x@x'
            op.seal()
        offsets.append((part, len(files[part])))
        files[part] += op.to_line()
        prev[part], clocks[part] = op.id, clock
        if rng.random() < 0.01:
            files[part] += b"not an op at all\n"
        if rng.random() < 0.01:
            foreign = make_op("reinforce", target, {}, part="eve@x.eeeeee", clock=clock)
            files[part] += foreign.to_line()
    ops_dir.mkdir(parents=True, exist_ok=True)
    for part, data in files.items():
        (ops_dir / f"{part}.jsonl").write_bytes(bytes(data))
    return rng.sample(offsets, 5)


def _build(tether: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Rebuild the projection of the log under `tether` and return its file."""
    monkeypatch.setattr(projection_module, "PARALLEL_MIN_BYTES", 0 if parallel else 1 << 62)
    (tether / "index.sqlite").unlink(missing_ok=True)
    Projection(tether, OpLog(tether, "zed@x", "zzzzzz")).db.close()
    return tether / "index.sqlite"


def _twin_logs(tmp_path: Path, seed: int, count: int) -> tuple[Path, Path]:
    """A random log under tmp_path/one and a copy of it under tmp_path/two."""
    one = tmp_path / "one"
    _random_log(one / "ops", seed, count=count)
    return one, _copy_log(one, tmp_path / "two")


def _copy_log(source: Path, dest: Path) -> Path:
    (dest / "ops").mkdir(parents=True)
    for path in (source / "ops").iterdir():
        (dest / "ops" / path.name).write_bytes(path.read_bytes())
    quarantine = source / projection_module.QUARANTINE_FILE
    if quarantine.exists():
        (dest / quarantine.name).write_bytes(quarantine.read_bytes())
    return dest


@pytest.mark.parametrize(("seed", "share"), [(1, 5), (2, 5), (3, None), (4, None)])
def test_two_processes_build_the_same_projection_row_for_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, share: int | None
) -> None:
    # Small batches, so that both processes decode and plan many batches each: half and half in a
    # fixed pattern, or as the writer's acknowledgements decide (None).
    monkeypatch.setattr(projection_module, "REPLAY_BATCH", 37)
    monkeypatch.setattr(replay_reader, "READER_SHARE", share)
    one = tmp_path / "one"
    quarantined = _random_log(one / "ops", seed)
    lines = [json.dumps({"part": p, "offset": o, "op": "?"}) for p, o in quarantined]
    (one / projection_module.QUARANTINE_FILE).write_text("\n".join(lines) + "\n")
    two = _copy_log(one, tmp_path / "two")
    again = _copy_log(one, tmp_path / "again")
    used: list[bool] = []
    real = replay_reader.replay_in_two_processes

    def spy(*args: Any) -> int:
        used.append(True)
        return real(*args)

    monkeypatch.setattr(replay_reader, "replay_in_two_processes", spy)
    sequential = _build(one, False, monkeypatch)
    parallel = _build(two, True, monkeypatch)
    assert used == [True]
    assert differences(str(sequential), str(parallel)) == []
    assert differences(str(parallel), str(_build(again, True, monkeypatch))) == []
    # The log really has every kind of line the replay treats differently.
    db = Projection(two, OpLog(two, "zed@x", "zzzzzz")).db
    statuses = {row[0] for row in db.execute("SELECT DISTINCT status FROM records")}
    assert {"active", "invalidated", "superseded", "archived"} <= statuses
    assert db.execute("SELECT count(*) FROM forgotten").get > 0
    assert db.execute("SELECT count(*) FROM store_writes").get > 0
    assert db.execute("SELECT count(*) FROM skipped").get > 0
    assert db.execute("SELECT count(*) FROM records WHERE author=?", ('d"an\\x@x',)).get > 0
    # The full-text index, built beside the rest and copied in, is whole and answers.
    db.execute("INSERT INTO records_fts(records_fts) VALUES('integrity-check')")
    hits = db.execute("SELECT count(*) FROM records_fts WHERE records_fts MATCH 'retry'").get
    where = " OR ".join(f"{c} LIKE '%retry%'" for c in ("text", "description", "tags"))
    assert hits == db.execute(f"SELECT count(*) FROM records WHERE {where}").get > 0


def test_the_check_sees_a_changed_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = _twin_logs(tmp_path, 4, 80)
    first = _build(one, False, monkeypatch)
    second = _build(two, True, monkeypatch)
    assert differences(str(first), str(second)) == []
    db = Projection(two, OpLog(two, "zed@x", "zzzzzz")).db
    db.execute("UPDATE records SET hits = hits + 1 WHERE rowid = 7")
    db.close()
    assert [d.split(":")[0] for d in differences(str(first), str(second))] == ["records"]


def _rebuild_calls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each rebuild from now on was asked to replay in two processes, in order."""
    calls: list[bool] = []
    real = Projection._rebuild_from

    def spy(self: Projection, reason: str, parts: Any, sizes: Any, parallel: bool) -> Any:
        calls.append(parallel)
        return real(self, reason, parts, sizes, parallel)

    monkeypatch.setattr(Projection, "_rebuild_from", spy)
    return calls


def _line(op: Op) -> bytes:
    return op.to_line()


@pytest.mark.parametrize("twist", ["duplicate clock", "broken tail"])
def test_a_line_whose_start_misleads_falls_back_to_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, twist: str
) -> None:
    """A line that starts like a canonical op but decodes to another place (a second "clock" key
    at its end wins in JSON) or not at all: the two-process replay stops and the
    one-process replay runs, so the result is the same."""
    monkeypatch.setattr(projection_module, "REPLAY_BATCH", 5)
    one = tmp_path / "one"
    _random_log(one / "ops", 5, count=60)
    path = one / "ops" / "ada@x.aaaaaa.jsonl"
    rid = "01JODD0000000000000000000"
    last = OpLog(one, "ada@x", "aaaaaa").last_op("ada@x.aaaaaa")
    assert last is not None
    odd = make_op("add", rid, {"record": record(rid, "odd")}, part="ada@x.aaaaaa",
                  clock=last.clock + 1, prev=last.id)  # fmt: skip
    line = _line(odd)[:-2]
    later = f',"clock":{last.clock + 50}}}\n'.encode()
    line += later if twist == "duplicate clock" else b',"clock"\n'
    path.write_bytes(path.read_bytes() + line)
    two = _copy_log(one, tmp_path / "two")
    calls = _rebuild_calls(monkeypatch)
    sequential = _build(one, False, monkeypatch)
    assert calls == [False]
    parallel = _build(two, True, monkeypatch)
    assert calls == [False, True, False]
    assert differences(str(sequential), str(parallel)) == []
    db = Projection(two, OpLog(two, "zed@x", "zzzzzz")).db
    found = db.execute("SELECT count(*) FROM records WHERE id=?", (rid,)).get
    assert found == (1 if twist == "duplicate clock" else 0)


def test_a_reader_that_cannot_start_leaves_the_replay_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _twin_logs(tmp_path, 6, 80)
    sequential = _build(one, False, monkeypatch)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    parallel = _build(two, True, monkeypatch)
    assert differences(str(sequential), str(parallel)) == []
    assert not list(two.glob("index.sqlite.*.tmp*"))  # the abandoned file is gone


def test_a_clock_going_back_is_skipped_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A partition whose clock goes back (edited by hand) once made the merge wait forever for
    the partitions to catch up; that op is now skipped and reported, in both replays alike."""
    one = tmp_path / "one"
    ops = [make_op("add", f"01JBACK{i:018d}", {"record": record(f"01JBACK{i:018d}", f"n {i}")},
                   clock=c) for i, c in enumerate([1, 5, 3, 7])]  # fmt: skip
    (one / "ops").mkdir(parents=True)
    (one / "ops" / "ada@example.com.aaaaaa.jsonl").write_bytes(b"".join(o.to_line() for o in ops))
    two = _copy_log(one, tmp_path / "two")
    sequential = _build(one, False, monkeypatch)
    parallel = _build(two, True, monkeypatch)
    assert differences(str(sequential), str(parallel)) == []
    projection = Projection(two, OpLog(two, "zed@x", "zzzzzz"))
    assert [r[0] for r in projection.db.execute("SELECT id FROM records ORDER BY rowid")] == [
        ops[0].target,
        ops[1].target,
        ops[3].target,
    ]
    issues = projection.rebuild("again").issues
    assert [(i.op_id, i.problem) for i in issues] == [(ops[2].id, projection_module.CLOCK_BACK)]


def test_a_reader_that_dies_leaves_the_replay_to_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that writes half a frame and exits non-zero: the rebuild falls back, whole."""
    one, two = _twin_logs(tmp_path, 7, 80)
    sequential = _build(one, False, monkeypatch)
    fake = tmp_path / "dying-python"
    fake.write_text("#!/bin/sh\nprintf '\\377\\0\\0\\0\\0\\0\\0\\0abc'\necho dying >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake))
    calls = _rebuild_calls(monkeypatch)
    parallel = _build(two, True, monkeypatch)
    assert calls == [True, False]
    assert differences(str(sequential), str(parallel)) == []


def test_the_split_sends_a_batch_undecoded_only_when_no_frame_waits() -> None:
    """The reader plans a batch itself while the writer has a frame waiting; when none waits (the
    writer is about to run out of work), it sends the batch undecoded, which takes it no time."""
    import os

    read_end, write_end = os.pipe()
    try:
        split = replay_reader.Split(read_end, 1, None)
        assert split.raw(0)  # nothing sent yet: the writer waits for this one
        assert not split.raw(1)  # frame 0 not started: the writer has work, plan this one
        os.write(write_end, b"+")  # the writer starts frame 0; frame 1 still waits
        assert not split.raw(2)
        os.write(write_end, b"++")  # frames 1 and 2 started: nothing waits
        assert split.raw(3)
        assert not split.raw(4)  # frame 3 waits
    finally:
        os.close(read_end)
        os.close(write_end)
    fixed = replay_reader.Split(-1, 1, 7)
    assert [n for n in range(20) if fixed.raw(n)] == [3, 6, 9, 13, 16, 19]


@pytest.mark.parametrize("parallel", [True, False])
def test_the_rebuild_runs_with_its_cache_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    """The replay runs with the large page cache and the end with the small one, in both replays.
    (The pragmas were once one string: `journal_mode` answers a row, and what followed never ran.)"""
    import anchors.rebuild_end as rebuild_end

    one = tmp_path / "one"
    _random_log(one / "ops", 8, count=40)
    seen: list[tuple[str, Any, Any]] = []
    real_replay, real_reindex = Projection._replay, Projection._reindex
    real_finish = rebuild_end.finish_concurrently

    def replay(self: Projection, db: Any, *args: Any, **kwargs: Any) -> int:
        seen.append(("replay", db.execute("PRAGMA cache_size").get,
                     db.execute("PRAGMA journal_mode").get))  # fmt: skip
        return real_replay(self, db, *args, **kwargs)

    def reindex(self: Projection, db: Any, touched: Any) -> None:
        seen.append(("end", db.execute("PRAGMA cache_size").get, "one connection"))
        real_reindex(self, db, touched)

    def finish(db: Any, *args: Any) -> bool:
        seen.append(("end", db.execute("PRAGMA cache_size").get, "two connections"))
        return real_finish(db, *args)

    monkeypatch.setattr(Projection, "_replay", replay)
    monkeypatch.setattr(Projection, "_reindex", reindex)
    monkeypatch.setattr(rebuild_end, "finish_concurrently", finish)
    _build(one, parallel, monkeypatch)
    assert seen == [
        ("replay", -projection_module.REBUILD_CACHE_KIB, "off"),
        ("end", -projection_module.END_CACHE_KIB,
         "two connections" if parallel else "one connection"),
    ]  # fmt: skip
    assert not list(one.glob("index.sqlite.*"))  # neither the rebuilt file nor the full-text one


def test_a_full_text_build_that_fails_fails_the_rebuild_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anchors.rebuild_end as rebuild_end

    one = tmp_path / "one"
    _random_log(one / "ops", 9, count=60)

    def broken(path: Path, aux: Path, cache_kib: int, failures: list[BaseException]) -> None:
        aux.write_bytes(b"half")
        failures.append(OSError("disk full"))

    monkeypatch.setattr(rebuild_end, "_build_full_text", broken)
    with pytest.raises(OSError, match="disk full"):
        _build(one, True, monkeypatch)
    assert sorted(p.name for p in one.iterdir()) == ["ops", "rebuild.lock"]


def test_the_end_is_built_in_one_connection_where_wal_cannot_be_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without WAL a second connection reading the records would stall the writer: the concurrent
    end declines (an in-memory database has no WAL) and the rebuild builds the end itself."""
    import apsw

    import anchors.rebuild_end as rebuild_end

    memory = apsw.Connection(":memory:")
    assert rebuild_end.finish_concurrently(memory, tmp_path / "x.sqlite", [], 1024) is False
    assert not list(tmp_path.iterdir())  # nothing started, nothing written
    one, two = _twin_logs(tmp_path, 10, 80)
    sequential = _build(one, False, monkeypatch)
    declined: list[bool] = []

    def decline(*args: Any) -> bool:
        declined.append(True)
        return False

    monkeypatch.setattr(rebuild_end, "finish_concurrently", decline)
    parallel = _build(two, True, monkeypatch)
    assert declined == [True]
    assert differences(str(sequential), str(parallel)) == []
