"""Character classes the Unicode rules and the folding share: invisible, bidi, emoji, script."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Explicit embeddings, overrides and isolates: the Trojan Source characters (CVE-2021-42574).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Direction marks: legitimate in right-to-left writing, a hiding place anywhere else.
BIDI_MARKS = frozenset("\u200e\u200f\u061c")
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u180e")
BOM = "\ufeff"
ZWJ = "\u200d"
ZWNJ = "\u200c"
# Other characters that render as nothing: soft hyphen, combining grapheme joiner, invisible
# operators, Hangul fillers, Khmer inherent vowels, the Mongolian vowel separator.
OTHER_INVISIBLE = frozenset(
    "\u00ad\u034f\u2061\u2062\u2063\u2064\u115f\u1160\u3164\uffa0\u17b4\u17b5\u2028\u2029"
)
TAG_FIRST, TAG_LAST = 0xE0000, 0xE007F
TAG_CANCEL = "\U000e007f"
BLACK_FLAG = "\U0001f3f4"
VS_SUPPLEMENT_FIRST, VS_SUPPLEMENT_LAST = 0xE0100, 0xE01EF

INVISIBLE = BIDI_CONTROLS | BIDI_MARKS | ZERO_WIDTH | OTHER_INVISIBLE | {BOM}

_RTL_BIDI_CLASSES = frozenset({"R", "AL"})


def is_tag(char: str) -> bool:
    """A Unicode tag character (U+E0000..U+E007F): invisible ASCII, used to smuggle text."""
    return TAG_FIRST <= ord(char) <= TAG_LAST


def is_variation_supplement(char: str) -> bool:
    """A variation selector from the supplement block, another way to smuggle bytes unseen."""
    return VS_SUPPLEMENT_FIRST <= ord(char) <= VS_SUPPLEMENT_LAST


def is_invisible(char: str) -> bool:
    """True for characters that render as nothing (folding drops them)."""
    return char in INVISIBLE or is_tag(char) or is_variation_supplement(char)


def is_emoji_part(char: str) -> bool:
    """A character that can stand on either side of a ZWJ inside an emoji sequence."""
    code = ord(char)
    return (
        0x1F000 <= code <= 0x1FAFF  # pictographs, emoticons, transport, skin tones, ...
        or 0x2600 <= code <= 0x27BF  # miscellaneous symbols and dingbats (♀ ♂ ⚕ ❤)
        or 0x2B00 <= code <= 0x2BFF
        or 0x2190 <= code <= 0x21FF
        or 0x2300 <= code <= 0x23FF
        or code in (0xFE0F, 0x20E3, 0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139)
    )


def is_rtl_letter(char: str) -> bool:
    """A letter written right to left (Hebrew, Arabic, Syriac, Thaana, ...)."""
    return unicodedata.category(char).startswith("L") and (
        unicodedata.bidirectional(char) in _RTL_BIDI_CLASSES
    )


@lru_cache(maxsize=8192)
def script_of(char: str) -> str:
    """The script of a letter from its Unicode name ('LATIN', 'CYRILLIC', ...); '' if not a letter."""
    if not unicodedata.category(char).startswith("L"):
        return ""
    name = unicodedata.name(char, "")
    if not name:
        return ""
    first = name.split(" ", 1)[0]
    # Compatibility and mathematical forms are Latin/Greek in disguise: NFKC decides.
    if first in ("MATHEMATICAL", "FULLWIDTH", "HALFWIDTH", "CIRCLED", "PARENTHESIZED", "SQUARED"):
        folded = unicodedata.normalize("NFKC", char)
        return script_of(folded) if folded != char and len(folded) == 1 else first
    return first


def is_joining_script_letter(char: str) -> bool:
    """A letter or mark of a script where ZWJ/ZWNJ shape text (Arabic, Indic, ...), not Latin."""
    if char.isascii():
        return False
    category = unicodedata.category(char)
    if not (category.startswith("L") or category.startswith("M")):
        return False
    return script_of(char) not in ("LATIN", "GREEK", "CYRILLIC") or category.startswith("M")
