"""`Memory`: one repository's learnings. The single write path every surface (CLI, LSP, MCP, hooks) uses.

Every write builds its ops, passes each piece of prose through the scanner, and only then appends to
the op-log; the projection is refreshed right after, so a read that follows sees the write.
"""

from __future__ import annotations

import builtins
import importlib
import os
import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchors import git
from anchors.errors import NotInRepository, Rejected, UnknownRecord, UsageError
from anchors.operations import Op, OpError, texts_of, validate
from anchors.oplog import OpLog
from anchors.projection import Projection
from anchors.record import (
    Anchor,
    Evidence,
    Learning,
    RecordError,
    describe,
    validate_learning,
)

TETHER_DIR = "tether"
REPLICA_FILE = "replica"


def new_id() -> str:
    """A time-sortable unique id (ULID, Crockford base32, 26 characters)."""
    from ulid import ULID

    return str(ULID())


def _optional(module: str, name: str) -> Callable[..., Any] | None:
    """A hook another module of the library may provide (lifecycle rules, anchor refresh)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    return getattr(mod, name, None)


class Memory:
    """The learnings of one git repository: its op-log, its projection, and the writer's identity."""

    def __init__(self, repo: git.RepoPaths, *, refresh: bool = True) -> None:
        self.repo = repo
        self.root: Path = repo.root
        self.git_dir: Path = repo.git_dir
        self.tether_dir: Path = repo.git_dir / TETHER_DIR
        self.tether_dir.mkdir(parents=True, exist_ok=True)
        self.author, self.author_name = git.identity(self.root)
        self.oplog = OpLog(self.tether_dir, self.author, self._replica())
        self.repaired = self.oplog.repair_all_torn()
        self.projection = Projection(self.tether_dir, self.oplog)
        self.last_refresh = self.projection.refresh() if refresh else None

    @classmethod
    def open(cls, path: Path | str | None = None, *, refresh: bool = True) -> Memory:
        """Open the memory of the repository containing `path` (default: the current directory)."""
        try:
            repo = git.find_repo(path)
        except git.NotARepository as exc:
            raise NotInRepository(str(exc)) from None
        except FileNotFoundError:
            raise NotInRepository("git is not installed") from None
        return cls(repo, refresh=refresh)

    def _replica(self) -> str:
        """A random id for this clone, so one person's two clones never fork one partition."""
        path = self.tether_dir / REPLICA_FILE
        try:
            value = path.read_text().strip()
            if value:
                return value
        except FileNotFoundError:
            pass
        value = secrets.token_hex(3)
        tmp = path.with_suffix(f".{os.getpid()}")
        tmp.write_text(value + "\n")
        try:
            os.link(tmp, path)  # first writer wins, atomically
        except FileExistsError:
            value = path.read_text().strip()
        finally:
            tmp.unlink()
        return value

    # -- reads ------------------------------------------------------------------------------

    def refresh(self) -> None:
        self.last_refresh = self.projection.refresh()

    def resolve_id(self, id_or_prefix: str) -> str:
        """A full record id from an id or a unique prefix of one (at least 4 characters)."""
        ident = id_or_prefix.strip().upper()
        if not ident:
            raise UsageError("an id is required")
        if self.projection.get(ident) is not None:
            return ident
        if self.projection.is_forgotten(ident):
            raise UnknownRecord(f"learning {ident} was forgotten")
        matches = self.projection.match_prefix(ident) if len(ident) >= 4 else []
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise UnknownRecord(f"id prefix {id_or_prefix} is ambiguous; give more characters")
        raise UnknownRecord(f"no learning with id {id_or_prefix}")

    def get(self, id_or_prefix: str) -> Learning:
        record = self.projection.get(self.resolve_id(id_or_prefix))
        assert record is not None
        return record

    def list(
        self,
        category: str | None = None,
        status: str | None = None,
        path: str | None = None,
        *,
        include_hidden: bool = False,
    ) -> builtins.list[Learning]:
        """Learnings filtered by category, status and anchored path (a file or a directory)."""
        where, params = _list_filter(category, status, path, include_hidden)
        return self.projection.query(where, params)

    def list_dicts(
        self,
        category: str | None = None,
        status: str | None = None,
        path: str | None = None,
        *,
        include_hidden: bool = False,
    ) -> builtins.list[dict[str, Any]]:
        """The same as `list`, as plain dicts (`Learning.to_dict()` shape), for JSON output."""
        where, params = _list_filter(category, status, path, include_hidden)
        return self.projection.query_dicts(where, params)

    def ops_for(self, id_or_prefix: str) -> builtins.list[Op]:
        """Every op about a record, in replay order."""
        record_id = self.resolve_id(id_or_prefix)
        ops = [self.oplog.find(part, off) for part, off in self.projection.ops_locations(record_id)]
        return sorted(ops, key=lambda op: op.key)

    # -- the write path ---------------------------------------------------------------------

    def _commit(
        self, build: Callable[[int, str, str], builtins.list[Op]], source: str = "cli"
    ) -> builtins.list[Op]:
        """Append the ops `build` makes after validating and scanning every one of them."""

        def checked(clock: int, prev: str, now: str) -> builtins.list[Op]:
            ops = build(clock, prev, now)
            for offset, op in enumerate(ops):
                op.clock = clock + offset
                op.time = now
                op.author = self.author
                op.part = self.oplog.part
                try:
                    validate(op)
                except OpError as exc:
                    raise UsageError(str(exc)) from None
                self._scan(op, source)
            return ops

        ops = self.oplog.append(checked)
        self.refresh()
        return ops

    def _scan(self, op: Op, source: str) -> None:
        from anchors.scanner import scan_text  # only writes pay for the scanner's rules

        for field_name, text in texts_of(op):
            findings = scan_text(text)
            if findings:
                from anchors.audit import record_rejection

                record_rejection(self.tether_dir, findings, text, source)
                raise Rejected(findings, field_name)

    def _op(self, op_type: str, target: str, payload: dict[str, Any] | None = None) -> Op:
        return Op(
            type=op_type, target=target, author=self.author, part=self.oplog.part, clock=0,
            time="", prev="", payload=payload or {},
        )  # fmt: skip

    def new_learning(
        self,
        text: str,
        *,
        category: str = "general",
        anchors: builtins.list[Anchor] | None = None,
        tags: builtins.list[str] | None = None,
        evidence: builtins.list[Evidence] | None = None,
        confidence: float = 0.8,
        source: str = "cli",
        session: str = "",
        description: str = "",
        kind: str = "fact",
        store: str = "learning",
        status: str = "",
        **fields: Any,
    ) -> Learning:
        """Build (not write) a validated record with this writer's provenance."""
        text = text.strip() if isinstance(text, str) else text
        if not isinstance(text, str) or not text:
            raise UsageError("text is empty")
        if not status:
            initial = _optional("anchors.lifecycle", "initial_status")
            status = initial(self, source, session) if initial else "active"
        record = Learning(
            id=new_id(),
            text=text,
            kind=kind,
            store=store,
            category=category,
            description=description.strip() or describe(text),
            tags=list(dict.fromkeys(tags or [])),
            anchors=list(anchors or []),
            evidence=list(evidence or []),
            author=self.author,
            author_name=self.author_name,
            source=source,
            session=session,
            confidence=confidence,
            status=status,
        )
        try:
            record = replace(record, **fields)
            validate_learning(record)
        except (RecordError, TypeError) as exc:
            raise UsageError(str(exc)) from None
        return record

    def add(self, text: str, **kwargs: Any) -> Learning:
        """Write a new learning; returns it. May archive the least salient one past the cap."""
        record = self.new_learning(text, **kwargs)
        self.archived_for_cap: builtins.list[str] = []
        before_add = _optional("anchors.lifecycle", "before_add")

        def build(clock: int, prev: str, now: str) -> builtins.list[Op]:
            ops = [self._op("add", record.id, {"record": _record_payload(record)})]
            if before_add is not None:
                for victim in before_add(self, record):
                    reason = f"over the cap of the {record.category} category"
                    ops.append(self._op("archive", victim, {"reason": reason}))
                    self.archived_for_cap.append(victim)
            return ops

        self._commit(build, record.source)
        return self.get(record.id)

    def supersede(
        self, id_or_prefix: str, text: str, source: str = "cli", **kwargs: Any
    ) -> Learning:
        """Replace a learning with a new one; the old stays in history as superseded."""
        old = self.get(id_or_prefix)
        kwargs.setdefault("category", old.category)
        kwargs.setdefault("anchors", old.anchors)
        kwargs.setdefault("tags", old.tags)
        kwargs.setdefault("status", "active")
        record = self.new_learning(text, source=source, **kwargs)
        record.supersedes = old.id
        self._commit(
            lambda c, p, n: [self._op("supersede", old.id, {"record": _record_payload(record)})],
            source,
        )
        return self.get(record.id)

    def _simple(
        self, op_type: str, id_or_prefix: str, payload: dict[str, Any], source: str
    ) -> Learning:
        target = self.resolve_id(id_or_prefix)
        self._commit(lambda c, p, n: [self._op(op_type, target, payload)], source)
        return self.get(target)

    def update(self, id_or_prefix: str, source: str = "cli", **fields: Any) -> Learning:
        return self._simple("update", id_or_prefix, {"fields": fields}, source)

    def reinforce(self, id_or_prefix: str, source: str = "cli") -> Learning:
        return self._simple("reinforce", id_or_prefix, {}, source)

    def confirm(
        self, id_or_prefix: str, anchors: builtins.list[Anchor] | None = None, source: str = "cli"
    ) -> Learning:
        """Record that the learning still holds: its anchors' verified point moves forward."""
        record = self.get(id_or_prefix)
        if anchors is None and record.anchors:
            refresh = _optional("anchors.specs", "refresh_anchor") or _optional(
                "anchors.resolve", "refresh_anchor"
            )
            if refresh is not None:
                anchors = [refresh(self.root, a) for a in record.anchors]
        payload: dict[str, Any] = {}
        if anchors is not None:
            payload["anchors"] = [a.to_dict() for a in anchors]
        return self._simple("confirm", record.id, payload, source)

    def invalidate(self, id_or_prefix: str, reason: str, source: str = "cli") -> Learning:
        if not reason or not reason.strip():
            raise UsageError("a reason is required")
        return self._simple("invalidate", id_or_prefix, {"reason": reason.strip()}, source)

    def reanchor(
        self,
        id_or_prefix: str,
        anchors: builtins.list[Anchor],
        reason: str = "",
        source: str = "cli",
    ) -> Learning:
        payload = {"anchors": [a.to_dict() for a in anchors], "reason": reason}
        return self._simple("reanchor", id_or_prefix, payload, source)

    def mark_stale(self, id_or_prefix: str, reason: str, source: str = "cli") -> Learning:
        return self._simple("mark-stale", id_or_prefix, {"reason": reason}, source)

    def promote(self, id_or_prefix: str, source: str = "cli") -> Learning:
        return self._simple("promote", id_or_prefix, {}, source)

    def archive(self, id_or_prefix: str, reason: str, source: str = "cli") -> Learning:
        return self._simple("archive", id_or_prefix, {"reason": reason or "archived"}, source)

    def restore(self, id_or_prefix: str, source: str = "cli") -> Learning:
        return self._simple("restore", id_or_prefix, {}, source)

    def forget(self, id_or_prefix: str, source: str = "cli") -> str:
        """Tombstone a learning: it leaves every view; its ops stay in the log (see docs on gc)."""
        target = self.resolve_id(id_or_prefix)
        self._commit(lambda c, p, n: [self._op("forget", target, {})], source)
        return target

    def record_store_write(self, store: str, name: str, sha256: str, source: str = "cli") -> Op:
        """Audit a write to a working-tree store (profile, blueprint): who, when, content hash."""
        ops = self._commit(
            lambda c, p, n: [
                self._op(
                    "store-write",
                    f"{store}:{name}",
                    {"store": store, "name": name, "sha256": sha256},
                )
            ],
            source,
        )
        return ops[0]


def _record_payload(record: Learning) -> dict[str, Any]:
    """The record as it goes into an op: without fields the projection derives from the op."""
    data = record.to_dict()
    for key in ("recorded_at", "retired_at", "hits", "last_used_at", "updated_at", "verified_at"):
        data.pop(key, None)
    return data


def _list_filter(
    category: str | None, status: str | None, path: str | None, include_hidden: bool
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if category:
        clauses.append("category=?")
        params.append(category)
    if status:
        clauses.append("status=?")
        params.append(status)
    elif not include_hidden:
        clauses.append("status IN ('active','stale')")
    if path:
        rel = path.strip("/")
        clauses.append(
            "id IN (SELECT record_id FROM anchors WHERE path=? OR path LIKE ? ESCAPE '\\')"
        )
        params.extend([rel, _like_prefix(rel) + "/%"])
    return " AND ".join(clauses), params


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
