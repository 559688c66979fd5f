"""Lifecycle: salience, quarantine, near-duplicates, caps, promotion, review, as-of replay."""

from __future__ import annotations

import json
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from anchors.lifecycle import (
    NearDuplicate,
    as_of,
    initial_status,
    promotion_candidates,
    review_items,
    similarity,
)
from anchors.memory import Memory
from anchors.record import Learning
from anchors.salience import HALF_LIFE_DAYS, QUARANTINE_WEIGHT, salience

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def rec(**fields: object) -> Learning:
    base: dict[str, object] = {"id": "X", "text": "t", "recorded_at": NOW.isoformat()}
    base.update(fields)
    return Learning(**base)  # type: ignore[arg-type]


# -- salience (pure) --------------------------------------------------------------------------


def test_salience_halves_per_half_life_and_grows_with_reinforcement() -> None:
    fresh = rec()
    old = rec(recorded_at=(NOW - timedelta(days=HALF_LIFE_DAYS["semi-stable"])).isoformat())
    assert salience(fresh, NOW) == pytest.approx(1.0)
    assert salience(old, NOW) == pytest.approx(0.5)
    assert salience(rec(hits=3), NOW) == pytest.approx(4.0)
    assert salience(rec(importance=0.5), NOW, relevance=0.5) == pytest.approx(0.25)


def test_volatile_fades_faster_and_last_use_refreshes() -> None:
    month_ago = (NOW - timedelta(days=30)).isoformat()
    assert salience(rec(recorded_at=month_ago, stability="volatile"), NOW) < salience(
        rec(recorded_at=month_ago, stability="stable"), NOW
    )
    used = rec(recorded_at=month_ago, last_used_at=NOW.isoformat(), stability="volatile")
    assert salience(used, NOW) == pytest.approx(1.0)


def test_l1_and_procedures_never_decay_and_quarantine_weighs_less() -> None:
    ancient = (NOW - timedelta(days=3000)).isoformat()
    assert salience(rec(recorded_at=ancient, layer="L1"), NOW) == pytest.approx(1.0)
    assert salience(rec(recorded_at=ancient, kind="procedure"), NOW) == pytest.approx(1.0)
    assert salience(rec(status="quarantined"), NOW) == pytest.approx(QUARANTINE_WEIGHT)


def test_similarity_is_about_words_not_characters() -> None:
    a = "Retries in PaymentClient.charge must stay idempotent; reuse the order id."
    assert similarity(a, a.replace(";", ":")) == 1.0
    # same mould, different facts
    assert (
        similarity(
            "The billing worker retries Redis calls 3 times with backoff.",
            "The search worker retries Kafka calls 5 times with backoff.",
        )
        < 0.8
    )


# -- write-path hooks through Memory -----------------------------------------------------------


def test_first_session_and_bootstrap_are_quarantined(repo: Path) -> None:
    mem = Memory.open(repo)
    assert initial_status(mem, "cli", "") == "active"
    assert initial_status(mem, "bootstrap", "") == "quarantined"
    first = mem.add("Session one thinks the cache is warm on boot.", source="mcp", session="s1")
    assert first.status == "quarantined"
    second = mem.add("Session two saw deploys run migrations first.", source="mcp", session="s2")
    assert second.status == "active"
    # once a second session exists, the memory is past its first session for everyone
    assert initial_status(mem, "mcp", "s1") == "active"  # another session now exists
    assert mem.reinforce(first.id).status == "active"  # reinforcement releases it


def test_near_duplicate_is_refused_with_a_pointer(repo: Path) -> None:
    mem = Memory.open(repo)
    kept = mem.add(
        "Retries in PaymentClient.charge must stay idempotent on gateway timeouts.",
        category="pattern",
    )
    with pytest.raises(NearDuplicate) as info:
        mem.add(
            "retries in paymentclient.charge MUST stay idempotent on gateway timeouts!",
            category="pattern",
        )
    assert kept.id in info.value.message
    assert "reinforce or supersede it" in info.value.message
    assert len(mem.list()) == 1
    # a retired learning does not block re-adding
    mem.invalidate(kept.id, "gateway replaced")
    mem.add(
        "Retries in PaymentClient.charge must stay idempotent on gateway timeouts.",
        category="pattern",
    )


def test_cap_archives_the_least_salient_and_says_so(repo: Path) -> None:
    (repo / ".tether").mkdir()
    (repo / ".tether" / "config.toml").write_text("[learnings]\ncap_per_category = 3\n")
    mem = Memory.open(repo)
    weak = mem.add("Alpha notes about the billing export format.", category="pattern")
    strong = mem.add("Bravo notes about the search index rebuild.", category="pattern")
    third = mem.add("Charlie notes about deploy windows on Fridays.", category="pattern")
    mem.reinforce(strong.id)
    mem.reinforce(third.id)
    other = mem.add("Security is a different category entirely here.", category="security")
    assert mem.archived_for_cap == []
    mem.add("Delta notes about the image resizer and CMYK.", category="pattern")
    assert mem.archived_for_cap == [weak.id]
    assert mem.get(weak.id).status == "archived"
    assert len(mem.list(category="pattern")) == 3
    assert mem.get(other.id).status == "active"
    assert mem.restore(weak.id).status == "active"  # reversible


def test_the_same_words_about_different_files_are_no_duplicate(repo: Path) -> None:
    from anchors.record import Anchor

    mem = Memory.open(repo)
    mem.add("This file is one of the most changed: keep changes small and reviewed.",
            category="pattern", anchors=[Anchor(path="src/a.py")])  # fmt: skip
    mem.add("This file is one of the most changed: keep changes small and reviewed.",
            category="pattern", anchors=[Anchor(path="src/b.py")])  # fmt: skip
    with pytest.raises(NearDuplicate):  # about the same file, it is one
        mem.add("This file is one of the most changed: keep changes small and reviewed!",
                category="pattern", anchors=[Anchor(path="src/a.py")])  # fmt: skip
    assert len(mem.list()) == 2


def test_cli_add_near_duplicate_exit_code_and_cap_message(repo: Path, run_tether) -> None:  # type: ignore[no-untyped-def]
    assert (
        run_tether(
            ["add", "Use ruff format with line length 100.", "--category", "preference"], repo
        ).returncode
        == 0
    )
    dup = run_tether(
        ["add", "Use ruff format with line length 100", "--category", "preference"], repo
    )
    assert dup.returncode == 2
    assert "nearly duplicates learning" in dup.stderr and dup.stderr.count("\n") == 1


def test_promotion_candidates_and_review(repo: Path, run_tether) -> None:  # type: ignore[no-untyped-def]
    mem = Memory.open(repo)
    popular = mem.add("Every bug fix comes with a regression test.")
    for _ in range(5):
        mem.reinforce(popular.id)
    mem.add("Reviewed sometimes.", category="general")
    due = mem.add("Staging runs on one replica.", category="architecture")
    mem.update(due.id, review_cadence_days=30, change_condition="if staging gets autoscaling")
    assert [r.id for r in promotion_candidates(mem)] == [popular.id]
    later = date.today() + timedelta(days=31)
    items = review_items(mem, later)
    assert [(i.record.id, i.reason) for i in items] == [(due.id, "change condition")]
    assert "if staging gets autoscaling" in items[0].detail
    assert review_items(mem) == []  # not due yet

    shown = json.loads(run_tether(["review", "--json"], repo).stdout)
    assert [c["id"] for c in shown["promotion_candidates"]] == [popular.id]
    assert run_tether(["promote", popular.id], repo).returncode == 0
    assert Memory.open(repo).get(popular.id).layer == "L1"
    assert promotion_candidates(Memory.open(repo)) == []


def test_as_of_replays_what_was_believed(repo: Path, run_tether) -> None:  # type: ignore[no-untyped-def]
    mem = Memory.open(repo)
    old = mem.add("Deploys happen on Tuesdays.")
    time.sleep(0.01)
    middle = datetime.now(timezone.utc)
    time.sleep(0.01)
    new = mem.supersede(old.id, "Deploys happen every day after 10:00.")
    assert [r.id for r in as_of(mem, middle)] == [old.id]
    assert [r.id for r in as_of(mem, datetime.now(timezone.utc))] == [new.id]
    assert as_of(mem, "2000-01-01") == []
    listed = run_tether(["list", "--as-of", middle.isoformat(), "--json"], repo)
    assert listed.returncode == 0
    assert old.id in listed.stdout and new.id not in listed.stdout
    bad = run_tether(["list", "--as-of", "last tuesday"], repo)
    assert bad.returncode == 2 and "not a date" in bad.stderr
