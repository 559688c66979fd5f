"""Aid for establishing the ground truth by hand: an exhaustive sweep (not used by the scorer or by
`tether history`).

For one symbol and the stretches of history in which it lived at one path under one name (decided
by a person from the diffs of the commits where it moved or was renamed), this checks every commit
that touched that path in that stretch: the symbol's text before and after (the independent lookup
of `bench/anchors/review.py`: comments removed, whitespace squeezed). A commit is listed when the
text differs; a merge only when it differs from every parent. Unlike `git log -L` and `tether
history`, it does not follow line ranges, so it cannot lose the symbol; it can only be wrong where
the lookup is (which the person checks in the listed diffs).

    .venv/bin/python -m bench.anchors.sweep REPO PATH::SYMBOL@REV [PATH::SYMBOL@REV ...]

Each stretch is PATH::SYMBOL@REV: walk the commits reachable from REV that touched PATH (newest
first) and stop at the commit where the symbol is absent before it (its start in that stretch).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.anchors.review import _EXT, blob, find


def _squeeze(text: str | None) -> str | None:
    return None if text is None else "".join(text.split())


def sweep(repo: Path, path: str, symbol: str, rev: str) -> list[tuple[str, str]]:
    """(commit, verdict) for the commits of one stretch where the symbol's code changed."""
    language = _EXT[Path(path).suffix]
    log = subprocess.run(
        ["git", "log", "--format=%H %P", rev, "--", path],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    found: list[tuple[str, str]] = []
    cache: dict[str, str | None] = {}

    def text_at(commit: str) -> str | None:
        if commit not in cache:
            cache[commit] = _squeeze(find(blob(repo, commit, path) or b"", language, symbol))
        return cache[commit]

    for line in log:
        if not line:
            continue
        sha, *parents = line.split()
        now = text_at(sha)
        if now is None:
            continue
        before = [text_at(p) for p in parents]
        if not parents or all(b is None for b in before):
            found.append((sha, "absent before: start of this stretch"))
            continue
        if all(b != now for b in before):
            found.append((sha, "changed" + (" (merge)" if len(parents) > 1 else "")))
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    repo = Path(args[0])
    for stretch in args[1:]:
        spec, _, rev = stretch.rpartition("@")
        path, _, symbol = spec.partition("::")
        print(f"== {path}::{symbol} from {rev}")
        for sha, verdict in sweep(repo, path, symbol, rev):
            subject = subprocess.run(
                ["git", "log", "-1", "--format=%h %ad %s", "--date=short", sha],
                cwd=repo,
                capture_output=True,
                text=True,
            ).stdout.strip()
            print(f"   {sha[:10]} {verdict:40} {subject[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
