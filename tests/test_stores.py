"""The file stores: notebook (cap, separators, data dir), profiles (cap, unknown person), blueprint."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from anchors.errors import Rejected, UsageError
from anchors.stores import StoreFull, UnknownEntry
from anchors.stores.blueprint import SECTIONS, Blueprint
from anchors.stores.notebook import CAP_CHARS, Notebook, notebook_path, split_entries
from anchors.stores.profiles import Profiles

# -- notebook ---------------------------------------------------------------------------------


def test_notebook_lives_in_the_data_dir_not_the_repo(repo: Path) -> None:
    path = notebook_path(repo)
    assert Path(os.environ["XDG_DATA_HOME"]) in path.parents
    assert repo not in path.parents
    book = Notebook(path)
    book.add("first note")
    book.add("second\nnote")
    assert book.entries() == ["first note", "second\nnote"]
    assert path.read_text() == "first note\n§\nsecond\nnote\n"


def test_notebook_over_cap_is_refused_with_size_and_candidates(repo: Path) -> None:
    book = Notebook.for_repo(repo)
    book.add("a" * 1000)
    book.add("b" * 900)
    before = book.read()
    with pytest.raises(StoreFull) as info:
        book.add("c" * 400)
    message = info.value.message
    assert f"/{CAP_CHARS} characters" in message
    assert "#1 (1000 chars)" in message  # an entry whose removal makes room
    assert book.read() == before  # nothing written


def test_notebook_exactly_at_cap_is_accepted(repo: Path) -> None:
    book = Notebook.for_repo(repo)
    book.add("x" * (CAP_CHARS - 1))  # plus the trailing newline
    assert book.size() == CAP_CHARS


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
def test_notebook_rejects_whitespace_entries(repo: Path, text: str) -> None:
    with pytest.raises(UsageError, match="empty"):
        Notebook.for_repo(repo).add(text)
    assert not notebook_path(repo).exists()


def test_notebook_entry_goes_through_the_scanner(repo: Path) -> None:
    with pytest.raises(Rejected, match="unicode.bidi-control"):
        Notebook.for_repo(repo).add("looks fine\u202eexe.txt")


def test_notebook_remove_and_bad_number(repo: Path) -> None:
    book = Notebook.for_repo(repo)
    book.add("one")
    book.add("two")
    assert book.remove(1) == "one"
    assert book.entries() == ["two"]
    with pytest.raises(UnknownEntry):
        book.remove(5)


def test_split_entries_tolerates_hand_edits() -> None:
    assert split_entries("a\n§\n\n§\n b \n  §  \nc") == ["a", "b", "c"]


def test_notebook_cli(repo: Path, run_tether) -> None:  # type: ignore[no-untyped-def]
    assert run_tether(["notebook", "add", "use make test"], repo).returncode == 0
    shown = run_tether(["notebook", "show", "--json"], repo)
    assert json.loads(shown.stdout)["entries"] == ["use make test"]
    blank = run_tether(["notebook", "add", "   "], repo)
    assert blank.returncode == 2 and "empty" in blank.stderr
    full = run_tether(["notebook", "add", "z" * 3000], repo)
    assert full.returncode == 2 and "notebook is full" in full.stderr
    assert full.stderr.count("\n") == 1


# -- profiles ---------------------------------------------------------------------------------


def test_profiles_round_trip_and_lookup_by_email(repo: Path) -> None:
    profiles = Profiles(repo)
    profiles.update("Ada Lovelace", "- Email: ada@example.com\n- Ownership: src/pay/, docs/")
    profiles.update("Bob", "- Role: infra")
    assert [p.name for p in profiles.list()] == ["Ada Lovelace", "Bob"]
    assert profiles.get("ADA@example.com").field("Ownership") == "src/pay/, docs/"
    profiles.update("ada lovelace", "- Role: lead")  # replaces, keeps the spelling
    assert [p.name for p in profiles.list()] == ["Ada Lovelace", "Bob"]
    assert profiles.summary() == "Team: Ada Lovelace (lead), Bob (infra)"


def test_unknown_person_names_who_is_known(repo: Path) -> None:
    Profiles(repo).update("Ada", "- Role: lead")
    with pytest.raises(UnknownEntry, match=r"no profile for 'Grace'.*known: Ada"):
        Profiles(repo).get("Grace")


def test_profile_cap_and_headings_refused(repo: Path) -> None:
    profiles = Profiles(repo)
    profiles.update("Ada", "x" * 1375)
    with pytest.raises(StoreFull, match="1376 characters; the cap is 1375"):
        profiles.update("Ada", "x" * 1376)
    with pytest.raises(StoreFull, match="heading"):
        profiles.update("Ada", "fine\n## Eve\nsneaky second entry")
    assert profiles.get("Ada").text == "x" * 1375


# -- blueprint --------------------------------------------------------------------------------


def test_blueprint_check_names_missing_sections(repo: Path) -> None:
    blueprint = Blueprint(repo)
    assert blueprint.check() == [
        ".tether/BLUEPRINT.md does not exist (tether bootstrap writes a draft)"
    ]
    blueprint.update(
        "architecture", "A monolith.", who="ada@example.com", when="2026-01-01T00:00:00Z"
    )
    problems = blueprint.check()
    assert "empty section: Stack" in problems and len(problems) == 7
    for name in SECTIONS:
        blueprint.update(name, f"About {name}.", who="ada@example.com", when="2026-01-02T00:00:00Z")
    assert blueprint.check() == []
    section = blueprint.get("SECURITY_POSTURE")
    assert section.body == "About Security posture."
    assert section.updated == ("ada@example.com", "2026-01-02T00:00:00Z")


def test_blueprint_hand_written_file_missing_sections(repo: Path) -> None:
    (repo / ".tether").mkdir()
    (repo / ".tether" / "BLUEPRINT.md").write_text(
        "# Blueprint\n\n## Architecture\n\nx\n\n## Stack\n\ny\n"
    )
    problems = Blueprint(repo).check()
    assert problems == [f"missing section: {n}" for n in SECTIONS[2:]]


def test_blueprint_unknown_section(repo: Path) -> None:
    with pytest.raises(UnknownEntry, match="unknown blueprint section 'gossip'"):
        Blueprint(repo).update("gossip", "x", who="a", when="b")


def test_blueprint_cli_check_exit_codes_and_update_records_an_op(repo: Path, run_tether) -> None:  # type: ignore[no-untyped-def]
    missing = run_tether(["blueprint", "check"], repo)
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    for name in SECTIONS:
        assert run_tether(["blueprint", "update", name, f"{name} text"], repo).returncode == 0
    ok = run_tether(["blueprint", "check", "--json"], repo)
    assert ok.returncode == 0 and json.loads(ok.stdout) == {"ok": True, "problems": []}
    ops = [
        json.loads(line[line.index("{") :])
        for f in (repo / ".git" / "tether" / "ops").glob("*.jsonl")
        for line in f.read_text().splitlines()
    ]
    writes = [op for op in ops if op["type"] == "store-write"]
    assert len(writes) == 8 and all(op["author"] == "ada@example.com" for op in writes)
