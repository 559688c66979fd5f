"""Operations: the only way memory changes. Each type validates its payload and applies to a projection.

An op is one line of canonical JSON in its author's partition. Its id is the SHA-256 of the canonical
encoding of everything else in it, and `prev` is the id of the partition's previous op, so each
partition is a hash chain: one changed byte breaks it at a nameable op.

Apply functions turn an op into SQL statements over the projection's `records` table (see
`anchors.projection`), so a replay streams ops without holding records in memory.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import orjson

from anchors.record import (
    CATEGORIES,
    KINDS,
    LAYERS,
    MAX_TEXT_CHARS,
    STABILITIES,
    STATUSES,
    STORES,
    Anchor,
    Evidence,
)

OP_TYPES = (
    "add",
    "update",
    "reinforce",
    "confirm",
    "invalidate",
    "supersede",
    "reanchor",
    "mark-stale",
    "promote",
    "archive",
    "restore",
    "forget",
    "store-write",
)

# Fields an `update` op may change; lifecycle fields change only through their own ops.
UPDATABLE: dict[str, type | tuple[type, ...]] = {
    "text": str,
    "description": str,
    "tags": list,
    "category": str,
    "confidence": (int, float),
    "stability": str,
    "importance": (int, float),
    "change_condition": str,
    "review_cadence_days": int,
    "next_review": str,
    "evidence": list,
    "valid_from": str,
    "valid_to": str,
}

_ID_PREFIX = b'{"id":"'


class OpError(ValueError):
    """An op is malformed: bad JSON, a wrong hash, an unknown type or a payload that does not fit."""


def canonical(obj: Any) -> bytes:
    """The one canonical JSON encoding: sorted keys, no whitespace, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(slots=True)
class Op:
    type: str
    target: str  # the record the op is about
    author: str  # git identity (email)
    part: str  # the partition (author key + replica) the op belongs to
    clock: int  # Lamport clock
    time: str  # ISO-8601 UTC, milliseconds
    prev: str  # id of the previous op in the same partition, "" for the first
    payload: dict[str, Any] = field(default_factory=dict)
    id: str = ""

    def body(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "target": self.target,
            "author": self.author,
            "part": self.part,
            "clock": self.clock,
            "time": self.time,
            "prev": self.prev,
            "payload": self.payload,
        }

    def seal(self) -> Op:
        """Compute the id from the canonical body. Returns self."""
        self.id = hashlib.sha256(canonical(self.body())).hexdigest()
        return self

    def to_line(self) -> bytes:
        """`{"id":"…",<canonical body>}`: the id first so verification needs no re-encoding."""
        body = canonical(self.body())
        return _ID_PREFIX + self.id.encode() + b'",' + body[1:] + b"\n"

    @property
    def key(self) -> tuple[int, str, str]:
        """Replay order: Lamport clock, then partition, then id. The same everywhere."""
        return (self.clock, self.part, self.id)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.body()}


_HEAD = len(_ID_PREFIX)


def parse_line(line: bytes, *, verify: bool = True) -> Op:
    """Decode one partition line into an Op, checking its hash when `verify`.

    Without `verify` (replay of lines already verified when they arrived) the whole line is decoded
    as one JSON object, its id included: replay decodes every op of the log, so this path is kept
    to one `orjson.loads` and a few type checks.
    """
    claimed = ""
    if verify:
        if line.endswith(b"\n"):
            line = line[:-1]
        if not line.startswith(_ID_PREFIX) or line[_HEAD + 64 : _HEAD + 66] != b'",':
            raise OpError("not an op line")
        claimed = line[_HEAD : _HEAD + 64].decode("ascii", "replace")
        if hashlib.sha256(b"{" + line[_HEAD + 66 :]).hexdigest() != claimed:
            raise OpError(f"op {claimed[:12]} does not match its hash")
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        head = line[_HEAD : _HEAD + 12].decode("ascii", "replace")
        raise OpError(f"op {head} is not valid JSON: {exc}") from None
    if type(data) is not dict:
        raise OpError("not an op line")
    try:
        # One C call for the nine fields (replay parses every op of the log).
        op_id, typ, target, author, part, clock, time, prev, payload = _get_fields(data)
    except KeyError:
        _field_error(data)
    str_ = str
    if not (
        type(op_id) is str_ and type(typ) is str_ and type(target) is str_
        and type(author) is str_ and type(part) is str_ and type(clock) is int
        and type(time) is str_ and type(prev) is str_ and type(payload) is dict
    ):  # fmt: skip
        _field_error(data)
    if verify and op_id != claimed:
        raise OpError(f"op {claimed[:12]} does not match its hash")
    return Op(typ, target, author, part, clock, time, prev, payload, op_id)


_FIELDS = ("id", "type", "target", "author", "part", "clock", "time", "prev", "payload")
_get_fields = operator.itemgetter(*_FIELDS)


def _field_error(data: dict[str, Any]) -> NoReturn:
    """Raise the OpError of a decoded line lacking a field or with one of the wrong type."""
    op_id = data.get("id")
    name = op_id[:12] if type(op_id) is str else "?"
    missing = [k for k in _FIELDS if k not in data]
    if missing:
        raise OpError(f"op {name} lacks a field: {missing[0]!r}")
    raise OpError(f"op {name} has a field of the wrong type")


# ---------------------------------------------------------------------------------------------
# Validation: one function per op type, raising OpError.


def _need_str(payload: dict[str, Any], key: str, *, allow_empty: bool = False) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise OpError(f"payload.{key} must be a non-empty string")
    return value


_RECORD_STR_CHOICES = {
    "kind": KINDS, "store": STORES, "category": CATEGORIES, "stability": STABILITIES,
    "layer": LAYERS, "status": STATUSES,
}  # fmt: skip


_RECORD_LISTS = frozenset(("tags", "anchors", "evidence"))
_RECORD_CHECKED = frozenset((*_RECORD_STR_CHOICES, *_RECORD_LISTS, "confidence"))


def _validate_record(data: Any, target: str) -> None:
    """Check a record as it travels in an op (a dict), without building the dataclass: replay is
    the hot path, so only the keys the record has are looked at. The same rules as
    `validate_learning`."""
    if not isinstance(data, dict):
        raise OpError("payload.record must be an object")
    if data.get("id") != target:
        raise OpError("payload.record.id differs from the op target")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise OpError("invalid record: text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise OpError(f"invalid record: text is over {MAX_TEXT_CHARS} characters")
    # In the record's own key order, so that a record with two problems is always rejected for the
    # same one (a set's order changes from one process to the next with the string hash seed).
    for key, value in data.items():
        if key not in _RECORD_CHECKED:
            continue
        choices = _RECORD_STR_CHOICES.get(key)
        if choices is not None:
            if value is not None and value not in choices:
                raise OpError(f"invalid record: unknown {key} {value!r}")
        elif key in _RECORD_LISTS:
            if value is None:
                continue
            if not isinstance(value, list):
                raise OpError(f"invalid record: {key} must be a list")
            if key == "anchors":
                for anchor in value:
                    if not isinstance(anchor, dict) or not anchor.get("path"):
                        raise OpError("invalid record: an anchor needs a path")
        elif not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise OpError("invalid record: confidence must be within 0..1")


def _validate_anchors(data: Any) -> None:
    if not isinstance(data, list) or not all(isinstance(a, dict) and a.get("path") for a in data):
        raise OpError("payload.anchors must be a list of anchors with paths")


def _v_add(op: Op) -> None:
    _validate_record(op.payload.get("record"), op.target)


def _v_update(op: Op) -> None:
    fields = op.payload.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise OpError("payload.fields must be a non-empty object")
    for key, value in fields.items():
        kind = UPDATABLE.get(key)
        if kind is None:
            raise OpError(f"field {key!r} cannot be updated")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise OpError(f"field {key!r} has the wrong type")
    if "category" in fields and fields["category"] not in CATEGORIES:
        raise OpError(f"unknown category {fields['category']!r}")
    if "stability" in fields and fields["stability"] not in STABILITIES:
        raise OpError(f"unknown stability {fields['stability']!r}")
    if "text" in fields and not fields["text"].strip():
        raise OpError("text is empty")


def _v_none(op: Op) -> None:
    return None


def _v_reason(op: Op) -> None:
    _need_str(op.payload, "reason")


def _v_confirm(op: Op) -> None:
    if "anchors" in op.payload:
        _validate_anchors(op.payload["anchors"])


def _v_supersede(op: Op) -> None:
    data = op.payload.get("record")
    if not isinstance(data, dict) or not data.get("id"):
        raise OpError("payload.record must be a record with an id")
    _validate_record(data, str(data["id"]))
    if data["id"] == op.target:
        raise OpError("a record cannot supersede itself")


def _v_reanchor(op: Op) -> None:
    _validate_anchors(op.payload.get("anchors"))


def _v_store_write(op: Op) -> None:
    _need_str(op.payload, "store")
    _need_str(op.payload, "sha256")


VALIDATORS: dict[str, Callable[[Op], None]] = {
    "add": _v_add,
    "update": _v_update,
    "reinforce": _v_none,
    "confirm": _v_confirm,
    "invalidate": _v_reason,
    "supersede": _v_supersede,
    "reanchor": _v_reanchor,
    "mark-stale": _v_reason,
    "promote": _v_none,
    "archive": _v_reason,
    "restore": _v_none,
    "forget": _v_none,
    "store-write": _v_store_write,
}


def validate(op: Op) -> None:
    """Raise OpError when the op's type or payload is not valid."""
    validator = VALIDATORS.get(op.type)
    if validator is None:
        raise OpError(f"unknown op type {op.type!r}")
    if not op.target or not isinstance(op.target, str):
        raise OpError("an op needs a target")
    if op.clock < 1:
        raise OpError("an op's clock starts at 1")
    validator(op)


def texts_of(op: Op) -> list[tuple[str, str]]:
    """Every piece of prose an op would write, as (field, text): what the scanner must see."""
    out: list[tuple[str, str]] = []
    records = []
    if op.type in ("add", "supersede"):
        records.append(op.payload.get("record") or {})
    for rec in records:
        for key in ("text", "description", "change_condition", "status_reason"):
            if isinstance(rec.get(key), str) and rec[key]:
                out.append((key, rec[key]))
        for tag in rec.get("tags") or []:
            out.append(("tags", str(tag)))
        for ev in rec.get("evidence") or []:
            if isinstance(ev, dict):
                out.append(("evidence", f"{ev.get('ref', '')} {ev.get('note', '')}".strip()))
    fields = op.payload.get("fields")
    if isinstance(fields, dict):
        for key in ("text", "description", "change_condition"):
            if isinstance(fields.get(key), str):
                out.append((key, fields[key]))
        for tag in fields.get("tags") or []:
            out.append(("tags", str(tag)))
    if isinstance(op.payload.get("reason"), str):
        out.append(("reason", op.payload["reason"]))
    return out


def anchors_from(data: list[dict[str, Any]]) -> list[Anchor]:
    return [Anchor.from_dict(a) for a in data]


def evidence_from(data: list[dict[str, Any]]) -> list[Evidence]:
    return [Evidence.from_dict(e) for e in data]
