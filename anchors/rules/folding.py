"""The folded view of a text that the phrase rules match on, with a map back to the original.

Attackers disguise phrases the rules know: full-width letters (`ｉｇｎｏｒｅ`), compatibility forms
(`ﬁ`, `𝐢𝐠𝐧𝐨𝐫𝐞`), Cyrillic or Greek look-alikes (`іgnоre`), zero-width characters inside a word
(`ig\u200bnore`), and letter spacing (`i g n o r e`). Folding undoes all of them: NFKC, case folding,
dropping invisible format characters, mapping each confusable letter to the ASCII letter it imitates
(Unicode's confusables data: `anchors.rules.lookalikes`), and closing up letter-spaced runs. Every
folded character remembers the index of the original character it came from, so a match on
the folded text reports a span in the text the user wrote.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from anchors.rules.charsets import is_invisible
from anchors.rules.lazy_regex import lazy

_NON_ASCII = lazy(r"[^\x00-\x7f]+")
# Four or more single letters or digits, each followed by one to three separators: "i g n o r e",
# "i.g.n.o.r.e", "i-g-n-o-r-e". Ordinary prose almost never has four one-letter words in a row.
_SPACED_RUN = lazy(r"(?<![a-z0-9])(?:[a-z0-9][ \t.\-_*·]{1,3}){3,}[a-z0-9](?![a-z0-9])")
_SEPARATORS = lazy(r"[ \t.\-_*·]+")


def ascii_lookalikes() -> dict[str, str]:
    """Non-ASCII character -> the ASCII letter or digit it imitates, from Unicode's confusables."""
    from anchors.rules.lookalikes import table

    return table()


@lru_cache(maxsize=4096)
def fold_char(char: str) -> str:
    """Fold one non-ASCII character: '' when invisible, else NFKC + casefold + ASCII look-alike."""
    if is_invisible(char):
        return ""
    lookalikes = ascii_lookalikes()
    out = []
    for piece in unicodedata.normalize("NFKC", char).casefold():
        out.append(piece if piece.isascii() else lookalikes.get(piece, piece))
    return "".join(out)


class FoldedText:
    """`text` is the folded form; `origin[i]` is the index in the original of `text[i]`."""

    __slots__ = ("original", "text", "origin", "memo")

    def __init__(self, original: str, text: str, origin: list[int]) -> None:
        self.original = original
        self.text = text
        self.origin = origin
        # What the rule families compute once per text and share (the needle words present).
        self.memo: dict[str, frozenset[str]] = {}

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a span of the folded text back to the original text (end exclusive)."""
        if not self.origin:
            return (0, 0)
        start = min(max(start, 0), len(self.origin) - 1)
        last = min(max(end - 1, start), len(self.origin) - 1)
        return (self.origin[start], self.origin[last] + 1)


def fold(text: str) -> FoldedText:
    """Build the folded view of `text` (ASCII stretches are only lower-cased, at C speed)."""
    if text.isascii():
        return _close_spaced_runs(FoldedText(text, text.lower(), list(range(len(text)))))
    parts: list[str] = []
    origin: list[int] = []
    pos = 0
    for run in _NON_ASCII().finditer(text):
        if run.start() > pos:
            parts.append(text[pos : run.start()].lower())
            origin.extend(range(pos, run.start()))
        for index in range(run.start(), run.end()):
            folded = fold_char(text[index])
            if folded:
                parts.append(folded)
                origin.extend([index] * len(folded))
        pos = run.end()
    if pos < len(text):
        parts.append(text[pos:].lower())
        origin.extend(range(pos, len(text)))
    folded_text = "".join(parts)
    return _close_spaced_runs(FoldedText(text, folded_text, origin))


def _close_spaced_runs(view: FoldedText) -> FoldedText:
    """Join letter-spaced runs ("i g n o r e" -> "ignore"), keeping the map to the original."""
    runs = list(_SPACED_RUN().finditer(view.text))
    if not runs:
        return view
    parts: list[str] = []
    origin: list[int] = []
    pos = 0
    for run in runs:
        parts.append(view.text[pos : run.start()])
        origin.extend(view.origin[pos : run.start()])
        for index in range(run.start(), run.end()):
            char = view.text[index]
            if not _SEPARATORS().fullmatch(char):
                parts.append(char)
                origin.append(view.origin[index])
        pos = run.end()
    parts.append(view.text[pos:])
    origin.extend(view.origin[pos:])
    return FoldedText(view.original, "".join(parts), origin)
