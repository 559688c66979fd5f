"""`tether history`: cases the seventeenth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 17`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

EQ = (
    "func (eq Eq) Build(builder Builder) {{\n"
    '\tbuilder.WriteQuoted(eq.Column)\n\tbuilder.Write(" = ")\n'
    "\tbuilder.AddVar(builder, eq.Value){comment}\n}}\n"
)


def _clause(name: str, body: str) -> str:
    return (
        f"package clause\n\ntype {name} struct {{\n\tName string\n}}\n\n"
        f"func (c {name}) Build(builder Builder) {{\n{body}}}\n"
    )


def test_a_method_that_left_a_deleted_file_among_many_files_naming_its_short_name(
    tmp_path: Path,
) -> None:
    """gorm's 1f38ec44 touched 35 files: 15 of the files it changed name a `Build` in their
    diffs (every clause type has one), and it deleted clause/query.go, whose `Eq.Build` went
    whole to clause/expression.go. The deleted file is searched first, not left out after the
    first eight that name `Build`."""
    r = Repo(tmp_path / "r")
    kinds = [f"Kind{i}" for i in range(10)]
    for kind in kinds:
        r.write(f"clause/{kind.lower()}.go", _clause(kind, "\tbuilder.Write(c.Name)\n"))
    r.write(
        "clause/expression.go",
        "package clause\n\ntype Expr struct {\n\tSQL string\n}\n\n"
        "func (expr Expr) Build(builder Builder) {\n\tbuilder.Write(expr.SQL)\n}\n",
    )
    query = "package clause\n\ntype Eq struct {\n\tColumn string\n\tValue interface{}\n}\n\n"
    r.write("clause/zquery.go", query + EQ.format(comment=""))
    born = r.commit("clauses")
    r.write("clause/zquery.go", query + EQ.format(comment=" // the value"))
    r.commit("a comment")
    for kind in kinds:
        r.write(f"clause/{kind.lower()}.go", _clause(kind, "\tbuilder.WriteQuoted(c.Name)\n"))
    (r.path / "clause/zquery.go").unlink()
    r.write(
        "clause/expression.go",
        "package clause\n\ntype Expr struct {\n\tSQL string\n}\n\n"
        "func (expr Expr) Build(builder Builder) {\n\tbuilder.Write(expr.SQL)\n}\n\n"
        + query.removeprefix("package clause\n\n")
        + EQ.format(comment=""),
    )
    moved = r.commit("finish clauses")
    history = symbol_history(r.path, "clause/expression.go", "Eq.Build")
    assert changes(history.commits) == [(moved, ("move",)), (born, ("introduced",))]
    assert history.commits[-1].path == "clause/zquery.go"


JOIN_TYPE = "type Join struct {\n\tType  string\n\tTable string\n}\n\n"
FROM = (
    "package clause\n\ntype From struct {\n\tTables []Table\n}\n\n"
    "func (from From) Build(builder Builder) {\n"
    "\tfor idx, table := range from.Tables {\n\t\tif idx > 0 {\n\t\t\tbuilder.WriteByte(',')\n"
    "\t\t}\n\t\tbuilder.WriteQuoted(table)\n\t}\n}\n"
)
JOIN_BUILD = (
    "func (join Join) Build(builder Builder) {\n"
    "\tif join.Type != \"\" {\n\t\tbuilder.Write(join.Type)\n\t\tbuilder.WriteByte(' ')\n\t}\n"
    '\tbuilder.Write("JOIN ")\n\tbuilder.WriteQuoted(join.Table)\n}\n'
)


def test_a_method_moved_with_its_type_however_rewritten_is_that_method(tmp_path: Path) -> None:
    """gorm's 1f38ec44 deleted clause/join.go and declared `Join` in clause/from.go, where its
    `Join.Build`, a `// TODO` stub before, was written out (0.03 alike). The method moved with
    its type is the same method, moved and its body changed; the stub is not taken for a new
    stub of another type written in the same commit (`Delete.Build`, more like it)."""
    r = Repo(tmp_path / "r")
    r.write("clause/from.go", FROM)
    stub = "func (join Join) Build(builder Builder) {\n\t// TODO\n}\n"
    r.write("clause/join.go", "package clause\n\n" + JOIN_TYPE + stub)
    born = r.commit("join clause")
    r.write("clause/from.go", FROM + "\n" + JOIN_TYPE + JOIN_BUILD)
    (r.path / "clause/join.go").unlink()
    r.write(
        "clause/delete.go",
        "package clause\n\ntype Delete struct {\n\tModifier string\n}\n\n"
        "func (d Delete) Build(builder Builder) {\n}\n",
    )
    moved = r.commit("finish clauses")
    history = symbol_history(r.path, "clause/from.go", "Join.Build")
    assert [(sha, set(kinds)) for sha, kinds in changes(history.commits)] == [
        (moved, {"move", "body"}),
        (born, {"introduced"}),
    ]
    assert history.commits[-1].path == "clause/join.go"


def test_a_method_of_a_type_that_stayed_is_not_moved_by_its_name_alone(tmp_path: Path) -> None:
    """The rule above asks that the type moved too: a method written anew in another file for
    a type that stays where it was (its old method deleted, nothing alike) is new."""
    r = Repo(tmp_path / "r")
    r.write("clause/from.go", FROM)
    stub = "func (join Join) Build(builder Builder) {\n\t// TODO\n}\n"
    r.write("clause/join.go", "package clause\n\n" + JOIN_TYPE + stub)
    r.commit("join clause")
    r.write("clause/from.go", FROM + "\n" + JOIN_BUILD)
    r.write("clause/join.go", "package clause\n\n" + JOIN_TYPE)
    written = r.commit("join built in from.go")
    history = symbol_history(r.path, "clause/from.go", "Join.Build")
    assert changes(history.commits) == [(written, ("introduced",))]


def _range_file(name: str, argument: str, doc: list[str]) -> str:
    return (
        "var toDate = require('../to_date/index.js')\n\n/**\n"
        + "".join(f" * {line}\n" for line in doc)
        + f" */\nfunction {name}(dirtyDate, {argument}) {{\n"
        "  var time = toDate(dirtyDate).getTime()\n"
        f"  var startTime = toDate({argument}.start).getTime()\n"
        f"  var endTime = toDate({argument}.end).getTime()\n"
        "  if (startTime > endTime) {\n"
        "    throw new Error('The start of the range cannot be after the end of the range')\n"
        "  }\n"
        f"  return time >= startTime && time <= endTime\n}}\n\nmodule.exports = {name}\n"
    )


@pytest.mark.parametrize(("lines", "how"), [(2, "file-rename"), (4, "move")])
def test_a_function_whose_file_was_renamed_less_alike_than_git_pairs(
    tmp_path: Path, lines: int, how: str
) -> None:
    """date-fns' 67a4840f deleted is_within_range/index.js and added is_within_interval/
    index.js, its one function renamed and its documentation reworded: 45% alike, which git's
    rename detection pairs at 40% but not at its default 50%. A definition that went from a
    deleted file into an added one git pairs so arrived by a file rename; with more of the
    file rewritten (35% alike), it moved."""
    r = Repo(tmp_path / "r")
    old_doc = [
        f"@param {{Date}} date{i} - the date number {i} of the range that is checked"
        for i in range(lines)
    ]
    new_doc = [
        f"Interval piece {i}: start and end given as an object of two dates {i}"
        for i in range(lines)
    ]
    r.write("src/is_within_range/index.js", _range_file("isWithinRange", "dirtyRange", old_doc))
    born = r.commit("add isWithinRange")
    (r.path / "src/is_within_range/index.js").unlink()
    r.write(
        "src/is_within_interval/index.js",
        _range_file("isWithinInterval", "dirtyInterval", new_doc),
    )
    renamed = r.commit("rename ranges to intervals")
    history = symbol_history(r.path, "src/is_within_interval/index.js", "isWithinInterval")
    assert [(sha, set(kinds)) for sha, kinds in changes(history.commits)] == [
        (renamed, {how, "rename", "signature", "body"}),
        (born, {"introduced"}),
    ]
    assert history.commits[-1].path == "src/is_within_range/index.js"


def test_a_function_from_a_file_split_among_added_files_moved(tmp_path: Path) -> None:
    """excalidraw's c6a0cfc2 split src/scene/data.ts among six new files of src/data/; git pairs
    it with index.ts at 45%, but its other definitions went to the other new files: the file
    was split, and a function that went to index.ts moved (not a file rename)."""
    r = Repo(tmp_path / "r")
    helper = (
        "function toInterval(start, end) {\n  return { start: start, end: end }\n}\n\n"
        "module.exports.toInterval = toInterval\n"
    )
    old_doc = ["@param {Date} date - the date of the range that is checked"]
    r.write(
        "src/is_within_range/index.js",
        _range_file("isWithinRange", "dirtyRange", old_doc) + "\n" + helper,
    )
    born = r.commit("add isWithinRange")
    (r.path / "src/is_within_range/index.js").unlink()
    new_doc = ["Interval: start and end given as an object of two dates"]
    r.write(
        "src/is_within_interval/index.js",
        _range_file("isWithinInterval", "dirtyInterval", new_doc),
    )
    r.write("src/to_interval/index.js", helper)
    split = r.commit("split ranges")
    paired = r.git("diff-tree", "-r", "-M40%", "--name-status", "HEAD~1", "HEAD")
    assert "\tsrc/is_within_range/index.js\tsrc/is_within_interval/index.js" in paired
    history = symbol_history(r.path, "src/is_within_interval/index.js", "isWithinInterval")
    assert [(sha, set(kinds)) for sha, kinds in changes(history.commits)] == [
        (split, {"move", "rename", "signature", "body"}),
        (born, {"introduced"}),
    ]
