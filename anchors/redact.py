"""Redaction: what `tether gc` does to the ops of forgotten learnings.

`forget` appends a tombstone; the learning's earlier ops still hold its words. Redaction rewrites each
of those lines in place with its prose replaced by a marker, keeping everything replay and the hash
chain need: the same id, clock, partition, `prev`, type and target, and a payload that still
validates (a redacted add still creates its record, so a later supersede or forget replays exactly as
before). A redacted line no longer matches its own hash, so it carries `"redacted": true` in its
payload, and it is accepted only where the log also holds the tombstone that justifies it: anyone can
drop words from a forgotten learning, nobody can change a living one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from anchors.operations import Op, OpError, canonical, parse_line

MARK = "[redacted]"
_PROSE = ("text", "description", "change_condition", "status_reason")
_LISTS = ("tags", "evidence")


def record_of(op: Op) -> str:
    """The record whose words an op holds: its target, or the record a supersede creates."""
    if op.type == "supersede":
        record = op.payload.get("record")
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            return record["id"]
    return op.target


def is_redacted(op: Op) -> bool:
    return op.payload.get("redacted") is True


def _redact_record(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    for key in _PROSE:
        if out.get(key):
            out[key] = MARK
    for key in _LISTS:
        if out.get(key):
            out[key] = []
    out["text"] = MARK
    return out


def redacted_payload(op: Op) -> dict[str, Any] | None:
    """The payload with its words replaced, or None when it holds none."""
    payload = op.payload
    if op.type in ("add", "supersede"):
        record = payload.get("record")
        if not isinstance(record, dict):
            return None
        return {**payload, "record": _redact_record(record), "redacted": True}
    if op.type == "update":
        fields = dict(payload.get("fields") or {})
        for key in fields:
            if key in _PROSE:
                fields[key] = MARK
            elif key in _LISTS:
                fields[key] = []
        return {**payload, "fields": fields, "redacted": True}
    if isinstance(payload.get("reason"), str) and payload["reason"]:
        return {**payload, "reason": MARK, "redacted": True}
    return None


def redact_line(line: bytes, forgotten: set[str]) -> bytes | None:
    """The redacted form of one partition line (without its newline), or None to keep it as is.

    Only ops whose words belong to a forgotten record are redacted; a supersede of a forgotten
    record keeps its payload, which is the replacement's words, not the forgotten one's.
    """
    try:
        op = parse_line(line, verify=False)
    except OpError:
        return None
    if op.type == "forget" or is_redacted(op):
        return None
    if op.type == "supersede":
        if record_of(op) not in forgotten:
            return None
    elif op.target not in forgotten:
        return None
    payload = redacted_payload(op)
    if payload is None:
        return None
    op.payload = payload
    body = canonical(op.body())
    return b'{"id":"' + op.id.encode() + b'",' + body[1:]


def forgotten_in(lines: Iterable[bytes]) -> set[str]:
    """The targets of the forget ops among `lines` whose hash is intact."""
    out: set[str] = set()
    for line in lines:
        if b'"type":"forget"' not in line:
            continue
        try:
            op = parse_line(line, verify=True)
        except OpError:
            continue
        if op.type == "forget":
            out.add(op.target)
    return out


def same_op_or_redaction(a: bytes, b: bytes) -> int:
    """Compare two copies of one partition line. 0: identical; 1: `a` is the redaction of `b`;
    -1: `b` is the redaction of `a`. Raises OpError when they are not the same op."""
    if a == b:
        return 0
    if a[:71] != b[:71]:  # '{"id":"' + 64 hex digits: another op altogether
        raise OpError("different ops at the same place")
    if _redacts(a, b):
        return 1
    if _redacts(b, a):
        return -1
    raise OpError(f"op {a[7:19].decode('ascii', 'replace')} differs between the two copies")


def _redacts(redacted: bytes, original: bytes) -> bool:
    """Whether `redacted` is exactly the redaction of `original`, an intact op (its hash holds)."""
    try:
        op = parse_line(original, verify=True)
    except OpError:
        return False
    return redact_line(original, {op.target, record_of(op)}) == redacted
