"""Score `tether history` and `git log -L` against the hand-made truth.

Commit-level precision and recall (micro-averaged over all symbols), and the share of symbols whose
whole history is exactly right (the same set of commits). For `tether history` also the share of
correct commits whose change kinds are exactly right.

    .venv/bin/python -m bench.anchors.accuracy [--repo NAME]... [--verbose] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.anchors.truth import Case, load, locate

# git's built-in function-name patterns for the languages it has one for; JavaScript has none,
# so git falls back to its default (a line starting with a letter, `$` or `_`).
ATTRIBUTES = "*.py diff=python\n*.go diff=golang\n*.rs diff=rust\n*.java diff=java\n"


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    exact: int = 0
    cases: int = 0
    kinds_right: int = 0
    errors: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, case: Case, found: set[str], label: str) -> None:
        truth = case.commits
        self.cases += 1
        self.tp += len(found & truth)
        self.fp += len(found - truth)
        self.fn += len(truth - found)
        if found == truth:
            self.exact += 1
        else:
            extra = ",".join(sorted(s[:8] for s in found - truth))
            missing = ",".join(sorted(s[:8] for s in truth - found))
            self.misses.append(f"{label}: extra [{extra}] missing [{missing}]")

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    def summary(self) -> dict[str, object]:
        return {
            "symbols": self.cases,
            "exact": self.exact,
            "exact_share": round(self.exact / self.cases, 3) if self.cases else 0.0,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "errors": self.errors,
        }


def tether_commits(repo: Path, case: Case) -> tuple[set[str], dict[str, tuple[str, ...]]]:
    """The history `anchors.history` gives (commits and their change kinds)."""
    from anchors.history import symbol_history

    history = symbol_history(repo, case.path, case.symbol, case.rev)
    return {e.commit for e in history.commits}, {e.commit: e.changes for e in history.commits}


def git_log_l_commits(repo: Path, case: Case, attributes: Path) -> set[str]:
    """What `git log -L :NAME:PATH` lists (NAME: the symbol's last part, as a user types it)."""
    short = case.symbol.rsplit(".", 1)[-1]
    proc = subprocess.run(
        ["git", "-c", f"core.attributesFile={attributes}", "log", case.rev, "-s", "--format=%H",
         "-L", f":{short}:{case.path}"],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    return set(proc.stdout.split()) if proc.returncode == 0 else set()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="history accuracy against the hand-made truth")
    ap.add_argument("--repo", action="append", help="only this subject repository")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every wrong history")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cases = load(args.repo)
    tether, gitl = Score(), Score()
    kinds_total = 0
    skipped: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        attributes = Path(tmp) / "attributes"
        attributes.write_text(ATTRIBUTES)
        for case in cases:
            repo = locate(case.repo)
            if repo is None:
                skipped.add(case.repo)
                continue
            try:
                found, kinds = tether_commits(repo, case)
            except Exception as exc:  # a crash is scored as an empty history, and said
                print(f"error: {case.label}: {exc}", file=sys.stderr)
                found, kinds = set(), {}
                tether.errors += 1
            tether.add(case, found, case.label)
            for sha, true_kinds in case.history:
                if sha in kinds:
                    kinds_total += 1
                    if set(kinds[sha]) == set(true_kinds):
                        tether.kinds_right += 1
                    elif args.verbose:
                        print(f"kinds {case.label} {sha[:8]}: {kinds[sha]} != {true_kinds}")
            gitl.add(case, git_log_l_commits(repo, case, attributes), case.label)
    result = {
        "tether_history": {
            **tether.summary(),
            "kinds_right": round(tether.kinds_right / kinds_total, 3) if kinds_total else 0.0,
        },
        "git_log_L": gitl.summary(),
        "repos": sorted({c.repo for c in cases} - skipped),
        "skipped_repos": sorted(skipped),
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for name, score in (("tether history", tether), ("git log -L", gitl)):
            s = score.summary()
            print(
                f"{name:15} symbols {s['symbols']}  exact {s['exact']} ({s['exact_share']:.0%})  "
                f"precision {s['precision']:.3f}  recall {s['recall']:.3f}"
            )
        print(f"tether change kinds exactly right: {result['tether_history']['kinds_right']:.0%}")
        if skipped:
            print(f"skipped (not found; see bench/anchors/truth.py): {', '.join(sorted(skipped))}")
        if args.verbose:
            for miss in tether.misses:
                print("tether  " + miss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
