"""Building blocks for phrase rules matched on the folded (lower-case, de-disguised) text.

A gap between two words may be empty, because folding closes letter-spaced runs ("i g n o r e a l
l" becomes "ignoreall"), and may hold punctuation, because attackers write "ignore...previous".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from anchors.rules.folding import FoldedText
from anchors.rules.hit import Hit

GAP = r"[\W_]{0,6}"  # between two words: spaces, punctuation, or nothing


def words(*alternatives: str) -> str:
    """A non-capturing alternation of words or phrases (spaces inside become gaps)."""
    return "(?:" + "|".join(a.replace(" ", GAP) for a in alternatives) + ")"


def seq(*parts: str) -> str:
    """Parts one after another, separated by gaps."""
    return GAP.join(parts)


def fillers(pattern: str, most: int) -> str:
    """Up to `most` occurrences of `pattern`, each followed by a gap."""
    return f"(?:{pattern}{GAP}){{0,{most}}}"


@dataclass(frozen=True)
class PhraseRule:
    rule: str
    category: str
    pattern: re.Pattern[str]
    message: str
    # Groups of literal words: the pattern cannot match unless the text holds a word from every
    # group. Checking them with `in` costs almost nothing and spares most texts most regexes.
    needles: tuple[tuple[str, ...], ...] = ()
    word_start: bool = False  # the match must not start inside a word
    # What the text just before a match must end with (e.g. a line start), checked after the
    # match so the pattern itself can start with a literal word.
    before: re.Pattern[str] | None = None

    needle_patterns: tuple[re.Pattern[str], ...] = ()

    def may_match(self, text: str) -> bool:
        """False when a needle group has no word in `text` (the pattern cannot match)."""
        return all(group.search(text) for group in self.needle_patterns)


def rule(
    rule_id: str,
    category: str,
    pattern: str,
    message: str,
    needles: tuple[tuple[str, ...], ...] = (),
    before: str | None = None,
) -> PhraseRule:
    """Compile one phrase rule, matched on folded text.

    A leading `\\b` is taken off the pattern and checked after a match instead: a pattern that
    starts with an assertion loses the regex engine's first-character scan, which costs 2-3x.
    """
    word_start = pattern.startswith(r"\b")
    if word_start:
        pattern = pattern[2:]
    return PhraseRule(
        rule_id,
        category,
        re.compile(pattern, re.DOTALL),
        message,
        needles,
        word_start,
        re.compile("(?:" + before + ")$") if before else None,
        tuple(re.compile("|".join(map(re.escape, group))) for group in needles),
    )


def run(rules: Iterable[PhraseRule], view: FoldedText) -> Iterator[Hit]:
    """Each rule's matches on the folded text, as hits with spans in the original text."""
    for phrase in rules:
        if not phrase.may_match(view.text):
            continue
        text = view.text
        pos = 0
        while True:
            match = phrase.pattern.search(text, pos)
            if match is None:
                break
            pos = match.end() if match.end() > match.start() else match.start() + 1
            if match.end() == match.start():
                continue
            if (
                phrase.word_start
                and match.start()
                and (text[match.start() - 1].isalnum() or text[match.start() - 1] == "_")
            ):
                pos = match.start() + 1
                continue
            if phrase.before is not None and not phrase.before.search(
                text, max(0, match.start() - 12), match.start()
            ):
                pos = match.start() + 1
                continue
            start, end = view.to_original(match.start(), match.end())
            yield Hit(phrase.rule, phrase.category, start, end, phrase.message)
