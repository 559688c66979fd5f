"""Hook `tether-stale`: the learnings whose anchored code the staged change modifies.

Only learnings anchored in the staged files are looked at, and their anchors are resolved against
the index with the same resolver as `tether stale --staged` (symbol fingerprints, renames, moves,
line-range hunks). Each one whose code changed is listed with its text and what to do about it:
`tether confirm ID` when it still holds, `tether supersede ID "new text"` when it does not. The hook
only reports (it writes no ops): exit 0 by default, 1 with `--strict` when anything is listed.
A repository without `tether init` has nothing to check: exit 0 with nothing printed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from anchors import git
from anchors.errors import TetherError
from hooks import staged

if TYPE_CHECKING:
    from anchors.record import Learning
    from anchors.resolve import Verdict

# Verdicts that mean "a person should look at this learning before committing".
FLAGGED = ("stale", "orphaned", "changed")


@dataclass
class Flagged:
    learning: Learning
    verdicts: list[Verdict]  # the anchors that the change touched (not fresh, not moved)


def check_staged(root: Path) -> list[Flagged]:
    """Learnings anchored in staged files whose code the staged change modifies (the pure core)."""
    if not staged.is_initialised(root):
        return []
    changed = staged.staged_paths(root, deleted=True)
    if not changed:
        return []
    from anchors.memory import Memory
    from anchors.resolve import Resolver

    memory = Memory.open(root)
    changed_set = set(changed)
    # One query for all staged paths (a query per path costs more than the resolving).
    marks = ",".join("?" * len(changed))
    found = memory.projection.query(
        f"status IN ('active','stale') AND id IN "
        f"(SELECT record_id FROM anchors WHERE path IN ({marks}))",
        changed,
    )
    learnings: dict[str, Learning] = {learning.id: learning for learning in found}
    if not learnings:
        return []
    # Only the anchors in changed files: the others cannot have moved with this commit.
    pairs = [
        (learning, anchor)
        for learning in learnings.values()
        for anchor in learning.anchors
        if anchor.path in changed_set
    ]
    with Resolver(root, staged=True) as resolver:
        verdicts = resolver.resolve_all([anchor for _, anchor in pairs])
    flagged: dict[str, Flagged] = {}
    for (learning, _), verdict in zip(pairs, verdicts, strict=True):
        if verdict.status in FLAGGED:
            flagged.setdefault(learning.id, Flagged(learning, [])).verdicts.append(verdict)
    return list(flagged.values())


def describe(item: Flagged) -> list[str]:
    """Lines for people: the learning, what happened to its code, and the commands that settle it."""
    learning = item.learning
    short = learning.id[:10]
    text = " ".join(learning.text.split())
    lines = [f"{short} [{learning.category}] {text[:200]}{'…' if len(text) > 200 else ''}"]
    for verdict in item.verdicts:
        detail = f": {verdict.detail}" if verdict.detail else ""
        lines.append(f"    {verdict.anchor.label()} is {verdict.status}{detail}")
    lines.append(f"    still true?  tether confirm {short}")
    lines.append(f'    not any more? tether supersede {short} "what is true now"')
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the hook (file names from the framework are ignored)."""
    parser = argparse.ArgumentParser(prog="tether-stale", description=__doc__)
    parser.add_argument("--strict", action="store_true", help="fail when a learning is listed")
    parser.add_argument("filenames", nargs="*", help="ignored: the index says what is staged")
    args = parser.parse_args(argv)
    try:
        flagged = check_staged(staged.repo_root())
    except (git.GitError, TetherError, OSError) as exc:
        # A broken memory must not stop people from committing code: say so and let it pass.
        message = getattr(exc, "message", None) or str(exc)
        print(f"tether-stale: could not check learnings: {message}", file=sys.stderr)
        return 1 if args.strict else 0
    if not flagged:
        return 0
    try:
        print(f"tether-stale: this commit changes code that {len(flagged)} learning(s) describe:")
        for item in flagged:
            for line in describe(item):
                print(line)
    except BrokenPipeError:  # piped into `head`: the reader has what it wanted
        pass
    return 1 if args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
