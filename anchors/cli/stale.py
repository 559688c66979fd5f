"""`tether stale [--rev REV | --staged] [--strict] [--json] [--path P]`: which learnings' code changed.

Resolves every anchor of every visible learning (active or stale) against the working tree, the
index (`--staged`) or a commit (`--rev`). When resolving the present (working tree or index) it
also records what it learned, but only when something changed, so running it twice writes
nothing the second time:
- `moved` anchors are re-anchored (a `reanchor` op) to where the code is now;
- an active learning with a `stale` or `orphaned` anchor is marked stale (a `mark-stale` op).
`--rev` only reports: another version of the code is no reason to move anchors. `--no-record`
reports without writing. Exit 1 with `--strict` when anything is stale or orphaned.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from anchors.cli.output import note, print_table

if TYPE_CHECKING:
    from anchors.record import Learning
    from anchors.resolve import Verdict

# From worst to best: a learning shows its worst anchor.
SEVERITY = ("orphaned", "stale", "pending", "changed", "moved", "fresh")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "stale",
        help="check learnings against the code: fresh, moved, changed, stale, orphaned, pending",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--rev", metavar="REV", help="resolve against this commit (report only)")
    where.add_argument("--staged", action="store_true", help="resolve against the index")
    p.add_argument(
        "--strict", action="store_true", help="exit 1 when anything is stale or orphaned"
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument(
        "--path", metavar="P", help="only learnings anchored under this file or directory"
    )
    p.add_argument("--all", action="store_true", help="list fresh learnings too")
    p.add_argument("--no-record", action="store_true", help="report only: write no ops")
    p.set_defaults(func=run)


def print_compact_json(obj: Any) -> None:
    """One JSON document on stdout, without indentation (json's C encoder)."""
    import json
    import sys

    sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")


def worst(verdicts: list[Verdict]) -> str:
    """The verdict that speaks for a learning with several anchors."""
    return min((v.status for v in verdicts), key=SEVERITY.index, default="fresh")


def run(args: argparse.Namespace) -> int:
    from anchors.memory import Memory
    from anchors.resolve import Resolver
    from anchors.specs import repo_path

    mem = Memory.open()
    path = repo_path(mem.root, args.path) if args.path else None
    learnings = [r for r in mem.list(path=path) if r.anchors]
    with Resolver(mem.root, args.rev, args.staged) as resolver:
        anchors = [a for r in learnings for a in r.anchors]
        verdicts = resolver.resolve_all(anchors)
        label = resolver.version.label
        rev = resolver.version.commit if resolver.version.kind == "commit" else label
    by_learning: list[tuple[Learning, list[Verdict]]] = []
    i = 0
    for record in learnings:
        by_learning.append((record, verdicts[i : i + len(record.anchors)]))
        i += len(record.anchors)
    recorded: dict[str, list[str]] | None = None
    if args.rev is None and not args.no_record:
        recorded = {"reanchored": [], "marked_stale": []}
    if recorded is not None:
        record_changes(mem, by_learning, recorded)
    flagged = sum(1 for _, vs in by_learning if worst(vs) in ("stale", "orphaned"))
    if args.json:
        # Compact: with 10,000 anchors an indented document takes longer to print than to build.
        print_compact_json(
            {
                "rev": rev,
                "learnings": [
                    {
                        "id": r.id,
                        "text": r.text,
                        "status": r.status,
                        "verdict": worst(vs),
                        "anchors": [v.to_dict() for v in vs],
                    }
                    for r, vs in by_learning
                ],
                "recorded": recorded or {"reanchored": [], "marked_stale": []},
            }
        )
    else:
        show(by_learning, label, args.all)
        if recorded and (recorded["reanchored"] or recorded["marked_stale"]):
            note(
                f"re-anchored {len(recorded['reanchored'])}, marked stale {len(recorded['marked_stale'])}"
            )
    return 1 if args.strict and flagged else 0


def record_changes(
    mem: Any, by_learning: list[tuple[Learning, list[Verdict]]], recorded: dict[str, list[str]]
) -> None:
    """Write ops only for what changed: moved anchors, and learnings that just went stale."""
    for record, verdicts in by_learning:
        if any(v.status == "moved" and v.location is not None for v in verdicts):
            anchors = [
                v.location if v.status == "moved" and v.location else v.anchor for v in verdicts
            ]
            moved = "; ".join(
                f"{v.anchor.label()} -> {v.location.label()}"
                for v in verdicts
                if v.status == "moved" and v.location
            )
            mem.reanchor(record.id, anchors, reason=f"moved: {moved}"[:500])
            recorded["reanchored"].append(record.id)
        bad = [v for v in verdicts if v.status in ("stale", "orphaned")]
        if bad and record.status == "active":
            reason = "; ".join(
                f"{v.anchor.label()}: {v.status}" + (f" ({v.detail})" if v.detail else "")
                for v in bad
            )
            mem.mark_stale(record.id, reason[:500])
            recorded["marked_stale"].append(record.id)


def show(by_learning: list[tuple[Learning, list[Verdict]]], label: str, show_all: bool) -> None:
    rows = []
    for record, verdicts in by_learning:
        if not show_all and all(v.status == "fresh" for v in verdicts):
            continue
        first = True
        for v in verdicts:
            evidence = ""
            if v.commits:
                c = v.commits[0]
                evidence = f"{c.sha[:10]} {c.author}: {c.subject}" if c.sha else c.subject
                if len(v.commits) > 1:
                    evidence += f" (+{len(v.commits) - 1} more)"
            where = (
                v.location.label() if v.location and v.location.label() != v.anchor.label() else ""
            )
            detail = "; ".join(x for x in [v.detail, *v.notes] if x)
            rows.append(
                [
                    record.id[:10] if first else "",
                    record.text.splitlines()[0][:60] if first else "",
                    v.status,
                    v.anchor.label(),
                    where,
                    detail,
                    evidence,
                ]
            )
            first = False
    total = len(by_learning)
    counts: dict[str, int] = {}
    for _, vs in by_learning:
        counts[worst(vs)] = counts.get(worst(vs), 0) + 1
    summary = ", ".join(f"{counts[k]} {k}" for k in SEVERITY if counts.get(k))
    title = f"Learnings against the {label}: {total} checked" + (f" ({summary})" if summary else "")
    if rows:
        print_table(
            title, ["id", "text", "verdict", "anchor", "now", "what changed", "evidence"], rows
        )
    else:
        note(title + ("" if total else ": no anchored learnings"))
