"""Invisible Unicode and homoglyphs: text that reads one way to a person and another to a machine.

Rejected: bidi embeddings/overrides/isolates (Trojan Source), direction marks outside right-to-left
writing, zero-width characters outside the places scripts need them (a ZWJ inside an emoji
sequence, ZWJ/ZWNJ between letters of Arabic or Indic scripts), the BOM, tag characters outside a
subdivision flag, variation selectors from the supplement outside an ideographic variation
sequence, other characters that render as nothing, and tokens that mix Latin letters with look-alike
letters of another script (Unicode's confusables data).
"""

from __future__ import annotations

import unicodedata

from anchors.rules import charsets
from anchors.rules.folding import FoldedText, ascii_lookalikes
from anchors.rules.hit import Hit
from anchors.rules.lazy_regex import lazy

CATEGORY = "unicode"
_NON_ASCII = lazy(r"[^\x00-\x7f]+")
# Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic and their presentation forms.
_RTL_LETTER = lazy(
    r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff\U0001e800-\U0001efff]"
)
_NON_ASCII_WORD_CHARS = lazy(r"(?:(?![\x00-\x7f])\w)+")
_FLAG_TAGS_MAX = 7  # a subdivision flag: 🏴 + up to 6 tag letters + CANCEL TAG


def _context_ok_for_joiner(text: str, index: int) -> bool:
    """ZWJ/ZWNJ with a legitimate job: inside an emoji sequence, or shaping a joining script."""
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if not before or not after:
        return False
    if (
        text[index] == charsets.ZWJ
        and charsets.is_emoji_part(before)
        and charsets.is_emoji_part(after)
    ):
        return True
    return charsets.is_joining_script_letter(before) and charsets.is_joining_script_letter(after)


def _flag_tag_run_end(text: str, index: int) -> int:
    """If `index` starts the tag run of a subdivision flag (🏴 ...), return the run's end, else -1."""
    if index == 0 or text[index - 1] != charsets.BLACK_FLAG:
        return -1
    end = index
    while end < len(text) and charsets.is_tag(text[end]) and end - index <= _FLAG_TAGS_MAX:
        if text[end] == charsets.TAG_CANCEL:
            return end + 1 if end > index else -1
        end += 1
    return -1


def _classify(text: str, index: int, has_rtl: bool) -> tuple[str, str] | None:
    """(rule, message) for a suspicious character at `index`, or None."""
    char = text[index]
    code = f"U+{ord(char):04X}"
    if char in charsets.BIDI_CONTROLS:
        return ("unicode.bidi-control", f"invisible bidi control {code} can reorder what is shown")
    if char in charsets.BIDI_MARKS:
        if has_rtl:
            return None
        return ("unicode.bidi-mark", f"direction mark {code} in text with no right-to-left script")
    if char == charsets.BOM:
        return ("unicode.bom", "byte-order mark U+FEFF inside the text (save as UTF-8 without BOM)")
    if char in charsets.ZERO_WIDTH:
        if char in (charsets.ZWJ, charsets.ZWNJ) and _context_ok_for_joiner(text, index):
            return None
        return ("unicode.zero-width", f"zero-width character {code} hides inside the text")
    if charsets.is_tag(char):
        return ("unicode.tag-character", f"invisible tag character {code} (hidden ASCII text)")
    if charsets.is_variation_supplement(char):
        before = text[index - 1] if index else ""
        if before and unicodedata.name(before, "").startswith("CJK"):
            return None
        return ("unicode.variation-selector", f"variation selector {code} can smuggle hidden bytes")
    if char in charsets.OTHER_INVISIBLE:
        return ("unicode.invisible", f"invisible character {code} ({unicodedata.name(char, '?')})")
    return None


def _invisible_hits(text: str) -> list[Hit]:
    has_rtl: bool | None = None
    hits: list[Hit] = []
    for run in _NON_ASCII().finditer(text):
        index = run.start()
        while index < run.end():
            char = text[index]
            if charsets.is_tag(char):
                flag_end = _flag_tag_run_end(text, index)
                if flag_end > 0:
                    index = flag_end
                    continue
            if not charsets.is_invisible(char):
                index += 1
                continue
            if has_rtl is None:
                has_rtl = _RTL_LETTER().search(text) is not None
            found = _classify(text, index, has_rtl)
            if found is not None:
                rule, message = found
                last = hits[-1] if hits else None
                if last is not None and last.rule == rule and last.end == index:
                    # One finding per run of the same kind ("\u202e\u2066" is one hiding place).
                    hits[-1] = Hit(rule, CATEGORY, last.start, index + 1, last.message)
                else:
                    hits.append(Hit(rule, CATEGORY, index, index + 1, message))
            index += 1
    return hits


def _homoglyph_hits(text: str) -> list[Hit]:
    lookalikes = ascii_lookalikes()
    hits: list[Hit] = []
    seen_end = -1
    for run in _NON_ASCII_WORD_CHARS().finditer(text):
        if run.start() < seen_end:
            continue
        # Widen the run of non-ASCII letters to the whole word around it.
        start, end = run.start(), run.end()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        seen_end = end
        word = text[start:end]
        if not word or not any(c.isalpha() for c in word):
            continue
        if word[:1].isdigit():
            continue  # units such as 10µs or 4kΩ
        latin = False
        spoof: str | None = None
        for char in word:
            if char.isascii():
                latin = latin or char.isalpha()
                continue
            script = charsets.script_of(char)
            if script == "LATIN":
                latin = True
            elif script and char in lookalikes and spoof is None:
                spoof = char
        if latin and spoof is not None:
            hits.append(
                Hit(
                    "unicode.homoglyph",
                    CATEGORY,
                    start,
                    end,
                    f"{charsets.script_of(spoof).lower()} {spoof!r} (U+{ord(spoof):04X}) "
                    f"imitates Latin {lookalikes[spoof]!r} inside a Latin word",
                )
            )
    return hits


def scan(view: FoldedText) -> list[Hit]:
    """Hits for invisible characters and mixed-script look-alike tokens in the original text."""
    text = view.original
    if text.isascii():
        return []
    return _invisible_hits(text) + _homoglyph_hits(text)
