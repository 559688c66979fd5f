"""Building blocks for phrase rules matched on the folded (lower-case, de-disguised) text.

A gap between two words may be empty, because folding closes letter-spaced runs ("i g n o r e a l
l" becomes "ignoreall"), and may hold punctuation, because attackers write "ignore...previous".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from anchors.rules import needles as shared_needles
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


class PhraseRule:
    """One phrase rule: its id and category, its regex (compiled on first use), needles, message."""

    __slots__ = (
        "rule",
        "category",
        "source",
        "message",
        "needles",
        "gate",
        "others",
        "word_start",
        "before",
        "_compiled",
    )

    def __init__(
        self,
        rule: str,
        category: str,
        source: str,
        message: str,
        needles: tuple[frozenset[str], ...],
        word_start: bool,
        before: str | None,
    ) -> None:
        self.rule = rule
        self.category = category
        self.source = source  # the regex, compiled at the first text that has the rule's needles
        self.message = message
        # Groups of literal words: the pattern cannot match unless the text holds a word from
        # every group. Which needles a text holds is found once per text for every family
        # (`anchors.rules.needles`), so a rule whose words are absent costs a set check and its
        # regex is never compiled.
        self.needles = needles
        # The smallest group is checked first (it rules out the most), then the others.
        self.gate = min(needles, key=len) if needles else frozenset()
        self.others = tuple(group for group in needles if group is not self.gate)
        self.word_start = word_start  # the match must not start inside a word
        # What the text just before a match must end with (e.g. a line start), checked after
        # the match so the pattern itself can start with a literal word.
        self.before = before
        self._compiled: tuple[re.Pattern[str], re.Pattern[str] | None] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern (compiled on first use)."""
        return self.compiled()[0]

    def compiled(self) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
        """(pattern, before-pattern), compiled on first use."""
        if self._compiled is None:
            self._compiled = (
                re.compile(self.source, re.DOTALL),
                re.compile("(?:" + self.before + ")$") if self.before else None,
            )
        return self._compiled

    def may_match(self, present: frozenset[str]) -> bool:
        """False when a needle group has no word among `present` (the needles the text holds)."""
        if self.needles and present.isdisjoint(self.gate):
            return False
        return not any(present.isdisjoint(group) for group in self.others)


def rule(
    rule_id: str,
    category: str,
    pattern: str,
    message: str,
    needles: tuple[tuple[str, ...], ...] = (),
    before: str | None = None,
) -> PhraseRule:
    """Declare one phrase rule, matched on folded text (compiled when a text first needs it).

    A leading `\\b` is taken off the pattern and checked after a match instead: a pattern that
    starts with an assertion loses the regex engine's first-character scan, which costs 2-3x.
    """
    word_start = pattern.startswith(r"\b")
    if word_start:
        pattern = pattern[2:]
    declared = PhraseRule(
        rule_id,
        category,
        pattern,
        message,
        tuple(frozenset(group) for group in needles),
        word_start,
        before,
    )
    for group in declared.needles:
        shared_needles.register(group)
    return declared


def present(view: FoldedText) -> frozenset[str]:
    """The needle words (of every rule) that occur in the folded text, computed once per text."""
    return shared_needles.in_folded(view)


def run(rules: Iterable[PhraseRule], view: FoldedText) -> Iterator[Hit]:
    """Each rule's matches on the folded text, as hits with spans in the original text."""
    found = present(view)
    text = view.text
    for phrase in rules:
        if phrase.needles and found.isdisjoint(phrase.gate):
            continue
        if phrase.others and not phrase.may_match(found):
            continue
        pattern, before = phrase.compiled()
        pos = 0
        while True:
            match = pattern.search(text, pos)
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
            if before is not None and not before.search(
                text, max(0, match.start() - 12), match.start()
            ):
                pos = match.start() + 1
                continue
            start, end = view.to_original(match.start(), match.end())
            yield Hit(phrase.rule, phrase.category, start, end, phrase.message)
