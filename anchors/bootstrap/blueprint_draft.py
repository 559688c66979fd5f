"""The BLUEPRINT.md draft: the eight sections' bodies from what the other readers found."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from anchors.bootstrap.history import HISTORY_DAYS, History
from anchors.bootstrap.tracked import Repo

CONVENTION_FILES = (
    ".editorconfig", ".pre-commit-config.yaml", ".eslintrc", ".eslintrc.json", ".eslintrc.js",
    ".prettierrc", "ruff.toml", ".ruff.toml", "setup.cfg", "tox.ini", ".golangci.yml",
    "rustfmt.toml", "Makefile", "CONTRIBUTING.md",
)  # fmt: skip
SECURITY_FILES = (
    "SECURITY.md", ".github/dependabot.yml", ".github/CODEOWNERS", "CODEOWNERS",
    ".gitleaks.toml", ".github/workflows/codeql.yml",
)  # fmt: skip
LANGUAGE_BY_SUFFIX = {
    ".py": "Python", ".js": "JavaScript", ".jsx": "JavaScript", ".ts": "TypeScript",
    ".tsx": "TypeScript", ".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin",
    ".rb": "Ruby", ".php": "PHP", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++",
    ".cs": "C#", ".swift": "Swift", ".scala": "Scala", ".ex": "Elixir", ".lua": "Lua",
}  # fmt: skip


@dataclass
class Findings:
    """Everything the readers found that the blueprint draws on."""

    readme_path: str
    summary: str
    stack: list[str]  # one line per manifest
    infrastructure: list[str]  # one line per CI config and infrastructure file
    history: History
    hot: list[tuple[str, int]]
    todos: int
    branches: list[str]


def languages(repo: Repo) -> Counter[str]:
    """Tracked source files per language, by suffix."""
    return Counter(
        LANGUAGE_BY_SUFFIX[PurePosixPath(f).suffix]
        for f in repo.files
        if PurePosixPath(f).suffix in LANGUAGE_BY_SUFFIX
    )


def draft_sections(repo: Repo, found: Findings) -> dict[str, str]:
    """Section title -> body for the eight required sections."""
    history = found.history
    people = history.people()
    langs = languages(repo)
    top_dirs = sorted({f.split("/")[0] for f in repo.files if "/" in f})
    conventions = repo.present(CONVENTION_FILES)
    security = repo.present(SECURITY_FILES)
    architecture = [
        f"{found.summary} (from {found.readme_path})" if found.summary else "",
        "Top-level directories: " + ", ".join(f"`{d}/`" for d in top_dirs[:15]) if top_dirs else "",
    ]
    stack = [
        f"- Languages: {', '.join(f'{lang} ({n} files)' for lang, n in langs.most_common(5))}"
    ] * bool(langs) + [f"- {line}" for line in found.stack]
    team = "\n".join(
        f"- {p.name}: {p.commits} commit(s) in {HISTORY_DAYS} days, mostly {', '.join(d for d, _ in p.dirs.most_common(2)) or '-'}"
        for p in people[:10]
    )
    conventional = sum(p.conventional for p in people)
    return {
        "Architecture": "\n".join(filter(None, architecture)),
        "Stack": "\n".join(stack),
        "Infrastructure": "\n".join(f"- {line}" for line in found.infrastructure),
        "Team": team or "- no commits in the last 90 days",
        "Conventions": "\n".join(
            [f"- Configured in: {', '.join(conventions)}"] * bool(conventions)
            + [
                f"- {conventional}/{history.commits} recent commit subjects follow Conventional Commits"
            ]
            * bool(history.commits)
        ),
        "Security posture": "\n".join([f"- Present: {', '.join(security)}"] * bool(security))
        or "- No SECURITY.md, CODEOWNERS or dependency-update config found.",
        "Repo health": f"- {len(repo.files)} tracked files; {history.commits} commit(s) by {len(people)} author(s) in the last {HISTORY_DAYS} days\n"
        + "\n".join(f"- Hot file: {p} ({n} commits)" for p, n in found.hot),
        "Open work": f"- {found.todos} TODO/FIXME marker(s) in tracked files"
        + "".join(f"\n- Branch: {b}" for b in found.branches[:10]),
    }
