"""The writing end of a full replay (`anchors.replay_write`): updates held back and run in bulk
give the projection that running every statement where the plan puts it gives, row for row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import anchors.projection as projection_module
import anchors.replay_write as replay_write
from anchors.apply import APPLIERS, SINGLE, Plan, run_plan
from anchors.oplog import OpLog
from anchors.projection import Projection
from bench.core.compare import differences
from tests.core_helpers import make_op, record, write_partition
from tests.test_replay_parallel import _copy_log, _random_log

PART = "ada@x.aaaaaa"
RID = "01J0000000000000000000000R"


def _as_planned(self: replay_write.PlanWriter, plan: Plan, clock: int | None = None) -> None:
    """The reference: every statement where the plan puts it, nothing held back."""
    run_plan(self.db, plan)


def _build(tether: Path, monkeypatch: pytest.MonkeyPatch, *, hold: bool, parallel: bool) -> Path:
    monkeypatch.setattr(projection_module, "PARALLEL_MIN_BYTES", 0 if parallel else 1 << 62)
    with monkeypatch.context() as patch:
        if hold:
            # Tiny holds and stretches: many runs of held updates, many stretches each.
            patch.setattr(replay_write, "HOLD_UPDATES", 11)
            patch.setattr(replay_write, "STRETCH", 3)
        else:
            patch.setattr(replay_write.PlanWriter, "run", _as_planned)
        (tether / "index.sqlite").unlink(missing_ok=True)
        Projection(tether, OpLog(tether, "zed@x", "zzzzzz")).db.close()
    return tether / "index.sqlite"


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_held_updates_give_the_projection_of_the_plan_as_it_comes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setattr(projection_module, "REPLAY_BATCH", 29)
    one = tmp_path / "one"
    _random_log(one / "ops", seed, count=500)
    two = _copy_log(one, tmp_path / "two")
    reference = _build(one, monkeypatch, hold=False, parallel=False)
    assert (
        differences(str(reference), str(_build(two, monkeypatch, hold=True, parallel=False))) == []
    )
    # The two-process replay writes through the same writer (its reading process holds nothing).
    assert (
        differences(str(reference), str(_build(two, monkeypatch, hold=True, parallel=True))) == []
    )


def test_a_record_created_again_sees_only_its_own_updates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An update before the record exists changes nothing; one before a forget is gone with it; a
    # record added again after its forget starts afresh. Each of these updates is held when the
    # insert or delete about the same record comes, within a batch and across batches.
    monkeypatch.setattr(projection_module, "REPLAY_BATCH", 2)
    monkeypatch.setattr(replay_write, "HOLD_UPDATES", 1_000)
    texts = {"text": "edited before it existed"}
    steps: list[tuple[str, dict[str, Any]]] = [
        ("update", {"fields": texts}),
        ("add", {"record": record(RID, "first life")}),
        ("reinforce", {}),
        ("update", {"fields": {"text": "edited in its first life"}}),
        ("forget", {}),
        ("reinforce", {}),
        ("add", {"record": record(RID, "second life")}),
        ("mark-stale", {"reason": "moved"}),
    ]
    ops, prev = [], ""
    for clock, (op_type, payload) in enumerate(steps, start=1):
        op = make_op(op_type, RID, payload, part=PART, clock=clock, prev=prev)
        ops.append(op)
        prev = op.id
    tether = tmp_path / "t"
    write_partition(tether / "ops", ops)
    (tether / "index.sqlite").unlink(missing_ok=True)
    projection = Projection(tether, OpLog(tether, "zed@x", "zzzzzz"))
    row = projection.db.execute("SELECT text, hits, status FROM records WHERE id=?", (RID,)).get
    assert row == ("second life", 0, "stale")
    reference = tmp_path / "reference"
    _copy_log(tether, reference)
    assert (
        differences(
            str(tether / "index.sqlite"),
            str(_build(reference, monkeypatch, hold=False, parallel=False)),
        )
        == []
    )


def test_statement_shapes_are_what_the_writer_relies_on() -> None:
    # Held updates are recognised by their start and keyed by their last value; any other statement
    # about a record starts with its id (see anchors.apply).
    anchors = [{"path": "a.py", "span": [1, 2]}]
    payloads: dict[str, dict[str, Any]] = {
        "add": {"record": record(RID)},
        "update": {"fields": {"text": "new", "tags": ["t"]}},
        "reinforce": {},
        "confirm": {"anchors": anchors},
        "invalidate": {"reason": "wrong"},
        "supersede": {"record": record("01J0000000000000000000000S")},
        "reanchor": {"anchors": anchors},
        "mark-stale": {"reason": "moved"},
        "promote": {},
        "archive": {"reason": "cap"},
        "restore": {},
        "forget": {},
        "store-write": {"store": "profile", "sha256": "0" * 64},
    }
    assert set(payloads) == set(APPLIERS)
    for op_type, payload in payloads.items():
        op = make_op(op_type, RID, payload)
        statements, ids = APPLIERS[op_type](op)
        if op_type in SINGLE:
            assert statements == [SINGLE[op_type](op)] and ids == (RID,)
        for sql, params in statements:
            if sql.startswith(replay_write.UPDATE):
                assert params[-1] == RID and sql.endswith("WHERE id=?")
            elif "records" in sql:
                # inserts and deletes of records: the record created or removed comes first
                assert params[0] in (RID, "01J0000000000000000000000S"), sql


@pytest.mark.parametrize("parallel", [False, True])
def test_a_rebuilt_file_is_synced_whole_before_it_is_put_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    monkeypatch.setattr(projection_module, "PARALLEL_MIN_BYTES", 0 if parallel else 1 << 62)
    tether = tmp_path / "t"
    _random_log(tether / "ops", 8, count=60)
    events: list[str] = []
    real_sync, real_replace, real_replay = (
        projection_module.fsync_path, projection_module.os.replace, Projection._replay,
    )  # fmt: skip

    def replay(self: Projection, db: Any, *args: Any, **kwargs: Any) -> int:
        events.append(f"synchronous={db.execute('PRAGMA synchronous').get}")
        return real_replay(self, db, *args, **kwargs)

    def sync(path: Path) -> None:
        events.append(f"sync {path.name}")
        real_sync(path)

    def replace(src: Any, dst: Any) -> None:
        events.append(f"replace {Path(src).name} -> {Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(Projection, "_replay", replay)
    monkeypatch.setattr(projection_module, "fsync_path", sync)
    monkeypatch.setattr(projection_module.os, "replace", replace)
    Projection(tether, OpLog(tether, "zed@x", "zzzzzz")).db.close()
    tmp = [e.split()[1] for e in events if e.startswith("sync ")]
    # Written without syncs; a large rebuild starts syncing the replay's pages as its end begins;
    # the whole file is synced after its last write and before the rename.
    syncs = [f"sync {tmp[0]}"] * (2 if parallel else 1)
    assert events == ["synchronous=0", *syncs, f"replace {tmp[0]} -> index.sqlite"]


def test_over_the_tail_of_the_log_nothing_is_held_across_batches() -> None:
    import apsw

    from anchors.projection_schema import SCHEMA

    db = apsw.Connection(":memory:")
    db.execute(SCHEMA)
    db.execute("INSERT INTO records(id, text, hits) VALUES (?, 'words', 0)", (RID,))
    writer = replay_write.PlanWriter(db, hold=1_000, last_clock=100)
    reinforce = "UPDATE records SET hits=hits+1, updated_at=? WHERE id=?"
    writer.run([[(reinforce, [("t", RID)])]], 50)
    assert writer.held == 1  # held: far from the end of the log
    assert db.execute("SELECT hits FROM records").get == 0
    writer.run([[(reinforce, [("t", RID)])]], 96)  # within the last 5% of the clocks
    assert writer.held == 0
    assert db.execute("SELECT hits FROM records").get == 2
    writer.run([[(reinforce, [("t", RID)])]], 97)
    assert (writer.held, db.execute("SELECT hits FROM records").get) == (0, 3)
