"""`tether init|add|list|show|confirm|invalidate|supersede|reinforce|forget|promote|archive|restore`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from anchors.cli.output import note, print_json, print_line, print_table
from anchors.errors import UsageError
from anchors.record import CATEGORIES, STATUSES, Anchor, Learning, parse_evidence


def _memory() -> Any:
    from anchors.memory import Memory

    return Memory.open()


def _text_arg(value: str) -> str:
    if value == "-":
        return sys.stdin.read()
    return value


def parse_anchor(root: Any, spec: str) -> tuple[Anchor, str]:
    """An anchor spec resolved against the repository; returns (anchor, notice)."""
    from anchors.specs import resolve_spec

    result = resolve_spec(root, spec)
    return result.anchor, result.note


def learning_row(rec: Learning) -> list[Any]:
    anchors = "; ".join(a.label() for a in rec.anchors)
    first = rec.text.splitlines()[0]
    if len(first) > 160:
        first = first[:159] + "…"
    return [rec.id, rec.category, rec.status, first, anchors, rec.author]


def learning_json(rec: Learning) -> dict[str, Any]:
    return rec.to_dict()


# -- commands -------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    from anchors.memory import Memory

    mem = Memory.open()
    config_dir = mem.root / ".tether"
    created = []
    if not mem.repo.bare:
        config_dir.mkdir(exist_ok=True)
        config = config_dir / "config.toml"
        if not config.exists():
            config.write_text(DEFAULT_CONFIG)
            created.append(str(config.relative_to(mem.root)))
        # A long history gets its commit-graph now, in the background, so that the first
        # `tether history` walk is already fast (anchors.commit_graph).
        from anchors.commit_graph import refresh
        from anchors.git import head_commit

        refresh(str(mem.root), head_commit(mem.root))
    if args.json:
        print_json({"root": str(mem.root), "tether_dir": str(mem.tether_dir), "created": created,
                    "partition": mem.oplog.part})  # fmt: skip
    else:
        print_line(f"tether ready in {mem.root} (op-log under {mem.tether_dir})")
        for path in created:
            print_line(f"created {path}: commit it to share the settings")
    return 0


DEFAULT_CONFIG = """# Tether settings for this repository (commit this file).

[learnings]
# At most this many learnings per category; a write past the cap archives the least salient one.
cap_per_category = 100

[scan]
# Extra paths (globs) the tether-scan hook treats as memory files, beside .tether/**.
paths = []
"""


def cmd_add(args: argparse.Namespace) -> int:
    mem = _memory()
    text = _text_arg(args.text)
    anchors = []
    for spec in args.anchor or []:
        anchor, notice = parse_anchor(mem.root, spec)
        if notice:
            note(f"tether: {notice}")
        anchors.append(anchor)
    record = mem.add(
        text,
        category=args.category,
        anchors=anchors,
        tags=args.tag or [],
        evidence=[parse_evidence(e) for e in args.evidence or []],
        confidence=args.confidence,
        description=args.description or "",
        source=args.source,
        session=args.session or "",
    )
    archived = getattr(mem, "archived_for_cap", [])
    if args.json:
        print_json({**learning_json(record), "archived": archived})
        return 0
    print_line(f"added {record.id} ({record.category}, {record.status})")
    for victim in archived:
        print_line(f"archived {victim}: over the {record.category} cap (tether restore {victim})")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    mem = _memory()
    as_of = getattr(args, "as_of", None)
    if as_of:
        from anchors import lifecycle

        records = lifecycle.as_of(mem, as_of)  # type: ignore[attr-defined]
        if args.category:
            records = [r for r in records if r.category == args.category]
        if args.status:
            records = [r for r in records if r.status == args.status]
    elif args.json:
        print_json(mem.list_dicts(args.category, args.status, args.path, include_hidden=args.all))
        return 0
    else:
        records = mem.list(args.category, args.status, args.path, include_hidden=args.all)
    if args.json:
        print_json([learning_json(r) for r in records])
        return 0
    if not records:
        print_line("no learnings")
        return 0
    print_table(
        f"{len(records)} learnings",
        ["id", "category", "status", "text", "anchors", "author"],
        [learning_row(r) for r in records],
    )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    mem = _memory()
    record = mem.get(args.id)
    ops = mem.ops_for(record.id) if args.history else []
    if args.json:
        doc = learning_json(record)
        if args.history:
            doc["history"] = [op.to_dict() for op in ops]
        print_json(doc)
        return 0
    rows = [
        ["id", record.id], ["category", record.category], ["status", record.status],
        ["text", record.text], ["description", record.description], ["tags", record.tags],
        ["anchors", [a.label() + (f" @ {a.commit[:10]}" if a.commit else "") for a in record.anchors]],
        ["evidence", [f"{e.type}:{e.ref}" for e in record.evidence]],
        ["author", f"{record.author_name} <{record.author}>"], ["source", record.source],
        ["recorded", record.recorded_at], ["verified", record.verified_at],
        ["valid", f"{record.valid_from} .. {record.valid_to or 'now'}"],
        ["confidence", record.confidence], ["layer", record.layer], ["hits", record.hits],
        ["supersedes", record.supersedes], ["superseded by", record.superseded_by],
        ["reason", record.status_reason],
    ]  # fmt: skip
    print_table(
        f"learning {record.id}", ["field", "value"], [r for r in rows if r[1] not in ("", [], None)]
    )
    if args.history:
        print_table(
            "history",
            ["time", "op", "author", "clock", "details"],
            [[op.time, op.type, op.author, op.clock, _op_details(op.payload)] for op in ops],
        )
    return 0


def _op_details(payload: dict[str, Any]) -> str:
    if "reason" in payload:
        return str(payload["reason"])
    if "fields" in payload:
        return ", ".join(sorted(payload["fields"]))
    if "anchors" in payload:
        return "; ".join(Anchor.from_dict(a).label() for a in payload["anchors"])
    if "record" in payload:
        return str(payload["record"].get("id", ""))
    return ""


def _simple(verb: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        mem = _memory()
        if verb == "invalidate":
            record = mem.invalidate(args.id, args.reason)
        elif verb == "archive":
            record = mem.archive(args.id, args.reason or "archived by hand")
        elif verb == "forget":
            target = mem.forget(args.id)
            if args.json:
                print_json({"id": target, "forgotten": True})
            else:
                print_line(f"forgot {target}: it is gone from every view; its ops stay in the log "
                           "and in clones that already fetched them")  # fmt: skip
            return 0
        else:
            record = getattr(mem, verb)(args.id)
        if args.json:
            print_json(learning_json(record))
        else:
            print_line(f"{verb}: {record.id} is now {record.status} ({record.layer})")
        return 0

    return run


def cmd_supersede(args: argparse.Namespace) -> int:
    mem = _memory()
    kwargs: dict[str, Any] = {}
    if args.category:
        kwargs["category"] = args.category
    if args.anchor:
        kwargs["anchors"] = [parse_anchor(mem.root, spec)[0] for spec in args.anchor]
    if args.tag:
        kwargs["tags"] = args.tag
    if args.evidence:
        kwargs["evidence"] = [parse_evidence(e) for e in args.evidence]
    if args.confidence is not None:
        kwargs["confidence"] = args.confidence
    record = mem.supersede(args.id, _text_arg(args.text), **kwargs)
    if args.json:
        print_json(learning_json(record))
    else:
        print_line(f"added {record.id}, superseding {record.supersedes}")
    return 0


def _confidence(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise argparse.ArgumentTypeError("confidence must be between 0 and 1")
    return number


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("init", help="set up tether in this repository")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_init)

    p = subparsers.add_parser("add", help="write a learning")
    p.add_argument("text", help="the learning's prose ('-' reads stdin)")
    p.add_argument("--category", "-c", default="general", choices=CATEGORIES)
    p.add_argument("--anchor", "-a", action="append", metavar="SPEC",
                   help="PATH::SYMBOL, PATH#L10-L20 or PATH (repeatable)")  # fmt: skip
    p.add_argument("--tag", "-t", action="append", metavar="TAG")
    p.add_argument("--evidence", "-e", action="append", metavar="REF",
                   help="commit:SHA, url:…, file:PATH, thread:…, artifact:… (repeatable)")  # fmt: skip
    p.add_argument("--confidence", type=_confidence, default=0.8)
    p.add_argument("--description", help="one-line retrieval key (default: the first line)")
    p.add_argument("--session", help="the agent session writing this")
    p.add_argument(
        "--source", default="cli", choices=["cli", "hook", "bootstrap"], help=argparse.SUPPRESS
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_add)

    p = subparsers.add_parser("list", help="list learnings")
    p.add_argument("--category", choices=CATEGORIES)
    p.add_argument("--status", choices=STATUSES)
    p.add_argument("--path", help="only learnings anchored in this file or directory")
    p.add_argument(
        "--all", action="store_true", help="include archived, invalidated and superseded"
    )
    p.add_argument("--as-of", dest="as_of", metavar="DATE", help="what was believed at DATE")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = subparsers.add_parser("show", help="show one learning")
    p.add_argument("id")
    p.add_argument("--history", action="store_true", help="every op on it, oldest first")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    for verb, help_text in [
        ("confirm", "the learning still holds: move its anchors' verified point to now"),
        ("reinforce", "count a use of the learning (5 make it a promotion candidate)"),
        ("promote", "make the learning L1: always loaded into context"),
        ("restore", "bring back an archived or invalidated learning"),
        ("forget", "remove a learning from every view (a tombstone in the log)"),
    ]:
        p = subparsers.add_parser(verb, help=help_text)
        p.add_argument("id")
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=_simple(verb))

    p = subparsers.add_parser("invalidate", help="mark a learning as no longer true")
    p.add_argument("id")
    p.add_argument("--reason", "-r", required=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_simple("invalidate"))

    p = subparsers.add_parser("archive", help="archive a learning (reversible)")
    p.add_argument("id")
    p.add_argument("--reason", "-r")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_simple("archive"))

    p = subparsers.add_parser("supersede", help="replace a learning with a new text")
    p.add_argument("id")
    p.add_argument("text", help="the new prose ('-' reads stdin)")
    p.add_argument("--category", "-c", choices=CATEGORIES)
    p.add_argument("--anchor", "-a", action="append", metavar="SPEC")
    p.add_argument("--tag", "-t", action="append")
    p.add_argument("--evidence", "-e", action="append")
    p.add_argument("--confidence", type=_confidence)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_supersede)


__all__ = ["register", "parse_anchor", "learning_row", "learning_json", "UsageError"]
