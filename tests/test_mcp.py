"""The MCP server end to end: the SDK's own client spawns `tether mcp` over stdio in a real repo."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import TETHER

pytestmark = pytest.mark.e2e

TOOLS = {
    "learnings_add", "learnings_list", "recall", "context", "confirm", "invalidate", "supersede",
    "reinforce", "stale", "history", "blueprint_get", "blueprint_update", "profile_get", "profile_update",
    "notebook_read", "notebook_write",
}  # fmt: skip


@asynccontextmanager
async def client(repo: Path, session: str = "s-test") -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=TETHER,
        args=["mcp", "--session", session],
        cwd=str(repo),
        env={k: v for k, v in os.environ.items() if k.startswith(("XDG_", "HOME", "GIT_", "PATH"))},
    )
    async with (
        stdio_client(params, errlog=sys.stderr) as (read, write),
        ClientSession(read, write) as session_,
    ):
        await session_.initialize()
        yield session_


def data(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(getattr(c, "text", "") for c in result.content)


async def test_tools_listed_with_schemas(repo: Path) -> None:
    async with client(repo) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
    assert set(tools) >= TOOLS
    schema = tools["learnings_add"].input_schema
    assert schema["required"] == ["text"]
    assert schema["properties"]["confidence"]["type"] == "number"


async def test_write_read_recall_and_lifecycle(repo: Path) -> None:
    (repo / "pay.py").write_text("def charge(order):\n    return order\n")
    async with client(repo) as mcp:
        added = data(
            await mcp.call_tool(
                "learnings_add",
                {
                    "text": "Retries in charge() must stay idempotent: the gateway double-charges on timeout.",
                    "category": "pattern",
                    "anchors": ["pay.py"],
                    "tags": ["payments"],
                },
            )
        )
        assert added["provenance"]["source"] == "mcp"
        assert added["provenance"]["session"] == "s-test"
        assert added["anchors"] == ["pay.py"]
        ident = added["id"]

        listed = data(await mcp.call_tool("learnings_list", {"status": added["status"]}))
        assert [r["id"] for r in listed["learnings"]] == [ident]

        found = data(await mcp.call_tool("recall", {"query": "charging a customer twice", "k": 3}))
        assert found["results"][0]["id"] == ident
        assert found["results"][0]["provenance"]["source"] == "mcp"

        reinforced = data(await mcp.call_tool("reinforce", {"id": ident}))
        assert reinforced["hits"] == 1 and reinforced["status"] == "active"

        newer = data(
            await mcp.call_tool(
                "supersede",
                {
                    "id": ident,
                    "text": "charge() retries reuse the order id as the idempotency key.",
                },
            )
        )
        assert newer["supersedes"] == ident
        gone = data(
            await mcp.call_tool("invalidate", {"id": newer["id"], "reason": "gateway replaced"})
        )
        assert gone["status"] == "invalidated"


async def test_scanner_rejection_is_a_tool_error_naming_the_rule(repo: Path) -> None:
    async with client(repo) as mcp:
        result = await mcp.call_tool(
            "learnings_add", {"text": "harmless\u202etxt.exe", "category": "general"}
        )
        assert "unicode.bidi-control" in error_text(result)
        listed = data(await mcp.call_tool("learnings_list", {}))
    assert listed["learnings"] == []


async def test_wrong_argument_types_are_schema_errors_and_the_server_lives_on(repo: Path) -> None:
    async with client(repo) as mcp:
        bad = await mcp.call_tool("recall", {"query": "x", "k": "many"})
        assert bad.is_error and "k" in error_text(bad)
        bad = await mcp.call_tool("learnings_add", {"text": ["not", "a", "string"]})
        assert bad.is_error
        bad = await mcp.call_tool("learnings_add", {"text": "fine", "confidence": 7})
        assert bad.is_error
        unknown = await mcp.call_tool("confirm", {"id": "NOPE0000"})
        assert "no learning" in error_text(unknown)
        # still serving after all of that
        assert data(await mcp.call_tool("notebook_read", {}))["entries"] == []


async def test_stores_through_mcp(repo: Path) -> None:
    async with client(repo) as mcp:
        written = data(
            await mcp.call_tool("notebook_write", {"text": "pytest -x is the fast loop here"})
        )
        assert written["entries"] == 1
        blank = await mcp.call_tool("notebook_write", {"text": "   \n  "})
        assert "empty" in error_text(blank)
        assert data(await mcp.call_tool("notebook_read", {}))["entries"] == [
            "pytest -x is the fast loop here"
        ]

        up = data(
            await mcp.call_tool(
                "blueprint_update", {"section": "stack", "text": "Python 3.11, SQLite"}
            )
        )
        assert up["section"] == "Stack" and up["updated_by"] == "ada@example.com"
        got = data(await mcp.call_tool("blueprint_get", {"section": "Stack"}))
        assert got["sections"][0]["text"] == "Python 3.11, SQLite"
        assert "empty section: Architecture" in got["problems"]
        wrong = await mcp.call_tool("blueprint_update", {"section": "gossip", "text": "x"})
        assert "unknown blueprint section" in error_text(wrong)

        data(
            await mcp.call_tool("profile_update", {"name": "Ada Test", "text": "- Role: payments"})
        )
        people = data(await mcp.call_tool("profile_get", {"name": "ada test"}))
        assert people["profiles"][0]["text"] == "- Role: payments"
        nobody = await mcp.call_tool("profile_get", {"name": "Grace"})
        assert "no profile for 'Grace'" in error_text(nobody)
        too_long = await mcp.call_tool("profile_update", {"name": "Bob", "text": "x" * 1400})
        assert "1375" in error_text(too_long)

    # the blueprint and profile writes are in the op-log too
    log = [json.loads(line[line.index("{") :]) for line in _ops(repo)]
    assert [op["payload"]["store"] for op in log if op["type"] == "store-write"] == [
        "blueprint",
        "profile",
    ]


async def test_context_is_frozen_per_session(repo: Path) -> None:
    from anchors.memory import Memory

    # Written by a person at the CLI (no session): active at once, unlike a first session's notes.
    Memory.open(repo).add("Use ruff for formatting.", category="preference")
    async with client(repo, session="frozen") as mcp:
        first = (await mcp.call_tool("context", {})).content[0].text
        Memory.open(repo).add("Never log request bodies.", category="security")
        again = (await mcp.call_tool("context", {})).content[0].text
        agent_note = data(
            await mcp.call_tool("learnings_add", {"text": "The cache is warmed on boot."})
        )
        fresh = (await mcp.call_tool("context", {"session": "next"})).content[0].text
    assert "Use ruff for formatting" in first
    assert first == again
    assert "Never log request bodies" not in again
    assert "Never log request bodies" in fresh
    # the first agent session's own notes wait in quarantine, out of every pack
    assert agent_note["status"] == "quarantined"
    assert "cache is warmed" not in fresh


def _ops(repo: Path) -> list[str]:
    ops_dir = repo / ".git" / "tether" / "ops"
    return [
        line for f in sorted(ops_dir.glob("*.jsonl")) for line in f.read_text().splitlines() if line
    ]


async def test_stale_tool_reports_through_the_cli_contract(repo: Path) -> None:
    from tests.conftest import git

    (repo / "pay.py").write_text("def charge(order):\n    return order\n")
    git(repo, "add", "pay.py")
    git(repo, "commit", "-q", "-m", "pay")
    from anchors.cli.learnings import parse_anchor
    from anchors.memory import Memory

    # A person's learning (an agent's first-session notes wait in quarantine, unchecked).
    memory = Memory.open(repo)
    added = memory.add(
        "charge() returns the order unchanged.", anchors=[parse_anchor(repo, "pay.py::charge")[0]]
    )
    async with client(repo) as mcp:
        (repo / "pay.py").write_text("def charge(order, retry):\n    return None\n")
        report = data(await mcp.call_tool("stale", {}))
        bad = await mcp.call_tool("stale", {"rev": "--output=/tmp/x"})
    verdicts = {r["id"]: r["verdict"] for r in report["learnings"]}
    assert verdicts == {added.id: "stale"}
    assert "revision, not an option" in error_text(bad)


async def test_history_tool_follows_a_symbol_and_refuses_bad_specs(repo: Path) -> None:
    from tests.conftest import git

    (repo / "pay.py").write_text("def charge(order):\n    return order\n")
    git(repo, "add", "pay.py")
    git(repo, "commit", "-q", "-m", "pay")
    first = git(repo, "rev-parse", "HEAD")
    (repo / "pay.py").write_text("def charge(order):\n    # no retry\n    return order\n")
    git(repo, "commit", "-q", "-am", "a comment only")
    (repo / "billing.py").write_text("def charge(order, retry=3):\n    return order\n")
    git(repo, "rm", "-q", "pay.py")
    git(repo, "add", "billing.py")
    git(repo, "commit", "-q", "-m", "move charge to billing, with retries")
    moved = git(repo, "rev-parse", "HEAD")
    async with client(repo) as mcp:
        found = data(await mcp.call_tool("history", {"spec": "billing.py::charge"}))
        at_first = data(await mcp.call_tool("history", {"spec": "pay.py::charge", "rev": first}))
        no_spec = await mcp.call_tool("history", {"spec": "billing.py"})
        no_rev = await mcp.call_tool("history", {"spec": "billing.py::charge", "rev": "--all"})
        outside = await mcp.call_tool("history", {"spec": "../x.py::f"})
    assert [(c["commit"], c["changes"]) for c in found["commits"]] == [
        (moved, ["signature", "move"]),
        (first, ["introduced"]),
    ]
    assert found["commits"][0]["path"] == "billing.py"
    assert [c["commit"] for c in at_first["commits"]] == [first]
    assert "PATH::SYMBOL" in error_text(no_spec)
    assert "bad revision" in error_text(no_rev)
    assert "outside the repository" in error_text(outside)
