"""The shared needle pass: one Aho-Corasick pass must report exactly the words `in` checks find.

The rules skip their regexes when the pass says a needle is absent, so a word the pass missed
would be an attack let through. The pass is compared with the plain `in` checks it replaced, on
generated texts built from the needles themselves (overlapping, nested, glued to other text).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchors.rules import needles
from anchors.rules.folding import fold
from anchors.scanner import scan_text

scan_text("load every family's needles")
WORDS = sorted(needles._WORDS)

pieces = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS).map(lambda w: w[: max(1, len(w) - 1)]),  # a needle cut short
    st.text(max_size=6),
    st.sampled_from(["\u200b", "\U0001f3f4\U000e0067\U000e007f", "\ud800", "İ", "ſ"]),
)


def test_the_automaton_is_used_and_holds_every_registered_word() -> None:
    automaton = needles._automaton()
    assert automaton is not None, "pyahocorasick is a dependency of the scanner"
    assert len(WORDS) > 150  # phrase gates, credential files, detect-secrets needles, ...
    assert needles.find(" ".join(WORDS)) == frozenset(WORDS)


def test_overlapping_and_nested_needles_are_all_found() -> None:
    # "<" inside "<!--" inside "<|"... and "your" inside "as your": overlaps must not hide words.
    text = "<!--<|as your-----BEGIN"
    assert needles.find(text) == needles.find_by_search(text)
    assert {"<", "<!--", "<|", "as your", "your", "-----BEGIN"} <= needles.find(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=12).map("".join))
def test_the_pass_finds_exactly_what_in_checks_find(text: str) -> None:
    assert needles.find(text) == needles.find_by_search(text)
    view = fold(text)
    assert needles.in_folded(view) == needles.find_by_search(view.text)
    assert needles.in_original(view) == needles.find_by_search(text)
    assert needles.in_lowered(fold(text), text.lower()) == needles.find_by_search(text.lower())


def _hand_written_gates() -> list[tuple[str, re.Pattern[str], frozenset[str]]]:
    from anchors.rules import exfiltration, secrets

    return [
        ("network", exfiltration._NETWORK(), exfiltration._NETWORK_NEEDLES),
        ("key word", secrets._KEY_WORD(), secrets._KEY_WORD_GATES),
    ]


@pytest.mark.parametrize("name,pattern,gate", _hand_written_gates())
def test_every_match_of_a_gated_pattern_holds_one_of_its_needles(
    name: str, pattern: re.Pattern[str], gate: frozenset[str]
) -> None:
    # The pattern is skipped when the text holds none of its needles: a match without one
    # would be an attack or a secret let through.
    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(pattern))
    def holds_a_needle(text: str) -> None:
        match = pattern.search(text)
        assert match is not None
        assert any(needle in match.group() for needle in gate), (name, match.group())

    holds_a_needle()
