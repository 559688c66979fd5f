"""Bootstrap's readers one by one, on a real repository: each manifest format, CI and
infrastructure files, history, and the files they must skip."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from anchors.bootstrap.history import head_time, hot_files, ownership_facts, read_history
from anchors.bootstrap.infrastructure import read_ci, read_infra
from anchors.bootstrap.manifests import read_manifests
from anchors.bootstrap.readme import read_readme
from anchors.bootstrap.tracked import MAX_FILE_BYTES, Repo
from tests.conftest import GIT_ENV, make_repo

FILES = {
    "README.md": "# Mixed\n\n[![ci](badge.svg)](x)\n\nA mixed-language   shop.\nSecond line.\n",
    "web/package.json": '{"name": "web", "dependencies": {"react": "18"}, '
    '"devDependencies": {"vite": "5"}, "scripts": {"test": "vitest run"}}',
    "svc/go.mod": "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/x/y v1.2.3\n)\n",
    "Cargo.toml": '[package]\nname = "crate"\nedition = "2021"\n[dependencies]\nserde = "1"\n',
    "pom.xml": "<project><artifactId>app</artifactId><dependency><groupId>g</groupId>"
    "<artifactId>junit</artifactId></dependency></project>",
    "requirements.txt": "flask>=2\n# a comment\n-e .\nrequests[socks]\n",
    "Gemfile": "source 'https://rubygems.org'\n",
    "api/package.json": "not json",
    "deep/er/pyproject.toml": '[project]\nname = "too-deep"\n',
    "Dockerfile": "FROM node:20 AS build\nFROM python:3.11-slim\n",
    "infra/main.tf": 'provider "aws" {}\nresource "aws_s3_bucket" "b" {}\nresource "aws_iam_role" "r" {}\n',
    "deploy/app.yaml": "replicas: 2\n",
    ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: npm ci\n      - run: 'go test ./...'\n",
    ".ci/run": "#!/bin/sh\nset -e\nmake lint\nmake test\n",
}


def commit(repo: Path, who: tuple[str, str], message: str, files: dict[str, str]) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1]}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo, check=True, env=env)


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "mixed")
    commit(repo, ("Ada Test", "ADA@example.com"), "feat: everything", FILES)
    return repo


def test_every_manifest_format_gives_its_stack_line(mixed: Path) -> None:
    lines, facts = read_manifests(Repo(mixed))
    assert lines == [
        "Rust crate `crate` (Cargo.toml), edition 2021: serde",
        "Gemfile (Gemfile)",
        "Maven project `app` (pom.xml): junit",
        "Python requirements (requirements.txt): flask, requests",
        "Go module `example.com/svc` (svc/go.mod), Go 1.22: github.com/x/y",
        "Node package `web` (web/package.json): react, vite",
    ]  # api/package.json is not JSON and deep/er/ is too deep: both skipped
    assert [f.key for f in facts] == ["npm-test:web/package.json"]
    assert "vitest run" in facts[0].text and facts[0].path == "web/package.json"


def test_ci_and_infrastructure(mixed: Path) -> None:
    repo = Repo(mixed)
    ci, ci_facts = read_ci(repo)
    assert ci == [
        ".github/workflows/ci.yml: 2 step(s); tests: go test ./...",
        ".ci/run: 3 step(s); tests: make test",
    ]
    assert {f.key for f in ci_facts} == {"ci-tests:.github/workflows/ci.yml", "ci-tests:.ci/run"}
    infra, infra_facts = read_infra(repo)
    assert infra == [
        "Container image from Dockerfile (base node:20, python:3.11-slim)",
        "Terraform infra/main.tf: providers aws, 2 resource(s)",
        "deploy/app.yaml",
    ]
    assert [f.text for f in infra_facts] == [
        "The container image built from Dockerfile starts from python:3.11-slim; upgrade the "
        "base image there, not ad hoc in CI."
    ]


def test_readme_skips_badges_and_joins_the_paragraph(mixed: Path) -> None:
    assert read_readme(Repo(mixed)) == ("README.md", "A mixed-language shop. Second line.")


def test_large_and_binary_files_read_as_empty(mixed: Path) -> None:
    commit(mixed, ("Ada Test", "ada@example.com"), "data", {
        "big.txt": "x" * (MAX_FILE_BYTES + 1),
    })  # fmt: skip
    (mixed / "bin.dat").write_bytes(b"\xff\xfe\x00")
    repo = Repo(mixed)
    assert repo.read("big.txt") == "" and repo.read("bin.dat") == ""
    assert repo.read("missing.txt") == ""


def test_history_counts_authors_by_lowercased_email_and_finds_owners(mixed: Path) -> None:
    for i in range(5):
        commit(
            mixed, ("Ada Test", "ada@example.com"), f"fix: svc {i}", {"svc/main.go": f"// {i}\n"}
        )
    commit(mixed, ("Bob", "bob@example.com"), "tweak", {"web/app.js": "1\n"})
    history = read_history(mixed, head_time(mixed).replace(year=2000))
    ada = history.authors["ada@example.com"]
    assert ada.commits == 7 and ada.conventional == 6  # the fixture's "initial" is not one
    assert [p.email for p in history.people()] == ["ada@example.com", "bob@example.com"]
    hot = hot_files(history, set(Repo(mixed).files))
    assert hot[0] == ("svc/main.go", 5)
    keys = {f.key for f in ownership_facts(history, hot)}
    assert keys == {"owner:svc/", "hot:svc/main.go"}
