"""`tether log [--verify] [--json]`: the op history, and a check of every partition's hash chain."""

from __future__ import annotations

import argparse
from typing import Any

from anchors.cli.output import print_json, print_line, print_table
from anchors.errors import EXIT_FINDINGS


def cmd_log(args: argparse.Namespace) -> int:
    from anchors.memory import Memory
    from anchors.projection import load_quarantine

    mem = Memory.open()
    quarantine = load_quarantine(mem.tether_dir)
    skipped = mem.projection.skipped()
    report = mem.oplog.verify() if args.verify else None
    ops = []
    if not args.verify or args.json:
        for op in mem.oplog.merged():
            ops.append(op)
        ops = ops[-args.limit :] if args.limit else ops
        ops.reverse()
    if args.json:
        doc: dict[str, Any] = {
            "ops": [op.to_dict() for op in ops],
            "quarantined": [quarantine[k] for k in sorted(quarantine)],
            "skipped": [s.__dict__ for s in skipped],
        }
        if report is not None:
            doc["verify"] = {
                "ok": report.ok, "partitions": report.parts, "ops": report.ops,
                "redacted": report.redacted, "issues": [i.__dict__ for i in report.issues],
            }  # fmt: skip
        print_json(doc)
        return EXIT_FINDINGS if report is not None and not report.ok else 0
    if report is not None:
        if report.ok:
            redacted = f" ({report.redacted} redacted by gc)" if report.redacted else ""
            print_line(
                f"ok: {report.ops} ops in {report.parts} partitions, every chain intact{redacted}"
            )
        for issue in report.issues:
            where = f"line {issue.line}" if issue.line else "end"
            what = f"op {issue.op_id[:16]}" if issue.op_id else "a line"
            print_line(f"BAD {issue.part} {where}: {what}: {issue.problem}")
    else:
        print_table(
            "op-log (newest first)",
            ["time", "op", "target", "author", "clock"],
            [[op.time, op.type, op.target, op.author, op.clock] for op in ops],
        )
    for key in sorted(quarantine):
        entry = quarantine[key]
        print_line(
            f"quarantined {str(entry.get('op', ''))[:16]} ({key[0]}): {entry.get('reason', '')}"
        )
    for s in skipped:
        print_line(f"skipped {s.part} {s.op_id[:16]}: {s.problem}")
    return EXIT_FINDINGS if report is not None and not report.ok else 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("log", help="show the op-log; --verify checks every hash chain")
    p.add_argument(
        "--verify", action="store_true", help="check hashes and chains; exit 1 on damage"
    )
    p.add_argument("--limit", type=int, default=50, help="newest N ops (0 for all)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_log)
