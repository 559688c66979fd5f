"""`tether stale` through the real console script, in real repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import RunTether, git

CODE = """def charge(amount):
    total = amount * 2
    return total


def refund(amount):
    return -amount


def audit(entry):
    log = []
    log.append(entry)
    return log
"""


@pytest.fixture
def project(repo: Path, run_tether: RunTether) -> Path:
    (repo / "pay.py").write_text(CODE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pay")
    assert run_tether(["init"], repo).returncode == 0
    return repo


def add(run_tether: RunTether, root: Path, text: str, *anchors: str) -> str:
    args = ["add", text, "--category", "pattern", "--json"]
    for a in anchors:
        args += ["--anchor", a]
    proc = run_tether(args, root)
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["id"])


def stale_json(run_tether: RunTether, root: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    proc = run_tether(["stale", "--json", *extra], root)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_all_fresh_exits_zero_even_when_strict(project: Path, run_tether: RunTether) -> None:
    add(run_tether, project, "charge doubles", "pay.py::charge")
    proc = run_tether(["stale", "--strict"], project)
    assert proc.returncode == 0, proc.stderr
    doc = stale_json(run_tether, project)
    assert doc["rev"] == "working tree"
    assert doc["learnings"][0]["verdict"] == "fresh"


def test_stale_is_reported_recorded_once_and_strict_fails(
    project: Path, run_tether: RunTether
) -> None:
    lid = add(run_tether, project, "charge doubles the amount", "pay.py::charge")
    (project / "pay.py").write_text(CODE.replace("* 2", "* 3"))
    git(project, "commit", "-qam", "triple the charge")
    proc = run_tether(["stale", "--strict", "--json"], project)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    entry = doc["learnings"][0]
    assert (entry["id"], entry["verdict"]) == (lid, "stale")
    anchor = entry["anchors"][0]
    assert anchor["anchor"] == "pay.py::charge" and anchor["verdict"] == "stale"
    assert anchor["evidence"]["commits"][0]["subject"] == "triple the charge"
    assert anchor["evidence"]["commits"][0]["author"] == "Ada Test"
    assert doc["recorded"]["marked_stale"] == [lid]
    # The verdict did not change: a second run records nothing.
    again = stale_json(run_tether, project)
    assert again["recorded"] == {"reanchored": [], "marked_stale": []}
    shown = json.loads(run_tether(["show", lid, "--json"], project).stdout)
    assert shown["status"] == "stale"
    history = json.loads(run_tether(["show", lid, "--history", "--json"], project).stdout)[
        "history"
    ]
    assert [op["type"] for op in history] == ["add", "mark-stale"]


def test_moved_anchor_is_reanchored(project: Path, run_tether: RunTether) -> None:
    lid = add(run_tether, project, "refund negates", "pay.py::refund")
    (project / "pay.py").write_text(CODE.replace("def refund", "def reimburse"))
    git(project, "commit", "-qam", "rename refund")
    doc = stale_json(run_tether, project)
    assert doc["learnings"][0]["anchors"][0]["verdict"] == "moved"
    assert doc["recorded"]["reanchored"] == [lid]
    shown = json.loads(run_tether(["show", lid, "--json"], project).stdout)
    assert shown["anchors"][0]["symbol"] == "reimburse"
    assert stale_json(run_tether, project)["learnings"][0]["verdict"] == "fresh"


def test_rev_only_reports(project: Path, run_tether: RunTether) -> None:
    lid = add(run_tether, project, "refund negates", "pay.py::refund")
    (project / "pay.py").write_text(CODE.replace("def refund", "def reimburse"))
    git(project, "commit", "-qam", "rename refund")
    doc = stale_json(run_tether, project, "--rev", "HEAD")
    assert doc["rev"] == git(project, "rev-parse", "HEAD")
    assert doc["learnings"][0]["anchors"][0]["verdict"] == "moved"
    shown = json.loads(run_tether(["show", lid, "--json"], project).stdout)
    assert shown["anchors"][0]["symbol"] == "refund"


def test_staged_and_path_filter(project: Path, run_tether: RunTether) -> None:
    add(run_tether, project, "audit keeps a log", "pay.py::audit")
    (project / "other.py").write_text("def other():\n    return 1\n")
    git(project, "add", "other.py")
    git(project, "commit", "-qm", "other")
    add(run_tether, project, "other returns one", "other.py::other")
    (project / "pay.py").write_text(CODE.replace("log.append(entry)", "log.insert(0, entry)"))
    assert (
        stale_json(run_tether, project, "--staged", "--no-record")["learnings"][0]["verdict"]
        == "fresh"
    )
    git(project, "add", "pay.py")
    staged = stale_json(run_tether, project, "--staged", "--no-record")
    verdicts = {e["text"]: e["verdict"] for e in staged["learnings"]}
    assert verdicts == {"audit keeps a log": "stale", "other returns one": "fresh"}
    only = stale_json(run_tether, project, "--path", "other.py")
    assert [e["text"] for e in only["learnings"]] == ["other returns one"]


def test_orphaned_and_table_output(project: Path, run_tether: RunTether) -> None:
    add(run_tether, project, "audit keeps a log", "pay.py::audit")
    add(run_tether, project, "charge doubles", "pay.py::charge")
    (project / "pay.py").write_text(CODE.split("\n\n\ndef audit")[0] + "\n")
    git(project, "commit", "-qam", "drop audit")
    proc = run_tether(["stale"], project)
    assert proc.returncode == 0
    assert "orphaned" in proc.stdout and "pay.py::audit" in proc.stdout
    assert "charge doubles" not in proc.stdout  # fresh learnings are listed only with --all
    assert "charge doubles" in run_tether(["stale", "--all"], project).stdout


@pytest.mark.parametrize(
    "args", [["--rev", "no-such-rev"], ["--rev", "HEAD", "--staged"], ["--path", "../x"]]
)
def test_bad_input_is_one_line_exit_two_and_writes_nothing(
    project: Path, run_tether: RunTether, args: list[str]
) -> None:
    add(run_tether, project, "charge doubles", "pay.py::charge")
    log_before = run_tether(["log", "--json"], project).stdout
    proc = run_tether(["stale", *args], project)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert run_tether(["log", "--json"], project).stdout == log_before


def test_outside_a_repository_exits_four(tmp_path: Path, run_tether: RunTether) -> None:
    assert run_tether(["stale"], tmp_path).returncode == 4
