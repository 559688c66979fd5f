"""Which needle words a text holds, found in one pass shared by every rule family.

Each rule or check is gated by literal words its pattern cannot match without (`ignore`,
`instruct`, `AKIA`, `.netrc`, ...). Asking `word in text` for each of them cost ~0.1 us a word,
and the families hold about two hundred: ~15 us a note, a fifth of the scan. Instead every family
registers its words here at import, and one Aho-Corasick automaton (pyahocorasick, C) reports all
the words present in one pass over the text, overlaps included: ~1.5 us for a 150-character note.
A rule then asks a set. The answer is exactly what the `in` checks gave (a test compares them), so
gating decides nothing new. Without pyahocorasick installed, the same sets come from `in` checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import compress

from anchors.rules.folding import FoldedText

_WORDS: set[str] = set()
# Words known only once something costly has run (detect-secrets' patterns are read at the first
# scan, not at import): called before the automaton is first built.
_PROVIDERS: list[Callable[[], Iterable[str]]] = []
# (number of words it was built from, the automaton's `iter`, or None without pyahocorasick).
# Nothing from `typing` here: importing it costs ~2 ms, paid by every `tether add`.
_Matches = Callable[[str], Iterable[tuple[int, str]]]
_BUILT: list[tuple[int, _Matches | None]] = []


def register(words: Iterable[str]) -> None:
    """Add needle words (case as they will be looked for) to the shared pass."""
    for word in words:
        if word:
            _WORDS.add(word)


def register_later(provider: Callable[[], Iterable[str]]) -> None:
    """Add the words `provider` returns, asked for when the first text is scanned."""
    _PROVIDERS.append(provider)


def _automaton() -> _Matches | None:
    while _PROVIDERS:
        register(_PROVIDERS.pop()())
    if _BUILT and _BUILT[0][0] == len(_WORDS):
        return _BUILT[0][1]
    matches: _Matches | None
    try:
        import ahocorasick
    except ImportError:  # pragma: no cover - a dependency; the fallback stays correct
        matches = None
    else:
        automaton = ahocorasick.Automaton()
        for word in _WORDS:
            automaton.add_word(word, word)
        automaton.make_automaton()
        matches = automaton.iter
    _BUILT[:] = [(len(_WORDS), matches)]
    return matches


def find(text: str) -> frozenset[str]:
    """Every registered word that occurs in `text` (exact case, overlaps counted)."""
    matches = _automaton()
    if matches is None:
        return find_by_search(text)
    return frozenset([word for _, word in matches(text)])


def find_by_search(text: str) -> frozenset[str]:
    """The same as `find`, with one `in` check per word (the fallback, and the reference)."""
    while _PROVIDERS:
        register(_PROVIDERS.pop()())
    words = sorted(_WORDS)
    return frozenset(compress(words, map(text.__contains__, words)))


def in_folded(view: FoldedText) -> frozenset[str]:
    """The registered words in the folded text (computed once per text)."""
    found = view.memo.get("folded")
    if found is None:
        found = view.memo["folded"] = find(view.text)
    return found


def in_original(view: FoldedText) -> frozenset[str]:
    """The registered words in the original text, case as written (computed once per text)."""
    found = view.memo.get("original")
    if found is None:
        found = view.memo["original"] = find(view.original)
    return found


def in_lowered(view: FoldedText, lowered: str) -> frozenset[str]:
    """The registered words in `lowered` (the original lower-cased), shared with the folded
    text's when the two are the same string (ASCII text without letter-spaced runs)."""
    found = view.memo.get("lowered")
    if found is None:
        found = in_folded(view) if lowered == view.text else find(lowered)
        view.memo["lowered"] = found
    return found
