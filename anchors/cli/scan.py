"""`tether scan [FILE...|-] [--json]`: run the write-time scanner over files or standard input.

Exit 0 when everything is clean, 3 when the scanner rejects anything, 2 when an input cannot be
scanned (missing, a directory, binary, larger than the limit, not UTF-8). Findings print one per
line as `path:line:column: rule (category) message: "span"`, invisible characters in the span
escaped (`\\u202e`). `--json` prints one list of `{path, rule, category, line, start, end,
message}` (`path` is `-` for standard input). Every rejection is recorded in the audit log (rule
and a hash of the text, never the text) when run inside a repository that uses Tether.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchors.errors import EXIT_OK, EXIT_REJECTED, EXIT_USAGE

if TYPE_CHECKING:
    from anchors.scanner import Finding

MAX_BYTES = 10 * 1024 * 1024  # memory files are prose: anything larger is not one
_BINARY_SNIFF = 8192


class Unreadable(Exception):
    """An input the scanner cannot take, with the one-line reason."""


@dataclass
class ScannedInput:
    path: str
    text: str
    findings: list[Finding]


def decode_memory_bytes(data: bytes, name: str) -> str:
    """UTF-8 text of a memory file, or Unreadable saying why not (binary, huge, not UTF-8)."""
    if len(data) > MAX_BYTES:
        raise Unreadable(
            f"{name}: too large to scan ({len(data):,} bytes; the limit is {MAX_BYTES:,})"
        )
    if b"\x00" in data[:_BINARY_SNIFF]:
        raise Unreadable(f"{name}: binary file (a NUL byte), not a memory file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(
            f"{name}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_input(path: str) -> str:
    """Read one input ('-' is standard input) as text, or raise Unreadable."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        return decode_memory_bytes(data, "-")
    file = Path(path)
    try:
        if file.is_dir():
            raise Unreadable(f"{path}: is a directory")
        with file.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise Unreadable(f"{path}: no such file") from None
    except OSError as exc:
        raise Unreadable(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return decode_memory_bytes(data, path)


def finding_to_dict(path: str, finding: Finding) -> dict[str, Any]:
    """The JSON shape of one finding (the CLI contract)."""
    return {
        "path": path,
        "rule": finding.rule,
        "category": finding.category,
        "line": finding.line,
        "start": finding.start,
        "end": finding.end,
        "message": finding.message,
    }


def format_finding(path: str, text: str, finding: Finding) -> str:
    """One line for people: where, which rule, why, and the span with invisible characters shown."""
    from anchors.scanner import excerpt

    column = finding.start - (text.rfind("\n", 0, finding.start) + 1) + 1
    return (
        f"{path}:{finding.line}:{column}: {finding.rule} ({finding.category}) "
        f'{finding.message}: "{excerpt(text, finding)}"'
    )


def audit(scanned: list[ScannedInput], source: str) -> None:
    """Record each rejected input in the audit log of the repository here, if it uses Tether."""
    rejected = [s for s in scanned if s.findings]
    if not rejected:
        return
    try:
        from anchors.audit import record_rejection
        from anchors.git import find_repo

        repo = find_repo(Path.cwd())
        tether_dir = Path(repo.git_dir) / "tether"
        if not tether_dir.is_dir():
            return
        for item in rejected:
            record_rejection(tether_dir, item.findings, item.text, f"{source}:{item.path}")
    except Exception:  # noqa: BLE001 - the audit trail must never turn a check into a crash
        return


def run(args: argparse.Namespace) -> int:
    from anchors.cli.output import note, print_json, print_line
    from anchors.scanner import scan_text

    paths = args.files or ["-"]
    if paths.count("-") > 1:
        note("tether: standard input can be scanned once")
        return EXIT_USAGE
    scanned: list[ScannedInput] = []
    errors: list[str] = []
    for path in paths:
        try:
            text = read_input(path)
        except Unreadable as exc:
            errors.append(str(exc))
            continue
        scanned.append(ScannedInput(path, text, scan_text(text)))
    audit(scanned, "scan")
    for error in errors:
        note(f"tether: {error}")
    if args.json:
        print_json([finding_to_dict(s.path, f) for s in scanned for f in s.findings])
    else:
        for item in scanned:
            for finding in item.findings:
                print_line(format_finding(item.path, item.text, finding))
        rejected = sum(1 for s in scanned if s.findings)
        if rejected:
            total = sum(len(s.findings) for s in scanned)
            note(f"rejected: {total} finding(s) in {rejected} of {len(paths)} input(s)")
    if errors:
        return EXIT_USAGE
    return EXIT_REJECTED if any(s.findings for s in scanned) else EXIT_OK


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "scan",
        help="run the write-time scanner over files or standard input (exit 3 when rejected)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="files to scan; '-' or none: stdin")
    p.add_argument("--json", action="store_true", help="print the findings as one JSON list")
    p.set_defaults(func=run)
