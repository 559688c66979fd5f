"""Bootstrap: a first memory of a repository from what it already says about itself.

Reads READMEs, manifests (pyproject.toml, package.json, go.mod, Cargo.toml, pom.xml, ...), CI
configs, infrastructure files and the last 90 days of git history, then writes:
- a BLUEPRINT.md draft with the eight sections (sections a person wrote are kept);
- USER.md profiles, one per recent author, from path ownership and activity (profiles a person
  edited, i.e. without the bootstrap source line, are kept);
- quarantined learnings, each anchored to the file it came from and tagged with a fact key.

Deterministic: no model, sorted inputs, and time measured from HEAD's commit date, so two runs at
the same commit write the same files. Re-runnable: a fact whose text is unchanged is skipped, one
whose text changed supersedes the old learning, so nothing is duplicated.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from anchors import git
from anchors.errors import TetherError
from anchors.record import Anchor, Evidence

if TYPE_CHECKING:
    from anchors.memory import Memory

WHO = "tether bootstrap"
SOURCE_LINE = "- Source: tether bootstrap"
HISTORY_DAYS = 90
MAX_FILE_BYTES = 256 * 1024
MANIFESTS = (
    "pyproject.toml", "setup.cfg", "requirements.txt", "package.json", "go.mod", "Cargo.toml",
    "pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "mix.exs",
)  # fmt: skip
CI_GLOBS = (
    ".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml", ".circleci/config.yml",
    "Jenkinsfile", "azure-pipelines.yml", ".travis.yml", ".ci/*", "bitbucket-pipelines.yml",
)  # fmt: skip
INFRA_GLOBS = (
    "Dockerfile", "*/Dockerfile", "docker-compose.yml", "docker-compose.yaml", "compose.yaml",
    "*.tf", "*/*.tf", "Procfile", "fly.toml", "vercel.json", "netlify.toml", "serverless.yml",
    "Chart.yaml", "*/Chart.yaml", "k8s/*.yaml", "kubernetes/*.yaml", "deploy/*.yaml",
)  # fmt: skip
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

Progress = Callable[[str, int, int], None]


@dataclass
class Fact:
    key: str  # stable identity across runs, e.g. "test-command"
    text: str
    category: str
    path: str  # the file it came from (its anchor)


@dataclass
class Activity:
    name: str
    email: str
    commits: int = 0
    dirs: Counter[str] = field(default_factory=Counter)
    last: str = ""
    conventional: int = 0


@dataclass
class Report:
    blueprint_written: bool = False
    profiles: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)  # fact keys refused (duplicate, scanner)

    def to_dict(self) -> dict[str, Any]:
        return {
            "blueprint_written": self.blueprint_written,
            "profiles": self.profiles,
            "added": self.added,
            "superseded": self.superseded,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
        }


class Repo:
    """Read-only access to the tracked files of the repository at HEAD's work tree."""

    def __init__(self, root: Path) -> None:
        self.root = root
        listed = git.run(["ls-files", "-z"], root, check=False).stdout.decode("utf-8", "replace")
        self.files = sorted(f for f in listed.split("\0") if f)
        self._set = set(self.files)

    def glob(self, pattern: str) -> list[str]:
        return [f for f in self.files if PurePosixPath(f).match(pattern) and _depth_ok(f, pattern)]

    def has(self, path: str) -> bool:
        return path in self._set

    def read(self, path: str) -> str:
        full = self.root / path
        try:
            if full.stat().st_size > MAX_FILE_BYTES:
                return ""
            return full.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""


def _depth_ok(path: str, pattern: str) -> bool:
    # PurePosixPath.match anchors at the right: keep `Dockerfile` from matching a/b/c/Dockerfile.
    return path.count("/") == pattern.count("/")


# -- readers -----------------------------------------------------------------------------------


def read_readme(repo: Repo) -> tuple[str, str]:
    """(path, first prose paragraph) of the top-level README."""
    for path in repo.files:
        if "/" not in path and path.lower().startswith("readme"):
            paragraphs = [p.strip() for p in re.split(r"\n\s*\n", repo.read(path))]
            for para in paragraphs:
                if para and not para.startswith(("#", "[![", "<", "```", "|")):
                    return path, " ".join(para.split())[:400]
            return path, ""
    return "", ""


def read_manifests(repo: Repo) -> tuple[list[str], list[Fact]]:
    """Stack lines and facts from package manifests."""
    lines: list[str] = []
    facts: list[Fact] = []
    for path in repo.files:
        name = PurePosixPath(path).name
        if name not in MANIFESTS or path.count("/") > 1:
            continue
        text = repo.read(path)
        if name == "pyproject.toml":
            data = _toml(text)
            project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
            deps = [
                re.split(r"[<>=!~ ;\[]", d)[0]
                for d in project.get("dependencies", [])
                if isinstance(d, str)
            ]
            py = project.get("requires-python", "")
            lines.append(
                f"Python package `{project.get('name', '?')}` ({path}){f', Python {py}' if py else ''}: {', '.join(deps[:12]) or 'no dependencies'}"
            )
            if py:
                facts.append(
                    Fact(
                        "python-version",
                        f"The project supports Python {py} (requires-python in {path}); do not use newer language features.",
                        "architecture",
                        path,
                    )
                )
            tools = data.get("tool", {}) if isinstance(data.get("tool"), dict) else {}
            linters = [
                t for t in ("ruff", "black", "mypy", "pytest", "isort", "pylint") if t in tools
            ]
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
        elif name == "package.json":
            try:
                data = json.loads(text or "{}")
            except json.JSONDecodeError:
                continue
            if not isinstance(data, dict):
                continue
            deps = sorted(
                {**(data.get("dependencies") or {}), **(data.get("devDependencies") or {})}
            )
            lines.append(
                f"Node package `{data.get('name', '?')}` ({path}): {', '.join(deps[:12]) or 'no dependencies'}"
            )
            scripts = data.get("scripts") or {}
            if isinstance(scripts, dict) and "test" in scripts:
                facts.append(
                    Fact(
                        f"npm-test:{path}",
                        f"JavaScript tests run with `npm test` ({scripts['test']!s:.80}), defined in {path}.",
                        "pattern",
                        path,
                    )
                )
        elif name == "go.mod":
            module = re.search(r"(?m)^module\s+(\S+)", text)
            version = re.search(r"(?m)^go\s+(\S+)", text)
            requires = re.findall(r"(?m)^\s+([\w./-]+)\s+v[\w.+-]+", text)
            lines.append(
                f"Go module `{module.group(1) if module else '?'}` ({path}){f', Go {version.group(1)}' if version else ''}: {', '.join(requires[:10]) or 'standard library only'}"
            )
        elif name == "Cargo.toml":
            data = _toml(text)
            package = data.get("package", {}) if isinstance(data.get("package"), dict) else {}
            deps = (
                sorted((data.get("dependencies") or {}).keys())
                if isinstance(data.get("dependencies"), dict)
                else []
            )
            lines.append(
                f"Rust crate `{package.get('name', '?')}` ({path}), edition {package.get('edition', '?')}: {', '.join(deps[:12]) or 'no dependencies'}"
            )
        elif name == "pom.xml":
            artifact = re.search(r"<artifactId>([^<]+)</artifactId>", text)
            deps = re.findall(
                r"<dependency>\s*<groupId>[^<]*</groupId>\s*<artifactId>([^<]+)</artifactId>", text
            )
            lines.append(
                f"Maven project `{artifact.group(1) if artifact else '?'}` ({path}): {', '.join(deps[:12]) or 'no dependencies'}"
            )
        elif name == "requirements.txt":
            deps = [
                re.split(r"[<>=!~ ;\[]", ln.strip())[0]
                for ln in text.splitlines()
                if ln.strip() and not ln.startswith(("#", "-"))
            ]
            lines.append(f"Python requirements ({path}): {', '.join(deps[:12])}")
        else:
            lines.append(f"{name} ({path})")
    return lines, facts


def _toml(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def read_ci(repo: Repo) -> tuple[list[str], list[Fact]]:
    lines: list[str] = []
    facts: list[Fact] = []
    for pattern in CI_GLOBS:
        for path in repo.glob(pattern):
            text = repo.read(path)
            commands = [
                c.strip().strip("'\"") for c in re.findall(r"(?m)^\s*-?\s*run:\s*(.+)$", text)
            ]
            if not commands and path.startswith(".ci/"):
                commands = [
                    ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")
                ][-3:]
            tests = [
                c
                for c in commands
                if re.search(
                    r"\b(pytest|make test|npm test|go test|cargo test|mvn test|gradle test|tox)\b",
                    c,
                )
            ]
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


def read_present(repo: Repo, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if repo.has(n)]


def read_history(root: Path, since: datetime) -> tuple[dict[str, Activity], Counter[str], int]:
    """Per-author activity, changes per file and the commit count since `since`."""
    fmt = "%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%s"
    proc = git.run(
        [
            "log",
            f"--since={since.isoformat()}",
            f"--format={fmt}",
            "--numstat",
            "--no-merges",
            "HEAD",
        ],
        root,
        check=False,
    )
    authors: dict[str, Activity] = {}
    files: Counter[str] = Counter()
    commits = 0
    for chunk in proc.stdout.decode("utf-8", "replace").split("\x1e")[1:]:
        head, _, rest = chunk.partition("\n")
        parts = head.split("\x1f")
        if len(parts) < 5:
            continue
        _sha, name, email, when, subject = parts[:5]
        commits += 1
        who = authors.setdefault(email.lower(), Activity(name=name, email=email.lower()))
        who.commits += 1
        who.last = max(who.last, when)
        if re.match(r"^(feat|fix|chore|docs|refactor|test|perf|build|ci)(\(.+\))?!?:", subject):
            who.conventional += 1
        for line in rest.splitlines():
            cols = line.split("\t")
            if len(cols) == 3 and cols[2]:
                path = cols[2]
                files[path] += 1
                top = path.split("/")[0] + "/" if "/" in path else path
                who.dirs[top] += 1
    return authors, files, commits


# -- assembling ----------------------------------------------------------------------------------


def head_time(root: Path) -> datetime:
    stamp = git.out(["log", "-1", "--format=%cI", "HEAD"], root) if git.head_commit(root) else ""
    if not stamp:
        return datetime(1970, 1, 1, tzinfo=timezone.utc)
    return datetime.fromisoformat(stamp).astimezone(timezone.utc)


def bootstrap(memory: Memory, progress: Progress | None = None) -> Report:
    """Read the repository and write the blueprint draft, profiles and quarantined learnings."""
    from anchors.stores import content_hash
    from anchors.stores.blueprint import Blueprint
    from anchors.stores.profiles import Profiles

    steps = [
        "files",
        "readme",
        "manifests",
        "ci",
        "infra",
        "history",
        "blueprint",
        "profiles",
        "learnings",
    ]
    done = 0

    def step(name: str) -> None:
        nonlocal done
        if progress is not None:
            progress(name, done, len(steps))
        done += 1

    if memory.repo.bare:
        raise TetherError("bootstrap needs a work tree (this repository is bare)")
    root = memory.root
    now = head_time(root)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    step("files")
    repo = Repo(root)
    step("readme")
    readme_path, summary = read_readme(repo)
    step("manifests")
    stack, facts = read_manifests(repo)
    step("ci")
    ci, ci_facts = read_ci(repo)
    step("infra")
    infra, infra_facts = read_infra(repo)
    facts += ci_facts + infra_facts
    step("history")
    authors, changed, commits = read_history(root, now - timedelta(days=HISTORY_DAYS))

    languages = Counter(
        LANGUAGE_BY_SUFFIX[PurePosixPath(f).suffix]
        for f in repo.files
        if PurePosixPath(f).suffix in LANGUAGE_BY_SUFFIX
    )
    top_dirs = sorted({f.split("/")[0] for f in repo.files if "/" in f})
    people = sorted(authors.values(), key=lambda a: (-a.commits, a.email))
    hot = [
        (p, n) for p, n in sorted(changed.items(), key=lambda kv: (-kv[1], kv[0])) if repo.has(p)
    ][:5]
    conventions = read_present(repo, CONVENTION_FILES)
    security = read_present(repo, SECURITY_FILES)
    todo = _todo_count(root)

    for person in people[:10]:
        owned = [d for d, _ in sorted(person.dirs.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]
        for directory in owned[:1]:
            share = person.dirs[directory] / max(1, sum(a.dirs[directory] for a in people))
            if share >= 0.5 and person.dirs[directory] >= 3 and directory.endswith("/"):
                facts.append(
                    Fact(
                        f"owner:{directory}",
                        f"{person.name} makes most changes under {directory} ({share:.0%} of file changes in the last {HISTORY_DAYS} days): ask them to review changes there.",
                        "preference",
                        directory.rstrip("/"),
                    )
                )
    for path, count in hot[:3]:
        if count >= 5:
            facts.append(
                Fact(
                    f"hot:{path}",
                    f"{path} is one of the most changed files ({count} commits in {HISTORY_DAYS} days): keep changes there small and well tested.",
                    "pattern",
                    path,
                )
            )

    step("blueprint")
    bodies = {
        "Architecture": "\n".join(
            filter(
                None,
                [
                    f"{summary} (from {readme_path})" if summary else "",
                    "Top-level directories: " + ", ".join(f"`{d}/`" for d in top_dirs[:15])
                    if top_dirs
                    else "",
                ],
            )
        ),
        "Stack": "\n".join(
            [
                f"- Languages: {', '.join(f'{lang} ({n} files)' for lang, n in languages.most_common(5))}"
            ]
            * bool(languages)
            + [f"- {line}" for line in stack]
        ),
        "Infrastructure": "\n".join(f"- {line}" for line in ci + infra),
        "Team": "\n".join(
            f"- {p.name}: {p.commits} commit(s) in {HISTORY_DAYS} days, mostly {', '.join(d for d, _ in p.dirs.most_common(2)) or '-'}"
            for p in people[:10]
        )
        or "- no commits in the last 90 days",
        "Conventions": "\n".join(
            [f"- Configured in: {', '.join(conventions)}"] * bool(conventions)
            + [
                f"- {sum(p.conventional for p in people)}/{commits} recent commit subjects follow Conventional Commits"
            ]
            * bool(commits)
        ),
        "Security posture": "\n".join([f"- Present: {', '.join(security)}"] * bool(security))
        or "- No SECURITY.md, CODEOWNERS or dependency-update config found.",
        "Repo health": f"- {len(repo.files)} tracked files; {commits} commit(s) by {len(people)} author(s) in the last {HISTORY_DAYS} days\n"
        + "\n".join(f"- Hot file: {p} ({n} commits)" for p, n in hot),
        "Open work": f"- {todo} TODO/FIXME marker(s) in tracked files"
        + "".join(f"\n- Branch: {b}" for b in _branches(root)[:10]),
    }
    blueprint = Blueprint(root)
    before = blueprint.read()
    blueprint.write_draft(bodies, who=WHO, when=stamp)
    after = blueprint.read()
    report = Report(blueprint_written=after != before)
    if report.blueprint_written:
        memory.record_store_write(
            "blueprint", "BLUEPRINT.md", content_hash(after), source="bootstrap"
        )

    step("profiles")
    profiles = Profiles(root)
    for person in people[:20]:
        existing = profiles.find(person.email) or profiles.find(person.name)
        if existing is not None and SOURCE_LINE not in existing.text:
            continue  # a person wrote this profile: keep it
        owns = ", ".join(
            d for d, _ in sorted(person.dirs.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
        )
        style = (
            "Conventional Commits"
            if person.conventional * 2 >= person.commits
            else "free-form commit subjects"
        )
        text = "\n".join([
            f"- Email: {person.email}",
            f"- Role: contributor ({person.commits} commit(s) in the last {HISTORY_DAYS} days)",
            f"- Repositories: {root.name}",
            f"- Ownership: {owns or '-'}",
            f"- Communication: {style}",
            "- Escalation: -",
            f"- Last active: {person.last[:10]}",
            SOURCE_LINE,
        ])  # fmt: skip
        name = existing.name if existing is not None else person.name
        if existing is None or existing.text.strip() != text:
            profiles.update(name, text)
            memory.record_store_write("profile", name, content_hash(text), source="bootstrap")
            report.profiles.append(name)

    step("learnings")
    _write_facts(memory, facts, report)
    if progress is not None:
        progress("done", len(steps), len(steps))
    return report


def _write_facts(memory: Memory, facts: list[Fact], report: Report) -> None:
    from anchors.lifecycle import NearDuplicate

    existing: dict[str, Any] = {}
    for record in memory.projection.query("source='bootstrap'"):
        for tag in record.tags:
            if tag.startswith("bootstrap:") and record.status in ("active", "stale", "quarantined"):
                existing[tag] = record
    for fact in sorted(facts, key=lambda f: f.key):
        tag = "bootstrap:" + fact_tag(fact.key)
        old = existing.get(tag)
        anchors = [Anchor(path=fact.path)] if fact.path else []
        evidence = (
            [Evidence(type="file", ref=fact.path, note="read by tether bootstrap")]
            if fact.path
            else []
        )
        try:
            if old is None:
                record = memory.add(
                    fact.text,
                    category=fact.category,
                    anchors=anchors,
                    tags=["bootstrap", tag],
                    evidence=evidence,
                    source="bootstrap",
                    confidence=0.6,
                )
                report.added.append(record.id)
            elif old.text != fact.text:
                record = memory.supersede(
                    old.id,
                    fact.text,
                    source="bootstrap",
                    status="quarantined",
                    anchors=anchors,
                    evidence=evidence,
                    confidence=0.6,
                )
                report.superseded.append(old.id)
            else:
                report.unchanged += 1
        except NearDuplicate:
            report.skipped.append(fact.key)
        except TetherError:
            report.skipped.append(fact.key)


def fact_tag(key: str) -> str:
    """A tag-safe (no spaces, <= 30 chars) stable key for a fact."""
    import hashlib

    slug = re.sub(r"[^A-Za-z0-9._-]", "-", key)[:18]
    return f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def _todo_count(root: Path) -> int:
    proc = git.run(["grep", "-I", "-c", "-E", r"\b(TODO|FIXME)\b", "HEAD", "--"], root, check=False)
    total = 0
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        with_count = line.rsplit(":", 1)
        if len(with_count) == 2 and with_count[1].isdigit():
            total += int(with_count[1])
    return total


def _branches(root: Path) -> list[str]:
    out = git.out(["for-each-ref", "--format=%(refname:short)", "refs/heads"], root)
    return sorted(b for b in out.splitlines() if b and b not in ("main", "master"))
