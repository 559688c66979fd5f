"""The hand-made ground truth of symbol histories, and where its subject repositories are.

Each `truth/<repo>.json` holds: the repository (`repo`, `source`: where to clone it), the commit
the truth is as of (`rev`), and per symbol its `path`, qualified `symbol`, `history` (commit sha and
change kinds, newest first), `not_changes` (commits that touched the symbol's lines but only in
whitespace or comments, with why) and a `note` for tricky cases. See docs/anchors.md for how the
histories were established.

Subject repositories are found under $TETHER_SUBJECTS (default: /work/subjects, then
bench/anchors/subjects) as `<repo>/`; `--fetch` clones the missing ones from their `source`.

    .venv/bin/python -m bench.anchors.truth [--expand] [--fetch] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRUTH_DIR = HERE / "truth"


@dataclass(frozen=True)
class Case:
    """One symbol's true history."""

    repo: str
    rev: str
    path: str
    symbol: str
    history: tuple[tuple[str, tuple[str, ...]], ...]  # (sha, kinds), newest first
    note: str

    @property
    def commits(self) -> set[str]:
        return {sha for sha, _ in self.history}

    @property
    def label(self) -> str:
        return f"{self.repo}:{self.path}::{self.symbol}"


def subject_dirs() -> list[Path]:
    """Where subject repositories are looked for, in order."""
    dirs = []
    if os.environ.get("TETHER_SUBJECTS"):
        dirs.append(Path(os.environ["TETHER_SUBJECTS"]))
    dirs += [Path("/work/subjects"), HERE / "subjects"]
    return dirs


def locate(repo: str) -> Path | None:
    """The checkout of a subject repository, or None."""
    for base in subject_dirs():
        candidate = base / repo
        if (candidate / ".git").exists() or (candidate / "HEAD").exists():
            return candidate
    return None


def fetch(repo: str, source: str) -> Path:
    """Clone a missing subject repository (full history) into the first subject directory."""
    base = subject_dirs()[0]
    base.mkdir(parents=True, exist_ok=True)
    url = source
    if source.startswith("github:"):
        url = "https://github.com/" + source.split(":", 1)[1] + ".git"
    subprocess.run(["git", "clone", "--quiet", url, str(base / repo)], check=True)
    return base / repo


def load(names: list[str] | None = None) -> list[Case]:
    """All cases of the truth files (or only those of the named repositories)."""
    cases: list[Case] = []
    for file in sorted(TRUTH_DIR.glob("*.json")):
        data = json.loads(file.read_text())
        if names and data["repo"] not in names:
            continue
        for entry in data["symbols"]:
            cases.append(
                Case(
                    repo=data["repo"],
                    rev=data["rev"],
                    path=entry["path"],
                    symbol=entry["symbol"],
                    history=tuple((sha, tuple(kinds)) for sha, kinds in entry["history"]),
                    note=entry.get("note", ""),
                )
            )
    return cases


def _full(repo: Path, sha: str) -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", f"{sha}^{{commit}}"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{repo.name}: unknown commit {sha}")
    return out.stdout.strip()


def expand() -> None:
    """Rewrite the abbreviated shas of the truth files as full ones (hand-written ones are short)."""
    for file in sorted(TRUTH_DIR.glob("*.json")):
        data = json.loads(file.read_text())
        repo = locate(data["repo"])
        if repo is None:
            print(f"skip {file.name}: {data['repo']} not found", file=sys.stderr)
            continue
        data["rev"] = _full(repo, data["rev"])
        for entry in data["symbols"]:
            entry["history"] = [[_full(repo, sha), kinds] for sha, kinds in entry["history"]]
            entry["not_changes"] = [[_full(repo, sha), why] for sha, why in entry["not_changes"]]
        text = json.dumps(data, indent=1)
        file.write_text(text + "\n")


def check(repos: list[str] | None = None) -> int:
    """Every truth commit is an ancestor of the truth's rev, and the symbol exists there."""
    bad = 0
    for case in load():
        if repos and case.repo not in repos:
            continue
        repo = locate(case.repo)
        if repo is None:
            continue
        for sha, _ in case.history:
            ok = subprocess.run(
                ["git", "merge-base", "--is-ancestor", sha, case.rev], cwd=repo
            ).returncode
            if ok != 0:
                print(f"{case.label}: {sha} is not an ancestor of {case.rev}")
                bad += 1
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--expand", action="store_true", help="write full shas into the truth files")
    ap.add_argument("--fetch", action="store_true", help="clone missing subject repositories")
    ap.add_argument("--check", action="store_true", help="check the truth against the repos")
    ap.add_argument(
        "--repo", action="append", help="check only this repository's truth (repeatable)"
    )
    args = ap.parse_args(argv)
    if args.fetch:
        for file in sorted(TRUTH_DIR.glob("*.json")):
            data = json.loads(file.read_text())
            if locate(data["repo"]) is None:
                fetch(data["repo"], data["source"])
    if args.expand:
        expand()
    if args.check:
        return check(args.repo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
