"""The write-time scanner: every write from every surface passes `scan_text` before it reaches the log.

(Minimal rule set for now: invisible bidi controls. The full rule set replaces this module.)
"""

from __future__ import annotations

from dataclasses import dataclass

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


@dataclass(frozen=True)
class Finding:
    rule: str  # stable rule id, e.g. "unicode.bidi-control"
    category: str  # injection | exfiltration | secret | ssh-backdoor | unicode
    start: int  # character offset into the scanned text
    end: int
    line: int  # 1-based line of `start`
    message: str


def scan_text(text: str) -> list[Finding]:
    """Return every finding in `text`; an empty list means the text may be written."""
    findings = []
    for i, ch in enumerate(text):
        if ch in BIDI_CONTROLS:
            findings.append(
                Finding(
                    rule="unicode.bidi-control",
                    category="unicode",
                    start=i,
                    end=i + 1,
                    line=text.count("\n", 0, i) + 1,
                    message=f"invisible bidi control U+{ord(ch):04X}",
                )
            )
    return findings
