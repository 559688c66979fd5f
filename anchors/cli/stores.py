"""`tether notebook|profile|blueprint`: the personal notebook, team profiles and the blueprint."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from anchors.cli.output import print_json, print_line, print_table


def _text(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


def _repo_root() -> Any:
    from anchors.memory import Memory

    return Memory.open()


# -- notebook -----------------------------------------------------------------------------------


def cmd_notebook(args: argparse.Namespace) -> int:
    from anchors.stores.notebook import CAP_CHARS, Notebook, join_entries

    memory = _repo_root()
    book = Notebook.for_repo(memory.root)
    if args.action == "add":
        entries = book.add(_text(args.text))
        size = len(join_entries(entries))
        if args.json:
            print_json(
                {"entries": len(entries), "chars": size, "cap": CAP_CHARS, "path": str(book.path)}
            )
        else:
            print_line(f"noted (#{len(entries)}); notebook is {size}/{CAP_CHARS} characters")
        return 0
    if args.action == "remove":
        removed = book.remove(args.number)
        print_json({"removed": removed}) if args.json else print_line(f"removed #{args.number}")
        return 0
    if args.action == "path":
        print_line(str(book.path))
        return 0
    entries = book.entries()
    if args.json:
        print_json(
            {"path": str(book.path), "chars": book.size(), "cap": CAP_CHARS, "entries": entries}
        )
    elif not entries:
        print_line(f"the notebook is empty ({book.path})")
    else:
        for i, entry in enumerate(entries, start=1):
            print_line(f"#{i}\n{entry}\n")
        print_line(f"{book.size()}/{CAP_CHARS} characters")
    return 0


# -- profiles -----------------------------------------------------------------------------------


def cmd_profile(args: argparse.Namespace) -> int:
    from anchors.stores import content_hash
    from anchors.stores.profiles import CAP_CHARS, FILE, Profiles

    memory = _repo_root()
    profiles = Profiles(memory.root)
    if args.action == "set":
        profile = profiles.update(args.name, _text(args.text))
        memory.record_store_write("profile", profile.name, content_hash(profile.text))
        if args.json:
            print_json({"name": profile.name, "chars": len(profile.text), "cap": CAP_CHARS})
        else:
            print_line(
                f"updated {profile.name} in {FILE} ({len(profile.text)}/{CAP_CHARS} characters)"
            )
        return 0
    if args.action == "show":
        profile = profiles.get(args.name)
        print_json({"name": profile.name, "text": profile.text}) if args.json else print_line(
            f"## {profile.name}\n{profile.text}"
        )
        return 0
    rows = profiles.list()
    if args.json:
        print_json([{"name": p.name, "text": p.text} for p in rows])
    else:
        print_table(
            str(FILE),
            ["name", "role", "ownership"],
            [[p.name, p.field("Role"), p.field("Ownership")] for p in rows],
        )
    return 0


# -- blueprint ----------------------------------------------------------------------------------


def cmd_blueprint(args: argparse.Namespace) -> int:
    from anchors.errors import EXIT_FINDINGS
    from anchors.oplog import now_iso
    from anchors.stores import content_hash
    from anchors.stores.blueprint import FILE, Blueprint

    memory = _repo_root()
    blueprint = Blueprint(memory.root)
    if args.action == "check":
        problems = blueprint.check()
        if args.json:
            print_json({"ok": not problems, "problems": problems})
        else:
            for problem in problems:
                sys.stderr.write(f"{FILE}: {problem}\n")
            if not problems:
                print_line(f"{FILE}: all eight sections present")
        return EXIT_FINDINGS if problems else 0
    if args.action == "update":
        section = blueprint.update(
            args.section, _text(args.text), who=memory.author, when=now_iso()
        )
        memory.record_store_write("blueprint", section.name, content_hash(blueprint.read()))
        print_json(
            {"section": section.name, "updated_by": memory.author}
        ) if args.json else print_line(f"updated section {section.name} of {FILE}")
        return 0
    if args.section:
        found = blueprint.get(args.section)
        who, when = found.updated
        if args.json:
            print_json(
                {"section": found.name, "text": found.body, "updated_by": who, "updated_at": when}
            )
        else:
            print_line(f"## {found.name}\n\n{found.body}")
        return 0
    if args.json:
        print_json(
            {
                s.name: {"text": s.body, "updated_by": s.updated[0], "updated_at": s.updated[1]}
                for s in blueprint.sections()
            }
        )
    else:
        sys.stdout.write(blueprint.read() or f"no {FILE} yet (tether bootstrap writes a draft)\n")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "notebook", help="your personal notebook for this repository (MEMORY.md)"
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("show", help="print the entries").add_argument("--json", action="store_true")
    a = sub.add_parser("add", help="append an entry (- reads stdin)")
    a.add_argument("text")
    a.add_argument("--json", action="store_true")
    r = sub.add_parser("remove", help="remove entry N")
    r.add_argument("number", type=int)
    r.add_argument("--json", action="store_true")
    sub.add_parser("path", help="where the notebook lives")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_notebook, action="show")

    p = subparsers.add_parser("profile", help="team profiles (.tether/USER.md)")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("list", help="everyone with a profile").add_argument(
        "--json", action="store_true"
    )
    s = sub.add_parser("show", help="one person's profile")
    s.add_argument("name", help="name or email")
    s.add_argument("--json", action="store_true")
    u = sub.add_parser("set", help="create or replace a person's profile (- reads stdin)")
    u.add_argument("name")
    u.add_argument("text")
    u.add_argument("--json", action="store_true")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_profile, action="list")

    p = subparsers.add_parser("blueprint", help="the workspace blueprint (.tether/BLUEPRINT.md)")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    g = sub.add_parser("show", help="print the blueprint or one section")
    g.add_argument("section", nargs="?")
    g.add_argument("--json", action="store_true")
    u = sub.add_parser("update", help="replace one section (- reads stdin)")
    u.add_argument("section")
    u.add_argument("text")
    u.add_argument("--json", action="store_true")
    sub.add_parser("check", help="check the eight required sections").add_argument(
        "--json", action="store_true"
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_blueprint, action="show", section=None)
