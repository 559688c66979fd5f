"""The context pack: order, budget, quarantine, and byte-identical frozen sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchors.context import build_pack, context_pack, session_path
from anchors.errors import UsageError
from anchors.memory import Memory
from anchors.record import Anchor
from anchors.stores.profiles import Profiles


@pytest.fixture
def mem(repo: Path) -> Memory:
    m = Memory.open(repo)
    m.add("Never log request bodies; they carry card data.", category="security")
    m.add("Prefer small pull requests under 400 lines.", category="preference")
    m.add("Orders move pending -> paid -> shipped in orders/state.py.", category="architecture")
    near = m.add(
        "charge() must reuse the order id as idempotency key.",
        category="pattern",
        anchors=[Anchor(path="src/payments/client.py", symbol="charge")],
    )
    l1 = m.add("Every bug fix comes with a regression test.", category="general")
    m.promote(l1.id)
    m.archive(m.add("Old note about the legacy cron box.").id, "retired")
    m.add("Bootstrap guessed the CI runs tox.", source="bootstrap")  # quarantined
    Profiles(m.root).update("Ada", "- Role: payments lead\n- Ownership: src/payments/")
    assert near.status == "active"
    return m


def test_order_l1_near_files_categories_then_team(mem: Memory) -> None:
    pack = build_pack(mem, 2000, ["src/payments/client.py"])
    titles = [line for line in pack.splitlines() if line.startswith("## ")]
    assert titles == [
        "## Always",
        "## Near the files in play",
        "## Preferences",
        "## Security",
        "## Architecture",
    ]
    assert pack.startswith("# Project memory\n")
    assert pack.rstrip().endswith("Team: Ada (src/payments/)")
    assert "idempotency key" in pack.split("## Near the files in play")[1].split("##")[0]
    assert "legacy cron" not in pack  # archived
    assert "tox" not in pack  # quarantined


def test_without_files_patterns_follow_architecture(mem: Memory) -> None:
    pack = build_pack(mem, 2000)
    assert "## Near the files in play" not in pack
    assert pack.index("## Architecture") < pack.index("## Patterns")


@pytest.mark.parametrize("budget", [1, 17, 60, 120, 200, 333, 2000])
def test_never_over_budget(mem: Memory, budget: int) -> None:
    pack = build_pack(mem, budget, ["src/payments/client.py"])
    assert len(pack) <= budget
    if pack:
        assert pack.startswith("# Project memory\n")


def test_header_dropped_when_nothing_fits(mem: Memory) -> None:
    assert build_pack(mem, 20) == ""
    empty = Memory.open(mem.root)
    assert build_pack(empty, 30) == ""


def test_session_is_frozen_byte_for_byte_and_next_session_sees_writes(mem: Memory) -> None:
    first = context_pack(mem, session="agent-1")
    mem.add("Feature flags are removed two sprints after rollout.", category="preference")
    assert context_pack(mem, session="agent-1") == first
    assert context_pack(mem, budget=50, session="agent-1") == first  # the first call's pack wins
    assert session_path(mem, "agent-1").read_bytes() == first.encode()
    assert "Feature flags" in context_pack(mem, session="agent-2")
    assert "Feature flags" not in first


def test_odd_session_ids_are_hashed_into_safe_names(mem: Memory) -> None:
    path = session_path(mem, "../../etc/passwd")
    assert path.parent == mem.tether_dir / "sessions"
    with pytest.raises(UsageError):
        session_path(mem, "  ")


def test_bad_budget_and_outside_files(mem: Memory) -> None:
    with pytest.raises(UsageError):
        context_pack(mem, budget=0)
    with pytest.raises(UsageError, match="outside the repository"):
        context_pack(mem, files=["../elsewhere.py"])


def test_cli_context(mem: Memory, run_tether) -> None:  # type: ignore[no-untyped-def]
    repo = mem.root
    out = run_tether(
        ["context", "--budget", "300", "--session", "s", "--files", "src/payments/client.py"], repo
    )
    assert out.returncode == 0 and 0 < len(out.stdout) <= 300
    again = run_tether(["context", "--session", "s", "--json"], repo)
    assert json.loads(again.stdout)["markdown"] == out.stdout
    bad = run_tether(["context", "--budget", "-5"], repo)
    assert bad.returncode == 2 and bad.stderr.startswith("tether: budget")
