"""`tether mcp`: the memory as typed MCP tools over stdio, for any coding agent.

The tools take the CLI's words as arguments and return JSON objects that carry ids and provenance
(every write is stamped source "mcp" and, when the server was started with one, the session id).
Failures a caller can act on (a scanner rejection naming its rule, an unknown id, an over-cap
write, a near-duplicate) come back as tool errors with one clear line; arguments of the wrong type
are rejected by the SDK against each tool's JSON schema before any code of ours runs.

This is the only module that imports the MCP SDK.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from anchors.errors import TetherError
from anchors.memory import Memory
from anchors.record import CATEGORIES, Learning

T = TypeVar("T")

INSTRUCTIONS = """Project memory for this repository (Tether). At session start call `context` once
and keep its text: it is frozen for the session. Use `recall` to look things up by meaning. Write a
learning with `learnings_add` when you find something a future session should know (a convention,
a gotcha, a decision and its reason), anchored to the code it is about. If a learning you read
helped, `reinforce` it; if it is wrong, `invalidate` or `supersede` it. The blueprint describes the
whole codebase: read it with `blueprint_get` when you need the big picture. Before changing a function
whose past matters (why is this retry here? what broke last time?), `history` lists the commits that
changed it, following renames and moves."""

Category = Annotated[str, Field(description=f"one of: {', '.join(CATEGORIES)}")]


def learning_out(record: Learning) -> dict[str, Any]:
    """A learning as a tool result: the words, where it points, and where it came from."""
    return {
        "id": record.id,
        "text": record.text,
        "category": record.category,
        "status": record.status,
        "layer": record.layer,
        "anchors": [a.label() for a in record.anchors],
        "tags": record.tags,
        "confidence": record.confidence,
        "hits": record.hits,
        "provenance": {
            "author": record.author,
            "source": record.source,
            "session": record.session,
            "recorded_at": record.recorded_at,
        },
        "supersedes": record.supersedes,
        "superseded_by": record.superseded_by,
    }


def build_server(memory: Memory, session: str = "") -> MCPServer:
    """The server with every tool bound to one repository's memory."""
    server: MCPServer = MCPServer("tether", instructions=INSTRUCTIONS)
    default_session = session

    def guarded(call: Callable[[], T]) -> T:
        """Run a tool body with the projection current; our errors become tool errors."""
        try:
            memory.refresh()
            return call()
        except TetherError as exc:
            raise ToolError(exc.message) from None

    def anchors_of(specs: list[str]) -> list[Any]:
        from anchors.specs import resolve_spec

        return [resolve_spec(memory.root, spec).anchor for spec in specs]

    @server.tool()
    def learnings_add(
        text: str,
        category: Category = "general",
        anchors: list[str] | None = None,
        tags: list[str] | None = None,
        evidence: list[str] | None = None,
        confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.8,
    ) -> dict[str, Any]:
        """Write a learning. anchors: `path::Symbol`, `path#L10-L20` or `path`. evidence: refs such
        as `commit:SHA`, `url:https://…`, `file:PATH`. A near-duplicate of a live learning is refused
        (reinforce or supersede that one instead); past the category cap the least salient learning
        is archived and named in `archived`."""
        from anchors.record import parse_evidence

        def call() -> dict[str, Any]:
            record = memory.add(
                text,
                category=category,
                anchors=anchors_of(anchors or []),
                tags=tags or [],
                evidence=[parse_evidence(e) for e in evidence or []],
                confidence=confidence,
                source="mcp",
                session=session,
            )
            return {
                **learning_out(record),
                "archived": list(getattr(memory, "archived_for_cap", [])),
            }

        return guarded(call)

    @server.tool()
    def learnings_list(
        category: Category | None = None,
        status: str | None = None,
        path: str | None = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """List learnings (active and stale by default), optionally by category, status or anchored path."""
        return guarded(
            lambda: {
                "learnings": [learning_out(r) for r in memory.list(category, status, path)[:limit]]
            }
        )

    @server.tool()
    def recall(
        query: str, k: Annotated[int, Field(ge=1, le=100)] = 5, near: str | None = None
    ) -> dict[str, Any]:
        """Find the learnings that answer a question (BM25 + embeddings, re-ranked by salience and
        by closeness to `near`, a file path)."""
        from anchors.recall import recall as run_recall

        def call() -> dict[str, Any]:
            result = run_recall(memory, query, k=k, near=near or "")
            out = result.to_dict()
            out["results"] = [
                {**hit, "provenance": {"author": hit.pop("author"), "source": hit.pop("source")}}
                for hit in out["results"]
            ]
            return out

        return guarded(call)

    @server.tool()
    def context(
        budget: Annotated[int, Field(ge=1, le=200_000)] = 2000,
        session: str | None = None,
        files: list[str] | None = None,
    ) -> str:
        """The context pack (markdown): L1 learnings, those near `files`, preferences, security,
        architecture, a team line. Frozen per session: the same session returns the same text."""
        from anchors.context import context_pack

        return guarded(
            lambda: context_pack(
                memory, budget=budget, session=session or default_session, files=files or []
            )
        )

    @server.tool()
    def confirm(id: str) -> dict[str, Any]:
        """Record that you re-read the anchored code and the learning still holds."""
        return guarded(lambda: learning_out(memory.confirm(id, source="mcp")))

    @server.tool()
    def invalidate(id: str, reason: str) -> dict[str, Any]:
        """Mark a learning as no longer true (kept in history, never deleted)."""
        return guarded(lambda: learning_out(memory.invalidate(id, reason, source="mcp")))

    @server.tool()
    def supersede(
        id: str, text: str, category: Category | None = None, tags: list[str] | None = None
    ) -> dict[str, Any]:
        """Replace a learning with a corrected one; the old one stays in history, linked."""
        kwargs: dict[str, Any] = {"session": session}
        if category:
            kwargs["category"] = category
        if tags is not None:
            kwargs["tags"] = tags
        return guarded(lambda: learning_out(memory.supersede(id, text, source="mcp", **kwargs)))

    @server.tool()
    def reinforce(id: str) -> dict[str, Any]:
        """Say a learning helped: it resists decay, leaves quarantine, and at 5 becomes a promotion candidate."""
        return guarded(lambda: learning_out(memory.reinforce(id, source="mcp")))

    @server.tool()
    def stale(rev: str | None = None) -> dict[str, Any]:
        """Learnings whose anchored code changed (in the working tree, or in REV)."""
        args = [sys.executable, "-m", "anchors.cli.main", "stale", "--json"]
        if rev:
            if rev.startswith("-"):
                raise ToolError("rev must be a revision, not an option")
            args += ["--rev", rev]
        proc = subprocess.run(
            args, cwd=str(memory.root), capture_output=True, text=True, timeout=300
        )
        if proc.returncode not in (0, 1):
            raise ToolError(
                proc.stderr.strip().splitlines()[-1]
                if proc.stderr.strip()
                else "stale check failed"
            )
        try:
            data = json.loads(proc.stdout)
        except json.JSONDecodeError:
            raise ToolError("stale check returned no JSON") from None
        return data if isinstance(data, dict) else {"results": data}

    @server.tool()
    def history(spec: str, rev: str | None = None) -> dict[str, Any]:
        """The commits, newest first, that introduced or changed one function, method or class
        (spec PATH::SYMBOL, e.g. src/app.py::Client.send, as of rev, default HEAD): git log -L
        by symbol, following renames, file renames and moves across files, leaving out commits
        that touched only its whitespace or comments. Each has its change kinds (introduced,
        body, signature, rename, move, file-rename), author and date."""
        from anchors.commit_graph import refresh
        from anchors.history import (
            HistoryError,
            parse_spec,
            repo_path,
            symbol_history,
            without_graph,
        )
        from anchors.history_git import GitFailed

        revision = rev or "HEAD"
        try:
            path, symbol = parse_spec(spec)
            where = (memory.root, repo_path(memory.root, path), symbol, revision, memory.git_dir)
            try:
                found = symbol_history(*where)
            except (GitFailed, HistoryError) as failure:
                found = without_graph(failure, *where)
        except TetherError as exc:
            raise ToolError(exc.message) from None
        refresh(str(memory.root), found.rev)  # the next walk here reads its commit-graph
        return found.to_dict()

    @server.tool()
    def blueprint_get(section: str | None = None) -> dict[str, Any]:
        """The blueprint (.tether/BLUEPRINT.md), or one of its eight sections, with who updated it when."""
        from anchors.stores.blueprint import Blueprint

        def call() -> dict[str, Any]:
            blueprint = Blueprint(memory.root)
            chosen = [blueprint.get(section)] if section else blueprint.sections()
            return {
                "sections": [
                    {
                        "section": s.name,
                        "text": s.body,
                        "updated_by": s.updated[0],
                        "updated_at": s.updated[1],
                    }
                    for s in chosen
                ],
                "problems": blueprint.check(),
            }

        return guarded(call)

    @server.tool()
    def blueprint_update(section: str, text: str) -> dict[str, Any]:
        """Replace one blueprint section (architecture, stack, infrastructure, team, conventions,
        security posture, repo health, open work); records who and when."""
        from anchors.oplog import now_iso
        from anchors.stores import content_hash
        from anchors.stores.blueprint import Blueprint

        def call() -> dict[str, Any]:
            blueprint = Blueprint(memory.root)
            updated = blueprint.update(section, text, who=memory.author, when=now_iso())
            op = memory.record_store_write(
                "blueprint", updated.name, content_hash(blueprint.read()), source="mcp"
            )
            return {
                "section": updated.name,
                "updated_by": memory.author,
                "updated_at": updated.updated[1],
                "op": op.id,
            }

        return guarded(call)

    @server.tool()
    def profile_get(name: str | None = None) -> dict[str, Any]:
        """One teammate's profile (by name or email), or everyone's."""
        from anchors.stores.profiles import Profiles

        def call() -> dict[str, Any]:
            profiles = Profiles(memory.root)
            chosen = [profiles.get(name)] if name else profiles.list()
            return {"profiles": [{"name": p.name, "text": p.text} for p in chosen]}

        return guarded(call)

    @server.tool()
    def profile_update(name: str, text: str) -> dict[str, Any]:
        """Create or replace a teammate's profile (at most 1,375 characters): role, repositories,
        ownership, communication style, escalation."""
        from anchors.stores import content_hash
        from anchors.stores.profiles import Profiles

        def call() -> dict[str, Any]:
            profile = Profiles(memory.root).update(name, text)
            op = memory.record_store_write(
                "profile", profile.name, content_hash(profile.text), source="mcp"
            )
            return {
                "name": profile.name,
                "chars": len(profile.text),
                "updated_by": memory.author,
                "op": op.id,
            }

        return guarded(call)

    @server.tool()
    def notebook_read() -> dict[str, Any]:
        """Your personal notebook for this repository (not shared): its entries and size."""
        from anchors.stores.notebook import CAP_CHARS, Notebook

        def call() -> dict[str, Any]:
            book = Notebook.for_repo(memory.root)
            return {"entries": book.entries(), "chars": book.size(), "cap": CAP_CHARS}

        return guarded(call)

    @server.tool()
    def notebook_write(text: str) -> dict[str, Any]:
        """Append an entry to your personal notebook (2,200 characters in all; when full, the error
        lists entries you could remove first)."""
        from anchors.stores.notebook import CAP_CHARS, Notebook, join_entries

        def call() -> dict[str, Any]:
            entries = Notebook.for_repo(memory.root).add(text)
            return {"entries": len(entries), "chars": len(join_entries(entries)), "cap": CAP_CHARS}

        return guarded(call)

    return server


def serve(session: str = "") -> None:
    """Open the repository's memory in the current directory and serve it on stdin/stdout."""
    memory = Memory.open(os.getcwd())
    build_server(memory, session or os.environ.get("TETHER_SESSION", "")).run("stdio")
