"""`json.dumps(value, indent=2, ensure_ascii=False)` without importing `json`.

The `json` package imports `re` (~2 ms): `tether history --json`, which races `git log -L` and
whose callers are mostly agents asking for JSON, writes its one document with this instead. The
strings are escaped by the standard library's own C encoder (`_json.encode_basestring`, what
`json.dumps` itself uses); `tests/test_json_text.py` checks the output equals `json.dumps`'s.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

try:
    from _json import encode_basestring as _quote
except ImportError:  # pragma: no cover - another Python implementation
    from json.encoder import py_encode_basestring as _quote

_quote_str: Callable[[str], str] = _quote


def dumps(value: object, indent: int = 2) -> str:
    """`value` (dicts with string keys, lists, tuples, strings, numbers, booleans, None) as
    `json.dumps(value, indent=indent, ensure_ascii=False)` writes it."""
    pieces: list[str] = []
    _write(value, pieces, indent, 0)
    return "".join(pieces)


def _write(value: object, out: list[str], indent: int, level: int) -> None:
    if isinstance(value, str):
        out.append(_quote_str(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = "\n" + " " * (indent * (level + 1))
        out.append("{")
        for number, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            out.append(("," if number else "") + inner + _quote_str(key) + ": ")
            _write(item, out, indent, level + 1)
        out.append("\n" + " " * (indent * level) + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = "\n" + " " * (indent * (level + 1))
        out.append("[")
        for number, item in enumerate(value):
            out.append(("," if number else "") + inner)
            _write(item, out, indent, level + 1)
        out.append("\n" + " " * (indent * level) + "]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)
