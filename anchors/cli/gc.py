"""`tether gc [--dry-run] [--json]`: remove what forgotten learnings said from the log and the ref."""

from __future__ import annotations

import argparse
from typing import Any

from anchors.cli.output import note, print_json, print_line


def cmd_gc(args: argparse.Namespace) -> int:
    from anchors.gc import gc
    from anchors.memory import Memory

    report = gc(Memory.open(), dry_run=args.dry_run)
    if args.json:
        print_json(report.to_dict())
        return 0
    if not report.forgotten:
        print_line("nothing to do: no learning has been forgotten")
        return 0
    verb = "would redact" if report.dry_run else "redacted"
    print_line(
        f"{verb} {report.redacted} ops of {report.forgotten} forgotten learnings in "
        f"{len(report.partitions)} partitions"
        + (f"; {report.sessions} frozen context packs dropped" if report.sessions else "")
    )
    if report.commit:
        note(
            "tether: refs/tether/log now holds only the redacted log; `tether sync` replaces the "
            "remote's history with it (clones that fetched the old history keep it until they sync)"
        )
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "gc", help="remove the words of forgotten learnings from the op-log and the shared ref"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="say what would be redacted, change nothing"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_gc)
