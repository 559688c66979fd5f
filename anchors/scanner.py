"""The write-time scanner: every write from every surface passes `scan_text` before it reaches the log.

`scan_text(text)` returns findings; an empty list means the text may be written. A finding names a
stable rule id (`injection.ignore-instructions`, `secret.aws-access-key`, `unicode.bidi-control`,
...), its category, the offending span as offsets into the text as given, the 1-based line, and a
message. The scanner rejects, it never rewrites: callers refuse the write and show the findings.

Phrase rules match a folded view of the text (NFKC, case, zero-width and letter-spacing tricks,
look-alike letters undone: see `anchors.rules.folding`) and map spans back to the original; secret
formats and invisible characters are matched on the original. Rule families live in
`anchors/rules/`. The docs list every rule: docs/scanner.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from anchors.rules import exfiltration, injection, secrets, ssh, unicode
from anchors.rules.folding import fold
from anchors.rules.hit import Hit

CATEGORIES = ("injection", "exfiltration", "secret", "ssh-backdoor", "unicode")

_FAMILIES = (unicode, injection, exfiltration, ssh, secrets)


@dataclass(frozen=True)
class Finding:
    rule: str  # stable rule id, e.g. "unicode.bidi-control"
    category: str  # injection | exfiltration | secret | ssh-backdoor | unicode
    start: int  # character offset into the scanned text
    end: int  # exclusive
    line: int  # 1-based line of `start`
    message: str


def scan_text(text: str) -> list[Finding]:
    """Return every finding in `text`, ordered by position; an empty list means it may be written."""
    if not text:
        return []
    view = fold(text)
    hits: set[Hit] = set()
    for family in _FAMILIES:
        hits.update(family.scan(view))
    if not hits:
        return []
    # Lines counted once, walking the hits in order (a count per hit is quadratic on long texts).
    ordered = sorted(hits, key=lambda h: (h.start, h.end, h.rule))
    findings = []
    line, counted = 1, 0
    for hit in ordered:
        line += text.count("\n", counted, hit.start)
        counted = hit.start
        findings.append(
            Finding(
                rule=hit.rule,
                category=hit.category,
                start=hit.start,
                end=max(hit.end, hit.start + 1),
                line=line,
                message=hit.message,
            )
        )
    return findings


def excerpt(text: str, finding: Finding, width: int = 60) -> str:
    """The offending span, shortened, with every invisible or non-printable character escaped."""
    span = text[finding.start : finding.end]
    if len(span) > width:
        span = span[: width - 1] + "…"
    return escape_invisible(span)


def escape_invisible(text: str) -> str:
    """Escape characters a terminal would hide or act on (`\\u202e`, `\\u200b`, `\\n`)."""
    import unicodedata

    out = []
    for char in text:
        if char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)
