"""The op-log: deterministic replay, torn lines, tampering, concurrent writers and crashes."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from anchors.memory import Memory
from anchors.oplog import OpLog
from anchors.projection import Projection
from tests.conftest import RunTether
from tests.core_helpers import dump, make_op, record, write_partition


def _three_authors() -> list:
    """Interleaved ops from three partitions, with causal clocks, touching shared records."""
    parts = ["ada@x.aaaaaa", "bob@x.bbbbbb", "cy@x.cccccc"]
    prev = dict.fromkeys(parts, "")
    ops = []
    clock = 0
    rng = random.Random(7)
    ids: list[str] = []
    for i in range(60):
        part = rng.choice(parts)
        clock += rng.choice([0, 1]) if ops else 1  # equal clocks across authors happen
        clock = max(clock, 1)
        if not ids or rng.random() < 0.4:
            rid = f"01J{i:023d}"
            op = make_op("add", rid, {"record": record(rid, f"note {i} about retries")}, part=part,
                         clock=clock, prev=prev[part])  # fmt: skip
            ids.append(rid)
        else:
            rid = rng.choice(ids)
            kind = rng.choice(
                ["reinforce", "invalidate", "promote", "archive", "restore", "update"]
            )
            payload = {"reinforce": {}, "promote": {}, "restore": {},
                       "invalidate": {"reason": f"r{i}"}, "archive": {"reason": f"a{i}"},
                       "update": {"fields": {"text": f"edited {i}"}}}[kind]  # fmt: skip
            op = make_op(kind, rid, payload, part=part, clock=clock + 1, prev=prev[part])
            clock += 1
        # keep per-partition clocks strictly increasing
        ops.append(op)
        prev[part] = op.id
        clock = op.clock
    return ops


def test_replay_is_deterministic_whatever_the_arrival_order(tmp_path: Path) -> None:
    ops = _three_authors()
    dumps = []
    for trial in range(4):
        tether = tmp_path / f"t{trial}"
        parts = sorted({op.part for op in ops})
        random.Random(trial).shuffle(parts)
        projection = None
        # Partitions arrive one at a time, in a different order each trial, refreshing in between
        # (incremental where possible, rebuild when an op arrives out of order).
        for part in parts:
            write_partition(tether / "ops", [op for op in ops if op.part == part])
            if projection is None:
                projection = Projection(tether, OpLog(tether, "zed@x", "zzzzzz"))
            else:
                # Older ops arriving late refold only the records they touch: no full rebuild.
                assert not projection.refresh().rebuilt
        assert projection is not None
        dumps.append(dump(projection))
    at_once = tmp_path / "at-once"
    write_partition(at_once / "ops", ops)
    dumps.append(dump(Projection(at_once, OpLog(at_once, "zed@x", "zzzzzz"))))
    assert all(d == dumps[0] for d in dumps[1:])
    assert len(dumps[0]) > 0


def test_incremental_apply_matches_rebuild(repo: Path) -> None:
    mem = Memory.open(repo)
    a = mem.add("alpha retries", category="pattern", tags=["pay"])
    b = mem.add("beta cache is per process", category="architecture")
    mem.reinforce(a.id)
    mem.supersede(b.id, "beta cache is shared through redis")
    mem.forget(a.id)
    incremental = dump(mem.projection)
    assert mem.projection.rebuild().rebuilt
    mem.projection.db = mem.projection._connect(mem.projection.path)
    assert dump(mem.projection) == incremental


def test_garbage_projection_is_rebuilt(repo: Path, run_tether: RunTether) -> None:
    assert run_tether(["add", "keep me", "--category", "general"], repo).returncode == 0
    index = repo / ".git" / "tether" / "index.sqlite"
    index.write_bytes(os.urandom(4096))
    listed = run_tether(["list", "--json"], repo)
    assert listed.returncode == 0, listed.stderr
    assert [r["text"] for r in json.loads(listed.stdout)] == ["keep me"]


def test_torn_last_line_is_moved_aside_and_the_log_verifies(
    repo: Path, run_tether: RunTether
) -> None:
    assert run_tether(["add", "first"], repo).returncode == 0
    mem = Memory.open(repo)
    path = mem.oplog.path_of(mem.oplog.part)
    with open(path, "ab") as fh:
        fh.write(b'{"id":"abc","type":"add","tar')  # a writer died here
    verify = run_tether(["log", "--verify"], repo)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert run_tether(["add", "second"], repo).returncode == 0
    listed = json.loads(run_tether(["list", "--json"], repo).stdout)
    assert sorted(r["text"] for r in listed) == ["first", "second"]
    torn = list((repo / ".git" / "tether" / "torn").iterdir())
    assert torn and torn[0].read_bytes().startswith(b'{"id":"abc"')


def test_one_changed_byte_fails_verify_and_names_the_op(repo: Path, run_tether: RunTether) -> None:
    for text in ["one", "two", "three"]:
        assert run_tether(["add", f"learning {text}"], repo).returncode == 0
    mem = Memory.open(repo)
    path = mem.oplog.path_of(mem.oplog.part)
    lines = path.read_bytes().splitlines(keepends=True)
    bad_id = lines[1][7:71].decode()
    lines[1] = lines[1].replace(b"learning two", b"learning tw0")
    path.write_bytes(b"".join(lines))
    result = run_tether(["log", "--verify"], repo)
    assert result.returncode == 1
    assert bad_id[:16] in result.stdout and "line 2" in result.stdout
    doc = json.loads(run_tether(["log", "--verify", "--json"], repo).stdout)
    assert doc["verify"]["ok"] is False and doc["verify"]["issues"][0]["op_id"] == bad_id


WRITER = textwrap.dedent(
    """
    import sys, uuid
    from anchors.memory import Memory
    mem = Memory.open(sys.argv[1])
    for i in range(int(sys.argv[3])):
        words = " ".join(uuid.uuid4().hex for _ in range(3))
        rec = mem.add(f"{words} from writer {sys.argv[2]}", category="general")
        print(rec.id, flush=True)
    """
)


def test_eight_concurrent_writers_lose_nothing(repo: Path, run_tether: RunTether) -> None:
    (repo / ".tether").mkdir()
    (repo / ".tether" / "config.toml").write_text("[learnings]\ncap_per_category = 5000\n")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(repo), str(w), "250"],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for w in range(8)
    ]
    acked = set()
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0
        acked.update(out.split())
    assert len(acked) == 2000
    mem = Memory.open(repo)
    ops = list(mem.oplog.merged())
    assert len(ops) == 2000
    assert {op.target for op in ops} == acked
    assert len({op.clock for op in ops}) == 2000  # the lock serialised every append
    assert mem.oplog.verify().ok
    assert len(mem.list()) == 2000


def test_sigkill_mid_stream_keeps_every_acknowledged_op(repo: Path) -> None:
    Memory.open(repo)  # create the tether dir before the race
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(repo), "k", "100000"],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None
    acked = []
    deadline = time.time() + 60
    while len(acked) < 40 and time.time() < deadline:
        acked.append(proc.stdout.readline().strip())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    acked = [a for a in acked if a]
    mem = Memory.open(repo)
    assert mem.oplog.verify().ok
    present = {op.target for op in mem.oplog.merged()}
    assert set(acked) <= present
    assert len(mem.list()) == len(present)


def test_replay_order_merges_partitions_like_a_full_sort() -> None:
    from anchors.projection import in_replay_order

    rng = random.Random(3)
    streams = []
    for p in range(7):
        clock, entries = 0, []
        for n in range(rng.randint(0, 400)):
            clock += rng.choice([1, 1, 2, 50])  # gaps and equal clocks across partitions
            entries.append((clock, f"part{p}", f"{n:064x}", n, None))
        streams.append(entries)
    runs = list(in_replay_order([iter(s) for s in streams], chunk=16))
    merged = [entry for run in runs for entry in run]
    assert merged == sorted(entry for s in streams for entry in s)
    assert len(runs) > 1


def test_a_rebuild_never_replaces_a_projection_others_have_open(repo: Path) -> None:
    # Renaming a database over one that other connections use in WAL mode, or deleting its -wal
    # and -shm, is how SQLite files get corrupted: a rebuild must write through SQLite instead.
    first = Memory.open(repo)
    first.add("kept while another process rebuilds", category="general")
    index = repo / ".git" / "tether" / "index.sqlite"
    inode = index.stat().st_ino
    other = Projection(first.tether_dir, OpLog(first.tether_dir, "zed@x", "zzzzzz"))
    assert other.rebuild("forced").rebuilt
    assert index.stat().st_ino == inode
    first.add("written after the rebuild", category="general")
    texts = sorted(r.text for r in Memory.open(repo).list())
    assert texts == ["kept while another process rebuilds", "written after the rebuild"]
    assert first.projection.db.execute("PRAGMA integrity_check").get == "ok"
