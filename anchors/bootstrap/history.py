"""The last 90 days of git history: who changed what, which files change most, and the facts that
follow (who owns a directory, which files are hot)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from anchors import git
from anchors.bootstrap.facts import Fact

HISTORY_DAYS = 90
CONVENTIONAL_SUBJECT = re.compile(r"^(feat|fix|chore|docs|refactor|test|perf|build|ci)(\(.+\))?!?:")


@dataclass
class Activity:
    """One author's recent work."""

    name: str
    email: str
    commits: int = 0
    dirs: Counter[str] = field(default_factory=Counter)  # file changes per top-level directory
    last: str = ""  # ISO date of the latest commit
    conventional: int = 0  # commit subjects in Conventional Commits form

    def owned(self, n: int) -> list[str]:
        """The `n` top-level directories this author changed most, most first."""
        return [d for d, _ in sorted(self.dirs.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


@dataclass
class History:
    """Activity since a date: per author, changes per file, and the commit count."""

    authors: dict[str, Activity]
    changed: Counter[str]
    commits: int

    def people(self) -> list[Activity]:
        """Authors, most commits first (ties by email, so the order is stable)."""
        return sorted(self.authors.values(), key=lambda a: (-a.commits, a.email))


def head_time(root: Path) -> datetime:
    """HEAD's commit time (what "the last 90 days" count back from, so runs are deterministic)."""
    stamp = git.out(["log", "-1", "--format=%cI", "HEAD"], root) if git.head_commit(root) else ""
    if not stamp:
        return datetime(1970, 1, 1, tzinfo=timezone.utc)
    return datetime.fromisoformat(stamp).astimezone(timezone.utc)


def read_history(root: Path, since: datetime) -> History:
    """Per-author activity, changes per file and the commit count since `since` (merges left out)."""
    fmt = "%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%s"
    proc = git.run(
        ["log", f"--since={since.isoformat()}", f"--format={fmt}", "--numstat", "--no-merges", "HEAD"],
        root,
        check=False,
    )  # fmt: skip
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
        if CONVENTIONAL_SUBJECT.match(subject):
            who.conventional += 1
        for line in rest.splitlines():
            cols = line.split("\t")
            if len(cols) == 3 and cols[2]:
                path = cols[2]
                files[path] += 1
                top = path.split("/")[0] + "/" if "/" in path else path
                who.dirs[top] += 1
    return History(authors, files, commits)


def hot_files(history: History, tracked: set[str] | None = None) -> list[tuple[str, int]]:
    """The five most changed files that still exist, most changed first."""
    ranked = sorted(history.changed.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(p, n) for p, n in ranked if tracked is None or p in tracked][:5]


def ownership_facts(history: History, hot: list[tuple[str, int]]) -> list[Fact]:
    """Who to ask about a directory (an author with at least half of its recent changes) and
    which files change most (five commits or more)."""
    people = history.people()
    facts = []
    for person in people[:10]:
        for directory in person.owned(1):
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
    return facts


def todo_count(root: Path) -> int:
    """TODO and FIXME markers in the files tracked at HEAD."""
    proc = git.run(["grep", "-I", "-c", "-E", r"\b(TODO|FIXME)\b", "HEAD", "--"], root, check=False)
    total = 0
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        with_count = line.rsplit(":", 1)
        if len(with_count) == 2 and with_count[1].isdigit():
            total += int(with_count[1])
    return total


def branches(root: Path) -> list[str]:
    """Local branches other than main/master (open work), sorted."""
    out = git.out(["for-each-ref", "--format=%(refname:short)", "refs/heads"], root)
    return sorted(b for b in out.splitlines() if b and b not in ("main", "master"))
