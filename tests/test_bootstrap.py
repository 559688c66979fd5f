"""Bootstrap on a real repository with history by two authors: drafts, profiles, quarantine, re-runs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from anchors.bootstrap import bootstrap
from anchors.memory import Memory
from anchors.stores.blueprint import Blueprint
from anchors.stores.profiles import Profiles
from tests.conftest import GIT_ENV, make_repo


def commit(repo: Path, who: tuple[str, str], message: str, files: dict[str, str]) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1]}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=env)


ADA = ("Ada Test", "ada@example.com")
BOB = ("Bob Builder", "bob@example.com")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "shop")
    commit(repo, ADA, "feat: project skeleton", {
        "README.md": "# Shop\n\nA small web shop: catalog, cart and payments in one Django app.\n",
        "pyproject.toml": '[project]\nname = "shop"\nrequires-python = ">=3.11"\n'
        'dependencies = ["django>=5", "stripe"]\n\n[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\n',
        "package.json": '{"name": "shop-ui", "scripts": {"test": "vitest run"}, "devDependencies": {"vite": "5"}}',
        ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n      - run: pip install -e .\n      - run: pytest -q\n",
        "Dockerfile": "FROM python:3.11-slim\nCOPY . /app\n",
    })  # fmt: skip
    for i in range(5):
        commit(repo, ADA, f"fix: payment retry {i}", {"src/payments/client.py": f"# v{i}\n"})
    for i in range(3):
        commit(repo, BOB, f"chore: infra {i}", {"deploy/values.yaml": f"replicas: {i}\n"})
    commit(repo, BOB, "wip", {"src/catalog/models.py": "# TODO: split\n"})
    return repo


def test_bootstrap_writes_blueprint_profiles_and_quarantined_learnings(shop: Path) -> None:
    mem = Memory.open(shop)
    steps: list[str] = []
    report = bootstrap(mem, lambda step, done, total: steps.append(step))
    assert steps[0] == "files" and steps[-1] == "done"

    blueprint = Blueprint(shop)
    assert blueprint.check() == []
    assert "A small web shop" in blueprint.get("architecture").body
    stack = blueprint.get("stack").body
    assert (
        "Python package `shop`" in stack and "django" in stack and "Node package `shop-ui`" in stack
    )
    assert "pytest -q" in blueprint.get("infrastructure").body
    assert "python:3.11-slim" in blueprint.get("infrastructure").body
    assert "1 TODO/FIXME" in blueprint.get("open work").body

    people = {p.name: p for p in Profiles(shop).list()}
    assert set(people) == {"Ada Test", "Bob Builder"}
    assert people["Ada Test"].field("Ownership").startswith("src/")
    assert people["Bob Builder"].field("Ownership").startswith("deploy/")
    assert people["Ada Test"].field("Communication") == "Conventional Commits"

    learned = mem.list(status="quarantined")
    assert learned and all(r.source == "bootstrap" for r in learned)
    assert len(report.added) == len(learned)
    texts = " ".join(r.text for r in learned)
    assert "pytest -q" in texts and "Python >=3.11" in texts
    assert mem.list() == []  # none of it is active (nor in any context pack) until reinforced
    assert all(r.anchors for r in learned)


def test_bootstrap_is_deterministic_and_rerunnable(shop: Path) -> None:
    mem = Memory.open(shop)
    first = bootstrap(mem)
    files = {p: (shop / ".tether" / p).read_bytes() for p in ("BLUEPRINT.md", "USER.md")}
    count = len(mem.list(status="quarantined"))
    again = bootstrap(Memory.open(shop))
    assert again.added == [] and again.superseded == [] and again.unchanged == len(first.added)
    assert again.profiles == [] and not again.blueprint_written
    assert {p: (shop / ".tether" / p).read_bytes() for p in files} == files
    assert len(Memory.open(shop).list(status="quarantined")) == count


def test_rerun_keeps_hand_edits_and_updates_changed_facts(shop: Path) -> None:
    mem = Memory.open(shop)
    bootstrap(mem)
    Blueprint(shop).update(
        "conventions",
        "We pair on payments changes.",
        who="ada@example.com",
        when="2026-01-01T00:00:00Z",
    )
    Profiles(shop).update("Bob Builder", "- Role: SRE, owns deploys")
    commit(shop, ADA, "feat: py312", {
        "pyproject.toml": '[project]\nname = "shop"\nrequires-python = ">=3.12"\ndependencies = ["django>=5"]\n',
    })  # fmt: skip
    report = bootstrap(Memory.open(shop))
    assert Blueprint(shop).get("conventions").body == "We pair on payments changes."
    assert Profiles(shop).get("Bob Builder").text == "- Role: SRE, owns deploys"
    assert len(report.superseded) == 1
    versions = [
        r.text for r in Memory.open(shop).list(status="quarantined") if "requires-python" in r.text
    ]
    assert versions == [
        "The project supports Python >=3.12 (requires-python in pyproject.toml); do not use newer language features."
    ]


def test_a_profile_the_scanner_refuses_is_left_out_not_fatal(shop: Path) -> None:
    # An author name with a hidden bidi override: that profile is refused, the rest is written.
    commit(shop, ("Eve\u202eTest", "eve@example.com"), "fix: x", {"src/x.py": "# x\n"})
    commit(shop, ("Gh User", "11172084+97littleleaf11@users.noreply.github.com"), "fix: y",
           {"src/y.py": "# y\n"})  # fmt: skip
    report = bootstrap(Memory.open(shop))
    assert any(s.startswith("profile 'Eve") and "bidi" in s for s in report.skipped), report.skipped
    assert "Ada Test" in report.profiles and "Gh User" in report.profiles
    assert report.added and report.blueprint_written


def test_cli_bootstrap(shop: Path, run_tether) -> None:  # type: ignore[no-untyped-def]
    out = run_tether(["bootstrap", "--json"], shop)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["blueprint_written"] is True
    plain = run_tether(["bootstrap"], shop)
    assert plain.returncode == 0 and "learnings: 0 added" in plain.stdout
    assert run_tether(["blueprint", "check"], shop).returncode == 0
