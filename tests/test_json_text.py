"""`anchors.cli.json_text.dumps` writes what `json.dumps(value, indent=2, ensure_ascii=False)`
writes, for every JSON value (it stands in for it on `tether history --json`'s way)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchors.cli.json_text import dumps

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(VALUES, st.integers(min_value=0, max_value=4))
def test_the_same_text_as_json_dumps(value: object, indent: int) -> None:
    assert dumps(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)


def test_odd_strings_are_escaped_as_json_does() -> None:
    value = {'a"b': ["\n\t\x00\x1f", "é ü", "\ud800", "\u2028"], "": {}}
    assert dumps(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_what_it_does_not_hold_is_refused() -> None:
    """Keys are strings only (json.dumps would make `1` the key "1"): the documents it writes
    have no other; a value JSON cannot hold is refused as json.dumps refuses it."""
    with pytest.raises(TypeError):
        dumps({1: "a"})
    with pytest.raises(TypeError):
        json.dumps({"a": object()})
    with pytest.raises(TypeError):
        dumps({"a": object()})
