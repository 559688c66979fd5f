"""`tether bootstrap`: a blueprint draft, team profiles and quarantined learnings from the repository."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from anchors.cli.output import note, print_json, print_line


def cmd_bootstrap(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, Progress, TextColumn

    from anchors.bootstrap import bootstrap
    from anchors.memory import Memory

    memory = Memory.open()
    show = not args.json and sys.stderr.isatty()
    with Progress(
        TextColumn("{task.description}"), BarColumn(), transient=True, disable=not show
    ) as bar:
        task = bar.add_task("bootstrap", total=9)

        def progress(step: str, done: int, total: int) -> None:
            bar.update(task, description=f"bootstrap: {step}", completed=done, total=total)

        report = bootstrap(memory, progress)
    if args.json:
        print_json(report.to_dict())
        return 0
    print_line(
        f"blueprint: {'.tether/BLUEPRINT.md written' if report.blueprint_written else 'unchanged'}"
    )
    print_line(f"profiles: {', '.join(report.profiles) or 'unchanged'}")
    facts_skipped = [s for s in report.skipped if not s.startswith(("profile ", "blueprint "))]
    print_line(
        f"learnings: {len(report.added)} added (quarantined until reinforced), "
        f"{len(report.superseded)} updated, {report.unchanged} unchanged"
        + (f", {len(facts_skipped)} skipped" if facts_skipped else "")
    )
    for item in report.skipped:
        if item.startswith(("profile ", "blueprint ")):
            note(f"tether: left out: {item}")
    print_line(
        "review them with `tether review`; commit .tether/ to share the blueprint and profiles"
    )
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "bootstrap", help="draft memory from READMEs, manifests, CI and git history"
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_bootstrap)
