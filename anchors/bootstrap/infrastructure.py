"""CI configs and infrastructure files: what runs the tests, what builds and deploys the code."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from anchors.bootstrap.facts import Fact
from anchors.bootstrap.tracked import Repo

CI_GLOBS = (
    ".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml", ".circleci/config.yml",
    "Jenkinsfile", "azure-pipelines.yml", ".travis.yml", ".ci/*", "bitbucket-pipelines.yml",
)  # fmt: skip
INFRA_GLOBS = (
    "Dockerfile", "*/Dockerfile", "docker-compose.yml", "docker-compose.yaml", "compose.yaml",
    "*.tf", "*/*.tf", "Procfile", "fly.toml", "vercel.json", "netlify.toml", "serverless.yml",
    "Chart.yaml", "*/Chart.yaml", "k8s/*.yaml", "kubernetes/*.yaml", "deploy/*.yaml",
)  # fmt: skip
TEST_COMMAND = re.compile(
    r"\b(pytest|make test|npm test|go test|cargo test|mvn test|gradle test|tox)\b"
)


def read_ci(repo: Repo) -> tuple[list[str], list[Fact]]:
    """One line per CI config (its step count and test command) and a fact per test command."""
    lines: list[str] = []
    facts: list[Fact] = []
    for pattern in CI_GLOBS:
        for path in repo.glob(pattern):
            text = repo.read(path)
            commands = [
                c.strip().strip("'\"") for c in re.findall(r"(?m)^\s*-?\s*run:\s*(.+)$", text)
            ]
            if not commands and path.startswith(".ci/"):
                # A plain script: its last few commands are where the tests usually run.
                commands = [
                    ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")
                ][-3:]
            tests = [c for c in commands if TEST_COMMAND.search(c)]
            lines.append(
                f"{path}: {len(commands)} step(s){f'; tests: {tests[0]}' if tests else ''}"
            )
            if tests:
                facts.append(
                    Fact(
                        f"ci-tests:{path}",
                        f"CI runs the tests with `{tests[0][:120]}` ({path}); run the same command locally before pushing.",
                        "pattern",
                        path,
                    )
                )
    return lines, facts


def read_infra(repo: Repo) -> tuple[list[str], list[Fact]]:
    """One line per infrastructure file (images, Terraform, deploy configs), and a fact per
    container base image."""
    lines: list[str] = []
    facts: list[Fact] = []
    for pattern in INFRA_GLOBS:
        for path in repo.glob(pattern):
            text = repo.read(path)
            if PurePosixPath(path).name == "Dockerfile":
                bases = re.findall(r"(?mi)^FROM\s+(\S+)", text)
                lines.append(
                    f"Container image from {path}"
                    + (f" (base {', '.join(bases)})" if bases else "")
                )
                if bases:
                    facts.append(
                        Fact(
                            f"docker-base:{path}",
                            f"The container image built from {path} starts from {bases[-1]}; upgrade the base image there, not ad hoc in CI.",
                            "architecture",
                            path,
                        )
                    )
            elif path.endswith(".tf"):
                providers = sorted(set(re.findall(r'(?m)^\s*provider\s+"([\w-]+)"', text)))
                resources = re.findall(r'(?m)^\s*resource\s+"([\w-]+)"', text)
                lines.append(
                    f"Terraform {path}: providers {', '.join(providers) or '?'}, {len(resources)} resource(s)"
                )
            else:
                lines.append(f"{path}")
    return lines, facts
