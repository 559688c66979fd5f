"""Every op type: serialisation round-trip, validation, and what it does to the projection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchors.memory import Memory
from anchors.operations import OP_TYPES, Op, OpError, canonical, parse_line, validate
from anchors.oplog import OpLog
from anchors.projection import Projection
from tests.core_helpers import make_op, record, write_partition

RID = "01J0000000000000000000000A"
NEW = "01J0000000000000000000000B"
ANCHOR = {
    "path": "pay.py", "symbol": "Client.charge", "span": [3, 9], "language": "python",
    "fingerprint": {"body": "b1"}, "commit": "abc", "kind": "method", "dirty": False,
}  # fmt: skip

# One valid payload per op type, and what the target record looks like after it applies.
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "add": ({"record": record(RID)}, {"status": "active", "text": "retries must stay idempotent"}),
    "update": (
        {"fields": {"text": "new words", "tags": ["pay"]}},
        {"text": "new words", "tags": ["pay"]},
    ),
    "reinforce": ({}, {"hits": 1}),
    "confirm": ({"anchors": [ANCHOR]}, {"anchors": [ANCHOR]}),
    "invalidate": (
        {"reason": "gateway fixed"},
        {"status": "invalidated", "status_reason": "gateway fixed"},
    ),
    "supersede": (
        {"record": record(NEW, "retries are safe now")},
        {"status": "superseded", "superseded_by": NEW},
    ),
    "reanchor": ({"anchors": [ANCHOR], "reason": "moved"}, {"anchors": [ANCHOR]}),
    "mark-stale": ({"reason": "body changed"}, {"status": "stale"}),
    "promote": ({}, {"layer": "L1"}),
    "archive": ({"reason": "cap"}, {"status": "archived"}),
    "restore": ({}, {"status": "active"}),
    "forget": ({}, {}),
    "store-write": ({"store": "blueprint", "name": "BLUEPRINT.md", "sha256": "ab" * 32}, {}),
}


def test_every_op_type_has_a_case() -> None:
    assert set(CASES) == set(OP_TYPES)


@pytest.mark.parametrize("op_type", OP_TYPES)
def test_round_trip(op_type: str) -> None:
    payload, _ = CASES[op_type]
    op = make_op(op_type, RID, payload, clock=7, prev="f" * 64)
    line = op.to_line()
    back = parse_line(line)
    assert back.to_dict() == op.to_dict()
    assert back.to_line() == line
    validate(back)
    # The canonical encoding does not depend on key order.
    shuffled = dict(reversed(list(op.body().items())))
    assert canonical(shuffled) == canonical(op.body())


@pytest.mark.parametrize("op_type", OP_TYPES)
def test_apply(tmp_path: Path, op_type: str) -> None:
    payload, expected = CASES[op_type]
    part = "ada@example.com.aaaaaa"
    ops = [make_op("add", RID, {"record": record(RID)}, part=part, clock=1)]
    if op_type == "restore":
        ops.append(make_op("archive", RID, {"reason": "x"}, part=part, clock=2, prev=ops[-1].id))
    if op_type != "add":
        ops.append(make_op(op_type, RID, payload, part=part, clock=len(ops) + 1, prev=ops[-1].id))
    tether = tmp_path / "tether"
    write_partition(tether / "ops", ops)
    projection = Projection(tether, OpLog(tether, "ada@example.com", "aaaaaa"))
    got = projection.get(RID)
    if op_type == "forget":
        assert got is None and projection.is_forgotten(RID)
        return
    assert got is not None
    data = got.to_dict()
    for key, value in expected.items():
        assert data[key] == value, key
    if op_type == "supersede":
        new = projection.get(NEW)
        assert new is not None and new.supersedes == RID and new.status == "active"


@pytest.mark.parametrize(
    ("op_type", "payload", "message"),
    [
        ("add", {"record": record(RID, text="")}, "text is empty"),
        ("add", {"record": record(RID, category="gossip")}, "unknown category"),
        ("add", {"record": record(NEW)}, "differs from the op target"),
        ("update", {"fields": {"status": "active"}}, "cannot be updated"),
        ("update", {"fields": {}}, "non-empty"),
        ("invalidate", {}, "reason"),
        ("reanchor", {"anchors": [{"symbol": "x"}]}, "anchors"),
        ("supersede", {"record": record(RID)}, "itself"),
        ("teleport", {}, "unknown op type"),
    ],
)
def test_validation_names_the_problem(op_type: str, payload: dict[str, Any], message: str) -> None:
    with pytest.raises(OpError, match=message):
        validate(make_op(op_type, RID, payload))


def test_one_changed_byte_breaks_the_hash() -> None:
    line = make_op("add", RID, {"record": record(RID)}).to_line()
    tampered = line.replace(b"idempotent", b"idempotenT")
    with pytest.raises(OpError, match="does not match its hash"):
        parse_line(tampered)
    parse_line(tampered, verify=False)  # still readable when the caller chose not to verify


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"id":"ab","type":"add"}', "lacks a field: 'target'"),
        (
            b'{"id":"ab","type":"add","target":"x","author":"a","part":"p","clock":"1",'
            b'"time":"t","prev":"","payload":{}}',
            "wrong type",
        ),
        (
            b'{"id":"ab","type":"add","target":"x","author":"a","part":"p","clock":true,'
            b'"time":"t","prev":"","payload":{}}',
            "wrong type",
        ),
        (
            b'{"id":"ab","type":"add","target":"x","author":"a","part":"p","clock":1,'
            b'"time":"t","prev":"","payload":[]}',
            "wrong type",
        ),
        (b'["not", "an", "op"]', "not an op line"),
        (b'{"id":"ab","type":', "not valid JSON"),
    ],
)
def test_unverified_parse_still_refuses_malformed_lines(line: bytes, message: str) -> None:
    with pytest.raises(OpError, match=message):
        parse_line(line, verify=False)


def test_a_second_id_inside_a_verified_line_is_refused() -> None:
    import hashlib

    op = make_op("add", RID, {"record": record(RID)})
    # A body that carries its own "id", hashed correctly: JSON's last duplicate key would win.
    body = canonical({**op.body(), "id": "0" * 64})
    claimed = hashlib.sha256(body).hexdigest()
    line = b'{"id":"' + claimed.encode() + b'",' + body[1:] + b"\n"
    with pytest.raises(OpError, match="does not match its hash"):
        parse_line(line)


def test_ops_written_through_memory_validate_and_chain(repo: Path) -> None:
    mem = Memory.open(repo)
    rec = mem.add("the payment client retries on timeout", category="error")
    mem.reinforce(rec.id)
    new = mem.supersede(rec.id, "the payment client no longer retries")
    ops = mem.ops_for(rec.id)
    assert [op.type for op in ops] == ["add", "reinforce", "supersede"]
    assert ops[1].prev == ops[0].id and ops[2].prev == ops[1].id
    assert [op.clock for op in ops] == [1, 2, 3]
    assert mem.get(rec.id).status == "superseded"
    assert mem.get(new.id).supersedes == rec.id
    assert isinstance(ops[0], Op)
