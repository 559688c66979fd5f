"""Output for the CLI: one JSON document for scripts, rich tables for people, one line for errors."""

from __future__ import annotations

import sys

# Annotations only: `typing` costs ~2 ms of `tether history`, which prints through here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def print_json(obj: Any) -> None:
    """Print exactly one JSON document on stdout."""
    import orjson

    data = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS, default=str)
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.flush()


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A rich table on a terminal; plain tab-separated lines when piped."""
    if not sys.stdout.isatty():
        for row in rows:
            sys.stdout.write("\t".join(_plain(c) for c in row) + "\n")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", show_lines=False)
    for col in columns:
        if col in ("id", "time", "verdict", "status", "category"):
            table.add_column(col, no_wrap=True)
        else:
            table.add_column(col, overflow="fold", ratio=3 if col == "text" else 1)
    for row in rows:
        # Text() keeps memory content literal: no rich markup from what people wrote.
        table.add_row(*(Text(_plain(c)) for c in row))
    Console().print(table)


def print_line(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def note(text: str) -> None:
    """A notice for people, on stderr so stdout stays clean for scripts."""
    sys.stderr.write(text + "\n")


def _plain(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    return str(value)
