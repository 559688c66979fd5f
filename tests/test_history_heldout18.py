"""`tether history`: cases the eighteenth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 18`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

REDUCE = (
    "  _.reduce = _.foldl = _.inject = function(obj, iteratee, memo, context) {\n"
    "    var keys = _.keys(obj), index = 0, length = keys.length\n"
    "    if (arguments.length < 3) memo = obj[keys[index++]]\n"
    "    for (; index < length; index++) memo = iteratee(memo, obj[keys[index]], keys[index])\n"
    "    return memo\n  };\n"
)
WRAPPED = (
    "  function wrapReduce(iterator) {\n"
    "    return function(obj, iteratee, memo, context) {\n"
    "      var keys = _.keys(obj), index = 0, length = keys.length\n"
    "      if (arguments.length < 3) memo = obj[keys[index++]]\n"
    "      return iterator(obj, iteratee, memo, keys, index, length)\n"
    "    };\n  }\n\n"
    "  _.reduce = _.foldl = _.inject = wrapReduce(function(obj, iteratee, memo, keys, index, length) {\n"
    "    for (; index < length; index++) memo = iteratee(memo, obj[keys[index]], keys[index])\n"
    "    return memo\n  });\n"
)


def _module(body: str) -> str:
    return "(function() {\n  var _ = {};\n\n" + body + "\n}.call(this));\n"


def test_a_helper_a_function_became_a_call_of_is_new(tmp_path: Path) -> None:
    """Underscore's 2d7a68b3 wrapped `_.reduce = _.foldl = _.inject = function (...)` in a new
    `wrapReduce(function (...) {...})`. The three names still name the function (now the
    wrapper's argument): none of them vanished, so the new helper is no rename of `_.foldl`
    but introduced, and `_.foldl` changed."""
    r = Repo(tmp_path / "r")
    r.write("underscore.js", _module(REDUCE))
    born = r.commit("reduce")
    r.write("underscore.js", _module(WRAPPED))
    wrapped = r.commit("wrap redundant reduce code in a helper")
    history = symbol_history(r.path, "underscore.js", "wrapReduce")
    assert changes(history.commits) == [(wrapped, ("introduced",))]
    history = symbol_history(r.path, "underscore.js", "_.foldl")
    assert [sha for sha, _ in changes(history.commits)] == [wrapped, born]
