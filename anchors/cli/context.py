"""`tether context`: the budgeted markdown pack an agent loads at session start."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from anchors.cli.output import print_json


def cmd_context(args: argparse.Namespace) -> int:
    from anchors.config import load_config
    from anchors.context import context_pack
    from anchors.memory import Memory

    memory = Memory.open()
    budget = args.budget if args.budget is not None else load_config(memory.root).context_budget
    pack = context_pack(memory, budget=budget, session=args.session or "", files=args.files or [])
    if args.json:
        print_json(
            {"session": args.session or "", "budget": budget, "chars": len(pack), "markdown": pack}
        )
    else:
        sys.stdout.write(pack)
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("context", help="print the context pack for an agent session")
    p.add_argument("--budget", type=int, help="at most this many characters (default 2000)")
    p.add_argument("--session", metavar="S", help="freeze the pack for this session id")
    p.add_argument("--files", nargs="+", metavar="PATH", help="the files in play")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_context)
