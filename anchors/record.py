"""The one record shape shared by every store: a learning, a note, an edge, a procedure, a persona.

Records are plain dataclasses that round-trip through dicts (and so through canonical JSON).
Every field has a default, so a record read from an older op-log still loads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

KINDS = ("fact", "note", "edge", "procedure", "persona")
STORES = ("learning", "notebook", "profile", "blueprint")
CATEGORIES = ("pattern", "security", "architecture", "preference", "error", "general")
STABILITIES = ("volatile", "semi-stable", "stable")
LAYERS = ("L1", "L2", "L3")
STATUSES = ("active", "quarantined", "stale", "superseded", "invalidated", "archived")
EVIDENCE_TYPES = ("commit", "file", "thread", "url", "artifact")
SOURCES = ("cli", "lsp", "mcp", "hook", "bootstrap", "sync")

MAX_TEXT_CHARS = 4000
MAX_DESCRIPTION_CHARS = 200
MAX_TAGS = 20
MAX_TAG_CHARS = 40
MAX_ANCHORS = 20


class RecordError(ValueError):
    """A record or a field of one is not valid; the message says which and why."""


@dataclass
class Anchor:
    """Where a learning points into the code.

    `symbol` is the qualified name (`Class.method`) for symbol anchors, empty for line-range and
    file anchors. `span` is `[start_line, end_line]`, 1-based and inclusive, or empty for a file.
    `fingerprint` holds the normalised hashes taken when the anchor was verified
    (`{"signature": ..., "body": ...}` for symbols, `{"lines": ...}` for ranges).
    `commit` is the commit the anchor was verified at ("" outside any commit).
    """

    path: str
    symbol: str = ""
    span: list[int] = field(default_factory=list)
    language: str = ""
    fingerprint: dict[str, str] = field(default_factory=dict)
    commit: str = ""
    kind: str = ""  # symbol kind (function, method, class, ...) when known
    dirty: bool = False  # the file differed from `commit` when the anchor was taken

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Anchor:
        # Stored anchors hold only known keys: skip the filtering copy then (10,000 anchors are
        # loaded for every `tether stale` of a large memory).
        if data.keys() <= _ANCHOR_FIELDS:
            return cls(**data)
        return cls(**{k: v for k, v in data.items() if k in _ANCHOR_FIELDS})

    def to_dict(self) -> dict[str, Any]:
        # By hand, not dataclasses.asdict: its deep copy dominated `tether list --json`.
        data = dict(self.__dict__)
        data["span"] = list(self.span)
        data["fingerprint"] = dict(self.fingerprint)
        return data

    def label(self) -> str:
        """The anchor as a user writes it: `path::Symbol`, `path#L3-L9` or `path`."""
        if self.symbol:
            return f"{self.path}::{self.symbol}"
        if len(self.span) == 2:
            return f"{self.path}#L{self.span[0]}-L{self.span[1]}"
        return self.path


@dataclass
class Evidence:
    type: str
    ref: str
    note: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evidence:
        return cls(
            type=str(data.get("type", "")),
            ref=str(data.get("ref", "")),
            note=str(data.get("note", "")),
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Learning:
    """One record. The field groups follow DESIGN.md: identity, content, anchors, provenance,
    bitemporal time, confidence, status, lineage and signal."""

    id: str
    text: str
    kind: str = "fact"
    store: str = "learning"
    category: str = "general"
    description: str = ""
    tags: list[str] = field(default_factory=list)
    anchors: list[Anchor] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    # provenance
    author: str = ""
    author_name: str = ""
    source: str = "cli"
    session: str = ""
    # time: valid_* is true in the world, recorded_at/retired_at is known to the system
    valid_from: str = ""
    valid_to: str = ""
    recorded_at: str = ""
    retired_at: str = ""
    # confidence and layering
    confidence: float = 0.8
    stability: str = "semi-stable"
    layer: str = "L2"
    status: str = "active"
    status_reason: str = ""
    # lineage
    supersedes: str = ""
    superseded_by: str = ""
    change_condition: str = ""
    review_cadence_days: int = 0
    next_review: str = ""
    # signal
    importance: float = 1.0
    hits: int = 0
    last_used_at: str = ""
    updated_at: str = ""
    verified_at: str = ""  # when a person or agent last confirmed the learning against its code

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Learning:
        values = {k: v for k, v in data.items() if k in _LEARNING_FIELDS}
        values["anchors"] = [Anchor.from_dict(a) for a in data.get("anchors", [])]
        values["evidence"] = [Evidence.from_dict(e) for e in data.get("evidence", [])]
        values["tags"] = list(data.get("tags", []))
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["tags"] = list(self.tags)
        data["anchors"] = [a.to_dict() for a in self.anchors]
        data["evidence"] = [e.to_dict() for e in self.evidence]
        return data

    @property
    def visible(self) -> bool:
        """Shown in hovers, lists by default and context packs."""
        return self.status in ("active", "stale")


# Field names, looked up once: from_dict runs for every row a query returns.
_ANCHOR_FIELDS = frozenset(f.name for f in dataclasses.fields(Anchor))
_LEARNING_FIELDS = frozenset(f.name for f in dataclasses.fields(Learning))


def parse_evidence(ref: str) -> Evidence:
    """`commit:SHA`, `url:…`, `file:PATH`, `thread:…`, `artifact:…`, or a bare ref whose type is
    guessed (a URL, a commit id, else a file)."""
    kind, sep, rest = ref.partition(":")
    if sep and kind in EVIDENCE_TYPES and rest:
        return Evidence(type=kind, ref=rest)
    if ref.startswith(("http://", "https://")):
        return Evidence(type="url", ref=ref)
    if 7 <= len(ref) <= 40 and all(c in "0123456789abcdef" for c in ref):
        return Evidence(type="commit", ref=ref)
    return Evidence(type="file", ref=ref)


def describe(text: str) -> str:
    """The default description: the first line of the text, cut to the retrieval-key length."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    if len(first) > MAX_DESCRIPTION_CHARS:
        first = first[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return first


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise RecordError(f"unknown {name} {value!r}: expected one of {', '.join(choices)}")


def validate_learning(record: Learning) -> None:
    """Raise RecordError naming the first field that is not valid."""
    if not record.id:
        raise RecordError("a record needs an id")
    if not record.text or not record.text.strip():
        raise RecordError("text is empty")
    if len(record.text) > MAX_TEXT_CHARS:
        raise RecordError(f"text is {len(record.text)} characters; the limit is {MAX_TEXT_CHARS}")
    if len(record.description) > MAX_DESCRIPTION_CHARS:
        raise RecordError(f"description is over {MAX_DESCRIPTION_CHARS} characters")
    check_choice("kind", record.kind, KINDS)
    check_choice("store", record.store, STORES)
    check_choice("category", record.category, CATEGORIES)
    check_choice("stability", record.stability, STABILITIES)
    check_choice("layer", record.layer, LAYERS)
    check_choice("status", record.status, STATUSES)
    if not 0.0 <= float(record.confidence) <= 1.0:
        raise RecordError(f"confidence {record.confidence} is outside 0..1")
    if len(record.tags) > MAX_TAGS:
        raise RecordError(f"{len(record.tags)} tags; the limit is {MAX_TAGS}")
    for tag in record.tags:
        if not tag or len(tag) > MAX_TAG_CHARS or any(c.isspace() for c in tag):
            raise RecordError(f"tag {tag!r} must be 1-{MAX_TAG_CHARS} characters with no spaces")
    if len(record.anchors) > MAX_ANCHORS:
        raise RecordError(f"{len(record.anchors)} anchors; the limit is {MAX_ANCHORS}")
    for anchor in record.anchors:
        if not anchor.path:
            raise RecordError("an anchor needs a path")
    for ev in record.evidence:
        check_choice("evidence type", ev.type, EVIDENCE_TYPES)
        if not ev.ref:
            raise RecordError("evidence needs a ref")
