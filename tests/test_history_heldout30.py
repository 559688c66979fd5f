"""`tether history`: cases the thirtieth held-out accuracy round and the session's review of
the set's remaining misses found (bench/anchors/truth), each a synthetic history in a real git
repository, walked the three ways of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

YAML = (
    "package {package}\n\n"
    'import (\n\t"reflect"\n\t"strings"\n)\n\n'
    "func getStructInfo(st reflect.Type) (*structInfo, error) {{\n"
    "\tn := st.NumField()\n"
    "\tfieldsMap := make(map[string]fieldInfo)\n"
    "\tfor i := 0; i != n; i++ {{\n"
    "\t\tfield := st.Field(i)\n"
    '\t\ttag := field.Tag.Get("yaml")\n'
    '\t\tif tag == "" && strings.Index(string(field.Tag), ":") < 0 {{\n'
    "\t\t\ttag = string(field.Tag)\n"
    "\t\t}}\n"
    "\t\tfieldsMap[tag] = fieldInfo{{Key: tag, Num: i}}\n"
    "\t}}\n"
    "\treturn &structInfo{{fieldsMap}}, nil\n"
    "}}\n\n"
    "func isZero(v reflect.Value) bool {{\n"
    "\treturn v.Kind() == reflect.Invalid || v.IsZero()\n"
    "}}\n"
)


def test_a_file_deleted_and_added_under_a_new_name_some_commits_later(tmp_path: Path) -> None:
    """yaml's ca3d523 ("goyaml is now yaml.") deleted goyaml.go, and 5e76f7c ("Added missing
    yaml.go file") added yaml.go five commits later, the same file with its package clause
    changed: the file was renamed over those commits, and the history goes on in goyaml.go.
    Only the commit just before the add was searched for the deletion."""
    r = Repo(tmp_path / "r")
    r.write("goyaml.go", YAML.format(package="goyaml"))
    born = r.commit("Decoding of structs working")
    r.write("goyaml.go", YAML.format(package="goyaml").replace("i != n", "i < n"))
    edited = r.commit("loop")
    r.git("rm", "-q", "goyaml.go")
    r.commit("goyaml is now yaml.")
    for index in range(4):
        r.write(f"decode{index}.go", f"package yaml\n\nvar step{index} = {index}\n")
        r.commit(f"step {index}")
    r.write("yaml.go", YAML.format(package="yaml").replace("i != n", "i < n"))
    added = r.commit("Added missing yaml.go file")
    history = symbol_history(r.path, "yaml.go", "getStructInfo")
    assert changes(history.commits) == [
        (added, ("file-rename",)),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "goyaml.go"


def test_a_function_written_long_after_its_file_was_deleted_is_new(tmp_path: Path) -> None:
    """A file deleted more than a few commits before one that adds a like function is not
    searched: the function is new there."""
    r = Repo(tmp_path / "r")
    r.write("goyaml.go", YAML.format(package="goyaml"))
    r.commit("Decoding of structs working")
    r.git("rm", "-q", "goyaml.go")
    r.commit("goyaml is now yaml.")
    for index in range(12):
        r.write(f"decode{index}.go", f"package yaml\n\nvar step{index} = {index}\n")
        r.commit(f"step {index}")
    r.write("yaml.go", YAML.format(package="yaml"))
    added = r.commit("Added yaml.go")
    history = symbol_history(r.path, "yaml.go", "getStructInfo")
    assert changes(history.commits) == [(added, ("introduced",))]


COMPILE = (
    "var utils = require('./utils')\n"
    "  , compile;\n\n"
    "{target} = function (template, opts) {{\n"
    "  var templ = new Template(template, opts || {{}});\n"
    "  return templ.compile();\n"
    "}};\n\n"
    "exports.render = function (template, data) {{\n"
    "  return compile(template, data)(data);\n"
    "}};\n"
)


def test_a_second_name_given_to_a_function(tmp_path: Path) -> None:
    """ejs's 43cdac02 made `exports.compile = function` into `compile = exports.compile =
    function`, the body unchanged: both names are indexed, and the history of `compile` goes
    on in `exports.compile`, which it was before (the older name did not vanish, so it was not
    taken for a rename)."""
    r = Repo(tmp_path / "r")
    r.write("lib/ejs.js", COMPILE.format(target="exports.compile"))
    born = r.commit("Custom delimiters")
    r.write("lib/ejs.js", COMPILE.format(target="exports.compile").replace("|| {}", "|| null"))
    edited = r.commit("opts")
    r.write(
        "lib/ejs.js",
        COMPILE.format(target="compile = exports.compile").replace("|| {}", "|| null"),
    )
    named = r.commit("Support for require")
    history = symbol_history(r.path, "lib/ejs.js", "compile")
    assert changes(history.commits) == [
        (named, ("signature", "rename")),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[1].symbol == "exports.compile"
    # The older name's own history has no rename in it.
    kept = symbol_history(r.path, "lib/ejs.js", "exports.compile")
    assert [sha for sha, _ in changes(kept.commits)] == [named, edited, born]
