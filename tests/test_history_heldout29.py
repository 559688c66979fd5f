"""`tether history`: cases the twenty-ninth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 29`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

CLEAN = (
    "    {mods} String {name}(CharSequence str) {{\n"
    "        if (str == null) {{\n"
    "            return null;\n"
    "        }}\n"
    "        int start = 0;\n"
    "        int end = str.length();\n"
    "        if (end > 0) {{\n"
    "            for (; start < end && {space}(str.charAt(start)); ++start);\n"
    "            for (; end > 0 && {space}(str.charAt(end - 1)); --end);\n"
    "            return str.subSequence(start, end).toString();\n"
    "        }}\n"
    '        return "";\n'
    "    }}\n"
)


def _class(name: str, body: str, extends: str = "") -> str:
    return f"package org.apache.commons.jexl3;\n\npublic class {name}{extends} {{\n{body}}}\n"


def test_a_move_under_a_new_name_in_a_commit_of_many_files(tmp_path: Path) -> None:
    """commons-jexl's 8da71bd4 changed 40 files and moved `JexlEngine.cleanExpression` into
    `Engine.trimSource` (0.85 alike): in a commit of many files only those whose diffs name the
    symbol were searched, and JexlEngine.java's does not name `trimSource`. A changed file whose
    diff removed most of the symbol's body words is searched too."""
    r = Repo(tmp_path / "r")
    old = CLEAN.format(mods="public static", name="cleanExpression", space="isSpace")
    r.write("src/JexlEngine.java", _class("JexlEngine", "    public int size;\n\n" + old))
    r.write("src/Engine.java", _class("Engine", "    public int cache;\n", " extends JexlEngine"))
    for index in range(12):
        r.write(f"src/Node{index}.java", _class(f"Node{index}", f"    int id = {index};\n"))
    born = r.commit("jexl")
    r.write("src/JexlEngine.java", _class("JexlEngine", "    public int size;\n"))
    new = CLEAN.format(mods="protected", name="trimSource", space="Character.isSpaceChar")
    r.write(
        "src/Engine.java",
        _class("Engine", "    public int cache;\n\n" + new, " extends JexlEngine"),
    )
    for index in range(12):
        r.write(f"src/Node{index}.java", _class(f"Node{index}", f"    long id = {index};\n"))
    moved = r.commit("JEXL-123: reworked classloader change handling")
    history = symbol_history(r.path, "src/Engine.java", "Engine.trimSource")
    assert [sha for sha, _ in changes(history.commits)] == [moved, born]
    assert {"move", "rename"} <= set(history.commits[0].changes)
    assert history.commits[1].symbol == "JexlEngine.cleanExpression"


def test_a_move_under_a_new_name_out_of_a_renamed_file_in_a_commit_of_many(
    tmp_path: Path,
) -> None:
    """commons-exec's 0d1dbf85 (18 files) renamed Environment.java to
    DefaultProcessingEnvironment.java and moved its `getVariables` into a new
    EnvironmentUtil.java as `toStrings`: the search by body words looked at changed files only,
    not renamed ones."""
    r = Repo(tmp_path / "r")
    old = CLEAN.format(mods="public", name="getVariables", space="isSpace")
    shared = "".join(f"    public int field{index} = {index};\n" for index in range(40))
    r.write("src/Environment.java", _class("Environment", shared + "\n" + old))
    for index in range(12):
        r.write(f"src/Node{index}.java", _class(f"Node{index}", f"    int id = {index};\n"))
    born = r.commit("exec")
    (r.path / "src/Environment.java").unlink()
    r.write("src/DefaultProcessingEnvironment.java", _class("DefaultProcessingEnvironment", shared))
    new = CLEAN.format(mods="public static", name="toStrings", space="isSpace")
    r.write("src/EnvironmentUtil.java", _class("EnvironmentUtil", new))
    for index in range(12):
        r.write(f"src/Node{index}.java", _class(f"Node{index}", f"    long id = {index};\n"))
    moved = r.commit("Patch replacing Environment class with Map")
    history = symbol_history(r.path, "src/EnvironmentUtil.java", "EnvironmentUtil.toStrings")
    assert [sha for sha, _ in changes(history.commits)] == [moved, born]
    assert {"move", "rename"} <= set(history.commits[0].changes)
    assert history.commits[1].symbol == "Environment.getVariables"
