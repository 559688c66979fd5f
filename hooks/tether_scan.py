"""Hook `tether-scan`: run the write-time scanner over the staged memory files.

Memory files are `.tether/**` and whatever globs `.tether/config.toml` lists under `[scan] paths`.
The staged content (the index) is scanned, so what is checked is what the commit records. Exit 0
when clean or nothing relevant is staged, 1 when the scanner rejects a file, 2 when a memory file
cannot be scanned (binary, larger than the limit, not UTF-8). Deleted files are not scanned.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from anchors import git
from anchors.scanner import Finding, scan_text
from hooks import staged

SOURCE = "hook:tether-scan"


@dataclass
class ScanReport:
    scanned: list[str] = field(default_factory=list)
    findings: dict[str, tuple[str, list[Finding]]] = field(
        default_factory=dict
    )  # path -> (text, ...)
    errors: list[str] = field(default_factory=list)


def scan_staged(root: Path) -> ScanReport:
    """Scan every staged memory file of the repository at `root` (the pure core of the hook)."""
    from anchors.cli.scan import Unreadable, decode_memory_bytes

    report = ScanReport()
    globs = staged.memory_globs(root)
    for path in staged.staged_paths(root):
        if not staged.is_memory_path(path, globs):
            continue
        try:
            text = decode_memory_bytes(staged.staged_blob(root, path), path)
        except Unreadable as exc:
            report.errors.append(str(exc))
            continue
        report.scanned.append(path)
        findings = scan_text(text)
        if findings:
            report.findings[path] = (text, findings)
    if report.findings and staged.is_initialised(root):
        from anchors.audit import record_rejection

        # The audit trail is best effort here; the commit is refused all the same.
        with contextlib.suppress(OSError):
            for path, (text, findings) in report.findings.items():
                record_rejection(staged.tether_dir(root), findings, text, f"{SOURCE}:{path}")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the hook (arguments: file names from the framework, ignored)."""
    parser = argparse.ArgumentParser(prog="tether-scan", description=__doc__)
    parser.add_argument("filenames", nargs="*", help="ignored: the index says what is staged")
    parser.parse_args(argv)
    try:
        root = staged.repo_root()
        report = scan_staged(root)
    except git.GitError as exc:
        print(f"tether-scan: {exc}", file=sys.stderr)
        return 2
    from anchors.cli.scan import format_finding

    for error in report.errors:
        print(f"tether-scan: {error}")
    for path, (text, findings) in report.findings.items():
        for finding in findings:
            print(format_finding(path, text, finding))
    if report.findings:
        print(
            f"tether-scan: the scanner rejected {len(report.findings)} memory file(s); "
            "remove the flagged text (the scanner never rewrites it for you) and stage again."
        )
        return 1
    return 2 if report.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
