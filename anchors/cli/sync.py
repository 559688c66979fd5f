"""`tether sync [--remote R]`: share the op-log through the remote's `refs/tether/log`."""

from __future__ import annotations

import argparse
from typing import Any

from anchors.cli.output import note, print_json, print_line
from anchors.errors import EXIT_FINDINGS


def cmd_sync(args: argparse.Namespace) -> int:
    from anchors.memory import Memory
    from anchors.sync import sync

    mem = Memory.open()
    report = sync(mem, args.remote)
    if args.json:
        print_json(report.to_dict())
    else:
        print_line(
            f"synced with {report.remote}: {report.imported_ops} new ops from "
            f"{len(report.imported_parts)} partitions"
            + (", pushed" if report.pushed else ", nothing to push")
        )
        for line in report.forks:
            note(f"tether: fork: {line}")
        for line in report.skipped:
            note(f"tether: skipped: {line}")
        for line in report.quarantined:
            note(f"tether: quarantined: {line}")
    return EXIT_FINDINGS if report.forks else 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("sync", help="fetch, merge and push the shared op-log")
    p.add_argument("--remote", help="remote name or URL (default: origin)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sync)
