"""Hook `tether-sync`: move the op-log with git, at the stages where git moves.

- post-commit: commit the local partitions to `refs/tether/log` (nothing leaves the machine).
- pre-push: sync the ref with the remote being pushed to (fetch, union, push, retry on a race),
  beside the branch.
- post-merge, post-checkout: refresh the projection (`.git/tether/index.sqlite`).

The stage comes from `--stage`, else from what the pre-commit framework sets in the environment
(`PRE_COMMIT_REMOTE_NAME` at pre-push, `PRE_COMMIT_CHECKOUT_TYPE` at post-checkout,
`PRE_COMMIT_IS_SQUASH_MERGE` at post-merge), else post-commit. The hook never blocks the user's
git operation: a repository without `tether init`, no remote, a detached HEAD, a refused or raced
push each print one line and exit 0.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from anchors import git
from anchors.errors import TetherError
from hooks import staged

STAGES = ("post-commit", "pre-push", "post-merge", "post-checkout")
# Set while the hook runs: the push it makes runs the pre-push hook again, which must not recurse.
GUARD = "TETHER_SYNC_HOOK_RUNNING"


def detect_stage(environ: Mapping[str, str]) -> str:
    """The git hook stage the pre-commit framework is running us at."""
    if environ.get("PRE_COMMIT_REMOTE_NAME"):
        return "pre-push"
    if "PRE_COMMIT_CHECKOUT_TYPE" in environ:
        return "post-checkout"
    if "PRE_COMMIT_IS_SQUASH_MERGE" in environ:
        return "post-merge"
    return "post-commit"


def run_stage(
    root: Path, stage: str, remote: str | None = None, file_checkout: bool = False
) -> str:
    """Do the stage's work in the repository at `root`; return one line saying what happened."""
    if not staged.is_initialised(root):
        return ""  # not a Tether repository: nothing to do, nothing to say
    from anchors.memory import Memory

    if stage in ("post-merge", "post-checkout"):
        if file_checkout:
            return ""  # `git checkout -- file` moves no commit
        Memory.open(root)  # opening refreshes a projection that is behind the log
        return "tether: projection refreshed"
    from anchors import sync

    memory = Memory.open(root, refresh=False)
    if stage == "post-commit":
        commit = sync.publish(memory)
        return f"tether: op-log committed to {sync.REF} ({commit[:10]})" if commit else ""
    report = sync.sync(memory, remote)
    parts = [f"tether: op-log synced with {report.remote}"]
    if report.imported_ops:
        parts.append(f"{report.imported_ops} op(s) imported")
    if report.quarantined:
        parts.append(f"{len(report.quarantined)} quarantined (see `tether log`)")
    if report.forks:
        parts.append(f"forked partitions: {', '.join(report.forks)}")
    return "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; git's own hook arguments (remote name and URL at pre-push) are accepted."""
    parser = argparse.ArgumentParser(prog="tether-sync", description=__doc__)
    parser.add_argument("--stage", choices=STAGES, help="default: detected from the environment")
    parser.add_argument("hook_args", nargs="*", help="arguments git passes to the hook")
    args = parser.parse_args(argv)
    if os.environ.get(GUARD):
        return 0
    stage = args.stage or detect_stage(os.environ)
    remote = os.environ.get("PRE_COMMIT_REMOTE_NAME") or None
    if stage == "pre-push" and remote is None and args.hook_args:
        remote = args.hook_args[0]  # a plain pre-push hook gets: <remote name> <remote url>
    file_checkout = os.environ.get("PRE_COMMIT_CHECKOUT_TYPE") == "0" or (
        stage == "post-checkout" and len(args.hook_args) >= 3 and args.hook_args[2] == "0"
    )
    os.environ[GUARD] = "1"
    try:
        line = run_stage(staged.repo_root(), stage, remote, file_checkout)
    except (TetherError, git.GitError, OSError) as exc:
        message = getattr(exc, "message", None) or str(exc)
        print(f"tether-sync ({stage}): {message}; the op-log was not synced", file=sys.stderr)
        return 0
    finally:
        os.environ.pop(GUARD, None)
    if line:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
