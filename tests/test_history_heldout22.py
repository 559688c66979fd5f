"""`tether history`: cases the twenty-second held-out accuracy round found (bench/anchors/truth,
`held_out_round: 22`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

FILTERED_BY = (
    "        public Builder filteredBy(final CharacterPredicate... predicates) {\n"
    "            if (predicates == null || predicates.length == 0) {\n"
    "                inclusivePredicates = null;\n"
    "                return this;\n"
    "            }\n"
    "            inclusivePredicates = new HashSet<>(Arrays.asList(predicates));\n"
    "            return this;\n"
    "        }\n"
)


def _generator(method: str) -> str:
    return (
        "package org.apache.commons.text;\n\n"
        "public final class RandomStringGenerator {\n"
        "    public static class Builder {\n"
        "        private Set<CharacterPredicate> inclusivePredicates;\n\n"
        f"{method}"
        "    }\n"
        "}\n"
    )


def test_a_deleted_file_written_back_goes_on_before_its_deletion(tmp_path: Path) -> None:
    """commons-text's ba4e4932 deleted RandomStringGenerator.java for its 1.0 release, and
    edb0676a, a revert 114 commits later, wrote it back byte for byte: the file's history goes
    on before the deletion, and neither commit is a change of `Builder.filteredBy`. Written
    back changed, the restoring commit is a change; a file of that path that never held the
    method is where it was introduced."""
    r = Repo(tmp_path / "r")
    path = "src/main/java/org/apache/commons/text/RandomStringGenerator.java"
    r.write(
        path, _generator(FILTERED_BY.replace("new HashSet<>", "new HashSet<CharacterPredicate>"))
    )
    born = r.commit("TEXT-1: random strings")
    r.write(path, _generator(FILTERED_BY))
    edited = r.commit("diamond")
    r.git("rm", "-q", path)
    deleted = r.commit("TEXT-51: remove RandomStringGenerator for 1.0 release")
    for index in range(3):
        r.write("NOTES.txt", f"release {index}\n")
        r.commit(f"release notes {index}")
    r.write(path, _generator(FILTERED_BY))
    restored = r.commit("TEXT-81: add RandomStringGenerator")
    history = symbol_history(r.path, path, "RandomStringGenerator.Builder.filteredBy")
    assert changes(history.commits) == [(edited, ("body",)), (born, ("introduced",))]
    assert deleted not in [c.commit for c in history.commits]
    assert restored not in [c.commit for c in history.commits]
    r.git("rm", "-q", path)
    r.commit("remove again")
    r.write(
        path,
        _generator(FILTERED_BY.replace("return this;\n        }", "return self();\n        }")),
    )
    changed = r.commit("add it again, fluent")
    history = symbol_history(r.path, path, "RandomStringGenerator.Builder.filteredBy")
    assert changes(history.commits) == [
        (changed, ("body",)),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]


def test_a_file_added_where_another_was_deleted_long_ago_starts_the_history(
    tmp_path: Path,
) -> None:
    """A file written where one of the same name was deleted, with nothing of the symbol in it
    (or the symbol there unlike it): the history starts where the new file was added."""
    r = Repo(tmp_path / "r")
    path = "src/Gen.java"
    r.write(path, _generator(FILTERED_BY).replace("filteredBy", "selectedBy"))
    r.commit("an older file of that name")
    r.git("rm", "-q", path)
    r.commit("gone")
    other = (
        "        public Builder filteredBy(final CharacterPredicate... predicates) {\n"
        '            log.info("filters are chosen by the pool now");\n'
        "            pool.reset(predicates.length);\n"
        "            return pool.builder();\n"
        "        }\n"
    )
    r.write(path, _generator(other))
    born = r.commit("a new generator")
    history = symbol_history(r.path, path, "RandomStringGenerator.Builder.filteredBy")
    assert changes(history.commits) == [(born, ("introduced",))]


DISTINCT = (
    "def {name}(seq):\n"
    '    """ All values in sequence are distinct\n\n'
    "    >>> {name}([1, 2, 3])\n"
    "    True\n"
    "    >>> {name}([1, 2, 1])\n"
    "    False\n"
    '    """\n'
    "    return len(seq) == len(set(seq))\n"
)


def test_a_renamed_functions_old_name_as_a_word_of_its_docstring(tmp_path: Path) -> None:
    """toolz's 9e23949 renamed `distinct` to `isdistinct`, its doctests calling the new name,
    its docstring still saying "All values in sequence are distinct": the old name there is a
    word of prose, not the function, and the commit is a rename only. A word of the docstring
    changed with it is a change of the body."""
    r = Repo(tmp_path / "r")
    helper = "def first(seq):\n    return next(iter(seq))\n\n\n"
    r.write("itertoolz.py", helper + DISTINCT.format(name="distinct"))
    born = r.commit("distinct")
    r.write("itertoolz.py", helper + DISTINCT.format(name="isdistinct"))
    renamed = r.commit("distinct -> isdistinct")
    history = symbol_history(r.path, "itertoolz.py", "isdistinct")
    assert changes(history.commits) == [(renamed, ("rename",)), (born, ("introduced",))]
    r.write(
        "itertoolz.py",
        helper + DISTINCT.format(name="unique").replace("are distinct", "are unique"),
    )
    reworded = r.commit("isdistinct -> unique")
    history = symbol_history(r.path, "itertoolz.py", "unique")
    assert changes(history.commits)[0] == (reworded, ("body", "rename"))
