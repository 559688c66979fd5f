"""Non-ASCII letters that imitate an ASCII letter or digit, from Unicode's confusables data.

The data is `confusable_homoglyphs`' copy of Unicode's confusables.txt: a 900 KB JSON file whose
loading and scanning take 30-80 ms, paid by the first note with any non-ASCII letter in it. The
scanner needs only the ~1,300 letters that imitate ASCII, so this module keeps that table in
`lookalikes.json` beside it, stamped with the version and size of the data file it came from. At
run time the stamp is compared with the installed package (a stat and a 500-byte read); when they
differ (the package was upgraded) the table is derived again from the installed data, in memory,
so the scanner always follows the installed data. `python -m anchors.rules.lookalikes` rewrites
the stored table; a test fails while it is out of date.
"""

from __future__ import annotations

import json
import os
import re
import sys
from functools import lru_cache

SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lookalikes.json")
_VERSION = re.compile(r'"version":\s*"([^"]+)"')


def _package_dir() -> str | None:
    """The installed `confusable_homoglyphs` directory, found without importing it."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec("confusable_homoglyphs", None) if find_spec is not None else None
        if spec is not None:
            locations = list(spec.submodule_search_locations or ())
            return locations[0] if locations else None
    return None


def installed_stamp() -> dict[str, object] | None:
    """{"version", "size"} of the installed confusables data, or None when it is not installed."""
    package = _package_dir()
    if package is None:
        return None
    # confusable_homoglyphs reads its data from $CONFUSABLE_DATA when set; so do we.
    data = os.path.join(os.environ.get("CONFUSABLE_DATA", package), "confusables.json")
    try:
        size = os.path.getsize(data)
        with open(os.path.join(package, "_version.py"), encoding="utf-8") as handle:
            found = _VERSION.search(handle.read())
    except OSError:
        return None
    return {"version": found.group(1) if found else "", "size": size}


def derive() -> dict[str, str]:
    """Non-ASCII character -> the ASCII letter or digit it imitates, from the installed data."""
    from confusable_homoglyphs import confusables

    table: dict[str, str] = {}
    for char, entries in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        for entry in entries:
            glyph = entry.get("c", "")
            if len(glyph) == 1 and glyph.isascii() and glyph.isalnum():
                table[char] = glyph.lower()
                break
    return table


def _stored() -> dict[str, object] | None:
    try:
        with open(SNAPSHOT, encoding="utf-8") as handle:
            stored: dict[str, object] = json.load(handle)
    except (OSError, ValueError):
        return None
    return stored


@lru_cache(maxsize=1)
def table() -> dict[str, str]:
    """The look-alike table: the stored one when it matches the installed data, else derived."""
    stored = _stored()
    if stored is not None and stored.get("stamp") == installed_stamp():
        lookalikes = stored.get("table")
        if isinstance(lookalikes, dict):
            return lookalikes
    return derive()


def write_snapshot() -> None:
    """Store the table derived from the installed data, stamped with that data's version."""
    document = {"stamp": installed_stamp(), "table": dict(sorted(derive().items()))}
    with open(SNAPSHOT, "w", encoding="utf-8") as handle:
        json.dump(document, handle, ensure_ascii=True, indent=0, sort_keys=False)
        handle.write("\n")


if __name__ == "__main__":
    write_snapshot()
    print(f"wrote {SNAPSHOT}")
