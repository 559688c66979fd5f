"""`tether gc`: a forgotten learning's words leave the log, the shared ref and every clone that syncs."""

from __future__ import annotations

import json
from pathlib import Path

from anchors.memory import Memory
from tests.conftest import RunTether, git
from tests.core_helpers import dump

WORDS = "the staging database password lives in the ops wiki page nine"


def _reachable_blobs_contain(repo: Path, ref: str, needle: str) -> bool:
    """Whether any blob reachable from `ref` (any commit of its history) holds `needle`."""
    listing = git(repo, "rev-list", "--objects", ref)
    for line in listing.splitlines():
        sha = line.split()[0]
        if git(repo, "cat-file", "-t", sha) == "blob" and needle in git(
            repo, "cat-file", "-p", sha
        ):
            return True
    return False


def _ops_bytes(repo: Path) -> bytes:
    ops = repo / ".git" / "tether" / "ops"
    return b"".join(p.read_bytes() for p in sorted(ops.glob("*.jsonl")))


def _live_rows(mem: Memory) -> list:
    return [row for row in dump(mem.projection) if WORDS not in repr(row)]


def test_gc_redacts_only_the_forgotten_learning_and_keeps_replay_and_chains(
    repo: Path, run_tether: RunTether
) -> None:
    mem = Memory.open(repo)
    secret = mem.add(WORDS, category="general", tags=["staging"])
    mem.reinforce(secret.id)
    mem.update(secret.id, description=f"{WORDS} (updated)")
    keep = mem.add("retries in PaymentClient.charge reuse the order id", category="pattern")
    mem.invalidate(secret.id, f"moved, {WORDS}")
    newer = mem.supersede(keep.id, "retries reuse the order id as the idempotency key")
    mem.forget(secret.id)
    before = _live_rows(mem)
    assert WORDS.encode() in _ops_bytes(repo)

    dry = run_tether(["gc", "--dry-run", "--json"], repo)
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["redacted"] == 3  # the add, the update, the invalidate
    assert WORDS.encode() in _ops_bytes(repo)  # a dry run changes nothing

    result = run_tether(["gc"], repo)
    assert result.returncode == 0, result.stderr
    assert "redacted 3 ops of 1 forgotten" in result.stdout
    assert WORDS.encode() not in _ops_bytes(repo)
    verify = run_tether(["log", "--verify", "--json"], repo)
    assert verify.returncode == 0, verify.stdout
    assert json.loads(verify.stdout)["verify"]["redacted"] == 3
    after = Memory.open(repo)
    assert _live_rows(after) == before  # the other learnings replay exactly as before
    assert after.get(newer.id).supersedes == keep.id
    # The ref is one new commit: the old blobs are no longer reachable from it.
    assert git(repo, "rev-list", "--count", "refs/tether/log") == "1"
    assert not _reachable_blobs_contain(repo, "refs/tether/log", WORDS)
    # Running it again finds nothing left to do.
    again = json.loads(run_tether(["gc", "--json"], repo).stdout)
    assert again["redacted"] == 0


def test_a_redaction_without_a_forget_fails_verify(repo: Path, run_tether: RunTether) -> None:
    from anchors.redact import redact_line

    mem = Memory.open(repo)
    rec = mem.add(WORDS, category="general")
    path = mem.oplog.path_of(mem.oplog.part)
    line = path.read_bytes().rstrip(b"\n")
    forged = redact_line(line, {rec.id})
    assert forged is not None
    path.write_bytes(forged + b"\n")
    result = run_tether(["log", "--verify"], repo)
    assert result.returncode == 1
    assert "no forget" in result.stdout


def test_gc_travels_through_sync_and_no_history_keeps_the_words(
    team: tuple[Path, Path, Path], run_tether: RunTether
) -> None:
    remote, alice, bob = team
    added = json.loads(run_tether(["add", WORDS, "--json"], alice).stdout)
    assert run_tether(["add", "alice keeps this one"], alice).returncode == 0
    assert run_tether(["sync"], alice).returncode == 0
    assert run_tether(["sync"], bob).returncode == 0
    assert run_tether(["reinforce", added["id"]], bob).returncode == 0
    assert run_tether(["sync"], bob).returncode == 0
    assert run_tether(["sync"], alice).returncode == 0

    assert run_tether(["forget", added["id"]], alice).returncode == 0
    assert run_tether(["gc"], alice).returncode == 0
    pushed = json.loads(run_tether(["sync", "--json"], alice).stdout)
    assert pushed["pushed"] and pushed["history_rewritten"], pushed
    assert not _reachable_blobs_contain(remote, "refs/tether/log", WORDS)

    # Bob wrote something meanwhile; his sync takes the redactions, keeps his op, and pushes
    # without bringing the old history back.
    assert run_tether(["add", "bob wrote this after the gc"], bob).returncode == 0
    taken = json.loads(run_tether(["sync", "--json"], bob).stdout)
    assert taken["forks"] == [] and taken["redactions_adopted"] >= 1, taken
    assert taken["pushed"], taken
    assert WORDS.encode() not in _ops_bytes(bob)
    assert not _reachable_blobs_contain(bob, "refs/tether/log", WORDS)
    assert not _reachable_blobs_contain(remote, "refs/tether/log", WORDS)
    assert run_tether(["log", "--verify"], bob).returncode == 0

    final = json.loads(run_tether(["sync", "--json"], alice).stdout)
    assert final["forks"] == []
    texts = sorted(r["text"] for r in json.loads(run_tether(["list", "--json"], alice).stdout))
    assert texts == ["alice keeps this one", "bob wrote this after the gc"]
    assert run_tether(["log", "--verify"], alice).returncode == 0
