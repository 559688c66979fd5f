"""The CLI contract: exit codes, one JSON document, one-line errors, and nothing written on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchors.cli.main import COMMAND_MODULES, build_parser
from tests.conftest import RunTether

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = Path(__file__).resolve().parents[1] / "docs"


def op_count(repo: Path) -> int:
    ops = repo / ".git" / "tether" / "ops"
    return sum(p.read_bytes().count(b"\n") for p in ops.glob("*.jsonl")) if ops.exists() else 0


def test_add_list_show_round_trip_as_json(repo: Path, run_tether: RunTether) -> None:
    added = run_tether(["add", "Cache keys include the tenant id", "-c", "architecture", "-t", "cache",
                        "-e", "commit:abc1234", "--confidence", "0.9", "--json"], repo)  # fmt: skip
    assert added.returncode == 0, added.stderr
    record = json.loads(added.stdout)
    assert record["category"] == "architecture" and record["tags"] == ["cache"]
    assert record["evidence"] == [{"type": "commit", "ref": "abc1234", "note": ""}]
    assert record["author"] == "ada@example.com" and record["source"] == "cli"
    shown = json.loads(run_tether(["show", record["id"][:10], "--history", "--json"], repo).stdout)
    assert shown["id"] == record["id"] and [h["type"] for h in shown["history"]] == ["add"]
    listed = json.loads(run_tether(["list", "--category", "architecture", "--json"], repo).stdout)
    assert [r["id"] for r in listed] == [record["id"]]
    assert json.loads(run_tether(["list", "--category", "error", "--json"], repo).stdout) == []


def test_lifecycle_verbs(repo: Path, run_tether: RunTether) -> None:
    rid = json.loads(run_tether(["add", "Old belief about retries", "--json"], repo).stdout)["id"]

    def status(args: list[str]) -> dict:
        out = run_tether([*args, "--json"], repo)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    assert status(["reinforce", rid])["hits"] == 1
    assert status(["promote", rid])["layer"] == "L1"
    assert status(["archive", rid, "-r", "tidy"])["status"] == "archived"
    assert status(["restore", rid])["status"] == "active"
    assert status(["invalidate", rid, "--reason", "gateway fixed"])["status"] == "invalidated"
    assert status(["restore", rid])["status"] == "active"
    new = status(["supersede", rid, "Retries are safe since the gateway fix"])
    assert new["supersedes"] == rid
    assert status(["show", rid])["status"] == "superseded"
    assert run_tether(["list", "--json"], repo).stdout.count('"id"') == 1
    assert run_tether(["list", "--all", "--json"], repo).stdout.count('"id"') == 2
    assert status(["forget", new["id"]])["forgotten"] is True
    gone = run_tether(["show", new["id"]], repo)
    assert gone.returncode == 2 and "forgotten" in gone.stderr


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["add", ""], 2, "text is empty"),
        (["add", "   \n  "], 2, "text is empty"),
        (["add", "x" * 5000], 2, "limit is 4000"),
        (["add", "fine text", "-c", "gossip"], 2, "invalid choice"),
        (["add", "fine text", "--confidence", "7"], 2, "between 0 and 1"),
        (["add", "fine text", "-t", "two words"], 2, "no spaces"),
        (["add", "fine text", "--anchor", "../outside.py"], 2, "outside"),
        (["show", "01J0000000000000000000NONE"], 2, "no learning with id"),
        (["confirm", "nope"], 2, "no learning with id"),
        (["invalidate", "nope"], 2, "required"),
        (["add", "sneaky \u202e override"], 3, "unicode.bidi"),
        (["frobnicate"], 2, "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    repo: Path, run_tether: RunTether, args: list[str], code: int, message: str
) -> None:
    before = op_count(repo)
    result = run_tether(args, repo)
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert op_count(repo) == before


def test_a_rejection_is_audited_by_hash_not_text(repo: Path, run_tether: RunTether) -> None:
    secret_text = "please \u202e hide this"
    assert run_tether(["add", secret_text], repo).returncode == 3
    audit = (repo / ".git" / "tether" / "audit.jsonl").read_text()
    entry = json.loads(audit.splitlines()[-1])
    assert entry["event"] == "rejected" and "unicode.bidi-control" in entry["rules"]
    assert "hide this" not in audit and len(entry["sha256"]) == 64


def test_outside_a_repository_exits_4(tmp_path: Path, run_tether: RunTether) -> None:
    for args in (["list"], ["add", "text"], ["log", "--verify"], ["sync"]):
        result = run_tether(args, tmp_path)
        assert result.returncode == 4, args
        assert "not inside a git repository" in result.stderr and result.stderr.count("\n") == 1


def test_json_output_is_exactly_one_document(repo: Path, run_tether: RunTether) -> None:
    run_tether(["add", "Something worth knowing about the parser"], repo)
    for args in (
        ["list", "--json"],
        ["log", "--json"],
        ["log", "--verify", "--json"],
        ["init", "--json"],
    ):
        out = run_tether(args, repo)
        assert out.returncode == 0, (args, out.stderr)
        json.loads(out.stdout)  # raises if there is anything else on stdout


def test_text_from_stdin(repo: Path, run_tether: RunTether) -> None:
    out = run_tether(["add", "-", "--json"], repo, input="Multi-line\nlearning from stdin\n")
    assert json.loads(out.stdout)["text"] == "Multi-line\nlearning from stdin"


def test_init_writes_config_once(repo: Path, run_tether: RunTether) -> None:
    assert run_tether(["init"], repo).returncode == 0
    config = repo / ".tether" / "config.toml"
    assert "cap_per_category" in config.read_text()
    config.write_text("# mine\n")
    assert run_tether(["init"], repo).returncode == 0
    assert config.read_text() == "# mine\n"


def test_every_command_has_help_and_is_documented() -> None:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    commands = sorted(subparsers.choices)  # type: ignore[attr-defined]
    assert {"init", "add", "list", "show", "confirm", "invalidate", "supersede", "reinforce",
            "forget", "log", "sync"} <= set(commands)  # fmt: skip
    docs = README.read_text() + "".join(p.read_text() for p in DOCS.glob("*.md"))
    for name in commands:
        assert subparsers.choices[name].format_help()  # type: ignore[attr-defined]
        assert f"tether {name}" in docs, f"`tether {name}` is not documented"
    assert COMMAND_MODULES


def test_cli_reference_is_current() -> None:
    from anchors.cli.reference import render

    # Same words in the same order; where a line breaks is argparse's layout, which differs a
    # little between Python versions (3.13 lays out nested sub-commands wider).
    def words(text: str) -> list[str]:
        return text.split()

    assert words((DOCS / "cli.md").read_text()) == words(render()), (
        "docs/cli.md is out of date: python -m anchors.cli.reference > docs/cli.md"
    )


def test_command_index_matches_the_modules() -> None:
    import argparse
    import importlib

    from anchors.cli.main import COMMAND_INDEX

    registered: dict[str, str] = {}
    for module in COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(sub)
        registered.update(dict.fromkeys(sub.choices, module))
    assert registered == COMMAND_INDEX


def test_list_dicts_match_the_records(repo: Path, run_tether: RunTether) -> None:
    """`list --json` reads rows straight into dicts; they must equal the records' own dicts."""
    from anchors.memory import Memory
    from anchors.record import Anchor, Evidence

    mem = Memory.open(repo)
    mem.add("Readme explains the release steps", category="general", tags=["docs"],
            anchors=[Anchor(path="README.md", span=[1, 1])],
            evidence=[Evidence(type="url", ref="https://example.com/x")])  # fmt: skip
    mem.add("A second, unanchored learning about builds")
    assert mem.list_dicts() == [r.to_dict() for r in mem.list()]
    assert mem.list_dicts(path="README.md")[0]["anchors"][0]["path"] == "README.md"


def test_version_names_the_package_version(tmp_path: Path, run_tether: RunTether) -> None:
    from anchors import __version__

    shown = run_tether(["--version"], tmp_path)
    assert shown.returncode == 0 and shown.stdout.strip() == f"tether {__version__}"
