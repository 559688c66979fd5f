"""Learning text is untrusted: it comes from anyone who can push to the op-log ref, or from an agent.

Everything a learning carries (text, author, tags, evidence) is rendered here as plain, escaped
markdown: no HTML, no links (so no `command:` links), no images. Structure (bold labels, rules)
is added by this module around the escaped text, never taken from it.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

# Characters that open a markdown construct anywhere in a line: emphasis, code spans, links and
# images, raw HTML and entities, tables, strikethrough. CommonMark lets any ASCII punctuation be
# backslash-escaped, and an escaped character is always literal.
_INLINE_SPECIALS = re.compile(r"([\\`*_\[\]<>!#|~&{}()$])")
# Constructs that only count at the start of a line: lists, setext headings, thematic breaks,
# and ordered-list numbers ("3." or "3)"). `#`, `>` and `*` are already escaped as inline specials.
_BULLET = re.compile(r"^([-+=])")
_ORDERED = re.compile(r"^(\d+)([.)])")
# Invisible and direction-changing characters hide text from a reviewer; show them as U+FFFD so
# hidden content stays visible (the scanner refuses them on write; a fetched log might not have).
_HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u061c]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_SHA = re.compile(r"^[0-9a-f]{4,64}$")

MAX_RENDERED_CHARS = 1200


def escape(text: str, limit: int = MAX_RENDERED_CHARS) -> str:
    """Markdown that renders as exactly `text` (cut at `limit` characters), with no active parts."""
    text = _HIDDEN.sub("\ufffd", text)
    text = _CONTROL.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " "))
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    lines = []
    for raw in text.split("\n"):
        # Leading spaces would make an indented code block; they carry no meaning in prose.
        line = _INLINE_SPECIALS.sub(r"\\\1", raw.lstrip(" "))
        line = _ORDERED.sub(r"\1\\\2", _BULLET.sub(r"\\\1", line))
        lines.append(line)
    return "\n".join(lines)


def escape_inline(text: str, limit: int = 200) -> str:
    """An escaped single line (authors, tags, evidence refs): newlines become spaces."""
    return escape(" ".join(text.split()), limit)


def short_sha(sha: str) -> str:
    """A commit as `abc1234` in a code span, or the escaped text when it is not a commit id."""
    if _SHA.match(sha or ""):
        return f"`{sha[:7]}`"
    return escape_inline(sha or "", 40)


def age(timestamp: str, now: datetime | None = None) -> str:
    """'3 days ago' for an ISO-8601 time; '' when it cannot be read."""
    if not timestamp:
        return ""
    try:
        then = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if then.tzinfo is None:
        then = then.replace(tzinfo=timezone.utc)
    seconds = ((now or datetime.now(timezone.utc)) - then).total_seconds()
    if seconds < 90:
        return "just now"
    for unit, size in (("year", 31_536_000), ("month", 2_592_000), ("week", 604_800),
                       ("day", 86_400), ("hour", 3_600), ("minute", 60)):  # fmt: skip
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"
