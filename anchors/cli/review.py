"""`tether review`: promotion candidates, due reviews, change conditions, stale and quarantined learnings."""

from __future__ import annotations

import argparse
from typing import Any

from anchors.cli.output import print_json, print_line, print_table


def cmd_review(args: argparse.Namespace) -> int:
    from anchors.lifecycle import promotion_candidates, review_items
    from anchors.memory import Memory

    memory = Memory.open()
    candidates = promotion_candidates(memory)
    items = review_items(memory)
    quarantined = memory.list(status="quarantined")
    if args.json:
        print_json({
            "promotion_candidates": [{"id": r.id, "hits": r.hits, "text": r.text, "category": r.category} for r in candidates],
            "review": [{"id": i.record.id, "reason": i.reason, "detail": i.detail, "text": i.record.text} for i in items],
            "quarantined": [{"id": r.id, "source": r.source, "text": r.text} for r in quarantined],
        })  # fmt: skip
        return 0
    if not (candidates or items or quarantined):
        print_line("nothing to review")
        return 0
    if candidates:
        print_table(
            "promotion candidates (tether promote ID makes one L1, always loaded)",
            ["id", "hits", "category", "text"],
            [[r.id, r.hits, r.category, " ".join(r.text.split())[:90]] for r in candidates],
        )
    if items:
        print_table(
            "to review",
            ["id", "why", "detail", "text"],
            [
                [i.record.id, i.reason, i.detail, " ".join(i.record.text.split())[:70]]
                for i in items
            ],
        )
    if quarantined:
        print_table(
            "quarantined until reinforced (tether reinforce ID, or invalidate)",
            ["id", "source", "text"],
            [[r.id, r.source, " ".join(r.text.split())[:90]] for r in quarantined],
        )
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "review", help="what needs a decision: promotions, due reviews, quarantine"
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_review)
