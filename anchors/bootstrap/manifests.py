"""Package manifests (pyproject.toml, package.json, go.mod, Cargo.toml, pom.xml, ...): one stack
line each for the blueprint, and the facts worth a learning (supported Python, tooling, scripts,
the test command)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from anchors.bootstrap.facts import Fact
from anchors.bootstrap.tracked import Repo

MANIFESTS = (
    "pyproject.toml", "setup.cfg", "requirements.txt", "package.json", "go.mod", "Cargo.toml",
    "pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "mix.exs",
)  # fmt: skip
# A requirement's name ends at its first version operator, space, marker or extra.
_REQUIREMENT_END = r"[<>=!~ ;\[]"

# (stack line, facts), or None when the file is not what its name says (the file is skipped).
Reading = tuple[str, list[Fact]] | None


def read_manifests(repo: Repo) -> tuple[list[str], list[Fact]]:
    """Stack lines and facts from the package manifests at the top level and one directory down."""
    lines: list[str] = []
    facts: list[Fact] = []
    for path in repo.files:
        name = PurePosixPath(path).name
        if name not in MANIFESTS or path.count("/") > 1:
            continue
        reader = READERS.get(name)
        reading = reader(path, repo.read(path)) if reader else (f"{name} ({path})", [])
        if reading is None:
            continue
        lines.append(reading[0])
        facts += reading[1]
    return lines, facts


def pyproject(path: str, text: str) -> Reading:
    data = _toml(text)
    project = _table(data, "project")
    deps = [
        re.split(_REQUIREMENT_END, d)[0]
        for d in project.get("dependencies", [])
        if isinstance(d, str)
    ]
    py = project.get("requires-python", "")
    line = f"Python package `{project.get('name', '?')}` ({path}){f', Python {py}' if py else ''}: {', '.join(deps[:12]) or 'no dependencies'}"
    facts = []
    if py:
        facts.append(
            Fact(
                "python-version",
                f"The project supports Python {py} (requires-python in {path}); do not use newer language features.",
                "architecture",
                path,
            )
        )
    tools = _table(data, "tool")
    linters = [t for t in ("ruff", "black", "mypy", "pytest", "isort", "pylint") if t in tools]
    if linters:
        facts.append(
            Fact(
                "python-tools",
                f"Python tooling is configured in {path}: {', '.join(linters)}; follow their settings rather than personal defaults.",
                "preference",
                path,
            )
        )
    scripts = project.get("scripts", {})
    if isinstance(scripts, dict) and scripts:
        facts.append(
            Fact(
                "python-scripts",
                f"Console scripts declared in {path}: {', '.join(f'{k} -> {v}' for k, v in sorted(scripts.items())[:6])}.",
                "architecture",
                path,
            )
        )
    return line, facts


def package_json(path: str, text: str) -> Reading:
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    deps = sorted({**(data.get("dependencies") or {}), **(data.get("devDependencies") or {})})
    line = f"Node package `{data.get('name', '?')}` ({path}): {', '.join(deps[:12]) or 'no dependencies'}"
    scripts = data.get("scripts") or {}
    facts = []
    if isinstance(scripts, dict) and "test" in scripts:
        facts.append(
            Fact(
                f"npm-test:{path}",
                f"JavaScript tests run with `npm test` ({scripts['test']!s:.80}), defined in {path}.",
                "pattern",
                path,
            )
        )
    return line, facts


def go_mod(path: str, text: str) -> Reading:
    module = re.search(r"(?m)^module\s+(\S+)", text)
    version = re.search(r"(?m)^go\s+(\S+)", text)
    requires = re.findall(r"(?m)^\s+([\w./-]+)\s+v[\w.+-]+", text)
    return (
        f"Go module `{module.group(1) if module else '?'}` ({path}){f', Go {version.group(1)}' if version else ''}: {', '.join(requires[:10]) or 'standard library only'}",
        [],
    )


def cargo_toml(path: str, text: str) -> Reading:
    data = _toml(text)
    package = _table(data, "package")
    deps = sorted(_table(data, "dependencies").keys())
    return (
        f"Rust crate `{package.get('name', '?')}` ({path}), edition {package.get('edition', '?')}: {', '.join(deps[:12]) or 'no dependencies'}",
        [],
    )


def pom_xml(path: str, text: str) -> Reading:
    artifact = re.search(r"<artifactId>([^<]+)</artifactId>", text)
    deps = re.findall(
        r"<dependency>\s*<groupId>[^<]*</groupId>\s*<artifactId>([^<]+)</artifactId>", text
    )
    return (
        f"Maven project `{artifact.group(1) if artifact else '?'}` ({path}): {', '.join(deps[:12]) or 'no dependencies'}",
        [],
    )


def requirements_txt(path: str, text: str) -> Reading:
    deps = [
        re.split(_REQUIREMENT_END, ln.strip())[0]
        for ln in text.splitlines()
        if ln.strip() and not ln.startswith(("#", "-"))
    ]
    return f"Python requirements ({path}): {', '.join(deps[:12])}", []


READERS: dict[str, Callable[[str, str], Reading]] = {
    "pyproject.toml": pyproject,
    "package.json": package_json,
    "go.mod": go_mod,
    "Cargo.toml": cargo_toml,
    "pom.xml": pom_xml,
    "requirements.txt": requirements_txt,
}


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    """data[key] when it is a table, else {} (a manifest may hold anything under any key)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _toml(text: str) -> dict[str, Any]:
    from anchors import toml as tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
