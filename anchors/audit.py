"""The audit log of rejected writes: the rule and a hash of the text, never the text itself."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from anchors.scanner import Finding

AUDIT_FILE = "audit.jsonl"


def record_rejection(tether_dir: Path, findings: Sequence[Finding], text: str, source: str) -> None:
    """Append one line describing a rejection to `.git/tether/audit.jsonl` (fsynced)."""
    tether_dir.mkdir(parents=True, exist_ok=True)
    entry = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "event": "rejected",
        "source": source,
        "rules": sorted({f.rule for f in findings}),
        "sha256": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
    }
    line = (json.dumps(entry, sort_keys=True) + "\n").encode()
    fd = os.open(tether_dir / AUDIT_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
