"""Regexes compiled on first use.

Python compiles a regex in pure Python (0.05-4 ms each; case-insensitive character classes are the
slow ones), and the scanner holds about a hundred. Compiling them all at import made every `tether
add` pay ~60 ms before scanning a word. A note usually needs a handful: the rest are never compiled
in that process.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function returning `re.compile(pattern, flags)`, compiled at its first call."""
    compiled: list[re.Pattern[str]] = []

    def get() -> re.Pattern[str]:
        if not compiled:
            compiled.append(re.compile(pattern, flags))
        return compiled[0]

    return get
