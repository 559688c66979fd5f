"""Initialization options the client may send; each falls back to its default, with a message."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Options:
    """What the editor can tune (`initializationOptions` in the initialize request)."""

    # Wait this long after the last edit of a document before re-resolving its anchors.
    debounce_ms: int = 300
    # Files larger than this are not parsed: a 20 MB minified bundle must not stall the server.
    max_file_bytes: int = 1_000_000  # the symbol index's own cap
    # Show a code lens above each anchored symbol.
    code_lens: bool = True
    # Watch the op-log and .tether/ for writes by other processes.
    watch: bool = True


_BOUNDS: dict[str, tuple[int, int]] = {
    "debounce_ms": (0, 10_000),
    "max_file_bytes": (1_000, 200_000_000),
}

# Editors send camelCase; Python keeps snake_case.
_ALIASES = {"debounceMs": "debounce_ms", "maxFileBytes": "max_file_bytes", "codeLens": "code_lens"}


def parse_options(raw: Any) -> tuple[Options, list[str]]:
    """Options from the client's JSON, and one message per value that was ignored (and why)."""
    if raw is None:
        return Options(), []
    if not isinstance(raw, dict):
        return Options(), [f"initializationOptions should be an object, got {type(raw).__name__}"]
    defaults = Options()
    values: dict[str, Any] = {}
    problems: list[str] = []
    fields = {f.name: f for f in dataclasses.fields(Options)}
    for key, value in raw.items():
        name = _ALIASES.get(key, key)
        if name not in fields:
            problems.append(f"unknown option {key!r} ignored")
            continue
        expected = type(getattr(defaults, name))
        if expected is int and isinstance(value, int) and not isinstance(value, bool):
            low, high = _BOUNDS.get(name, (0, 2**31))
            if low <= value <= high:
                values[name] = value
                continue
            problems.append(f"option {key!r}={value} is outside {low}..{high}; using the default")
        elif expected is bool and isinstance(value, bool):
            values[name] = value
        else:
            problems.append(f"option {key!r} should be {expected.__name__}; using the default")
    return dataclasses.replace(defaults, **values), problems
