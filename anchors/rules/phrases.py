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


def rule(rule_id: str, category: str, pattern: str, message: str) -> PhraseRule:
    """Compile one phrase rule (matched on folded text; word boundaries at the start)."""
    return PhraseRule(rule_id, category, re.compile(pattern, re.DOTALL), message)


def run(rules: Iterable[PhraseRule], view: FoldedText) -> Iterator[Hit]:
    """Each rule's matches on the folded text, as hits with spans in the original text."""
    for phrase in rules:
        for match in phrase.pattern.finditer(view.text):
            if match.end() == match.start():
                continue
            start, end = view.to_original(match.start(), match.end())
            yield Hit(phrase.rule, phrase.category, start, end, phrase.message)
