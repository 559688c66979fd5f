"""`tether history`: cases the thirty-second held-out accuracy round found (bench/anchors/truth,
`held_out_round: 32`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

SECTION = (
    "func (s *Section) {name}(val reflect.Value) error {{\n"
    "\tif val.Kind() == reflect.Ptr {{\n"
    "\t\tval = val.Elem()\n"
    "\t}}\n"
    "\ttyp := val.Type()\n"
    "\tfor i := 0; i < typ.NumField(); i++ {{\n"
    "\t\tfield := val.Field(i)\n"
    "\t\tif sec, err := s.f.GetSection(typ.Field(i).Name); err == nil {{\n"
    "\t\t\tif err = sec.{name}(field); err != nil {{\n"
    "\t\t\t\treturn err\n"
    "\t\t\t}}\n"
    "\t\t}}\n"
    "\t}}\n"
    "\treturn nil\n"
    "}}\n\n"
)
CHECKED = (
    "func (f *File) MapTo(v interface{{}}) {result} {{\n"
    "\ttyp := reflect.TypeOf(v)\n"
    "\tval := reflect.ValueOf(v)\n"
    "\tif typ.Kind() == reflect.Ptr {{\n"
    "\t\ttyp = typ.Elem()\n"
    "\t\tval = val.Elem()\n"
    "\t}} else {{\n"
    '\t\treturn errors.New("cannot map to non-pointer struct")\n'
    "\t}}\n"
    "\treturn {call}\n"
    "}}\n\n"
)


def test_a_name_passed_on_to_another_qualifiers_code(tmp_path: Path) -> None:
    """ini's bd7ccfd renamed `Section.MapTo(val reflect.Value)` to `mapTo` (its recursive calls
    with it) and wrote `File.MapTo`'s code as a new `Section.MapTo(v interface{})`, leaving
    `File.MapTo` a one-line wrapper: `mapTo` is the old `Section.MapTo`, renamed. The name was
    passed on from a definition of the same last name under another qualifier, which was not
    looked at."""
    r = Repo(tmp_path / "r")
    old = (
        "package ini\n\n"
        + SECTION.format(name="MapTo")
        + CHECKED.format(call='f.Section("").MapTo(val)', result="(err error)")
    )
    r.write("struct.go", old)
    born = r.commit("add map to struct support")
    passed = (
        CHECKED.format(call="s.mapTo(val)", result="error").replace(
            "func (f *File)", "func (s *Section)"
        )
        + "func (f *File) MapTo(v interface{}) error {\n"
        + '\treturn f.Section("").MapTo(v)\n'
        + "}\n"
    )
    r.write("struct.go", "package ini\n\n" + SECTION.format(name="mapTo") + passed)
    renamed = r.commit("map from a section")
    history = symbol_history(r.path, "struct.go", "Section.mapTo")
    assert changes(history.commits) == [
        (renamed, ("body", "rename")),
        (born, ("introduced",)),
    ]
    assert history.commits[1].symbol == "Section.MapTo"
    # The new `Section.MapTo` is `File.MapTo`'s code: its history goes on there.
    public = symbol_history(r.path, "struct.go", "Section.MapTo")
    assert [sha for sha, _ in changes(public.commits)] == [renamed, born]
    assert public.commits[1].symbol == "File.MapTo"


MATCH_BODY = (
    "  this.debug('match', f, this.pattern)\n"
    "  if (this.comment) return false\n"
    "  if (this.empty) return f === ''\n"
    "  var set = this.set\n"
    "  for (var i = 0, l = set.length; i < l; i++) {\n"
    "    if (this.matchOne(f.split('/'), set[i], partial)) return !this.negate\n"
    "  }\n"
    "  return this.negate\n"
    "}\n"
)
MINIMATCH = (
    "function Minimatch (pattern, options) {\n"
    "  this.options = options || {}\n"
    "  this.pattern = pattern\n"
    "  this.make()\n"
    "}\n\n"
    "Minimatch.prototype.make = function make () {\n"
    "  this.set = [this.pattern]\n"
    "}\n\n"
    "{match}\n"
)


def test_a_prototype_method_was_a_function_the_prototype_named(tmp_path: Path) -> None:
    """minimatch's dbda065 made `Minimatch.prototype.match = match` and the `function match (f,
    partial)` below it into `Minimatch.prototype.match = function match (f)`: the older lines
    were read alone under the constructor's line, as if inside it, which named the function
    `Minimatch.match` there. Only definitions around a symbol are read as its enclosing ones:
    the history goes on in `match`, renamed."""
    r = Repo(tmp_path / "r")
    old = "Minimatch.prototype.match = match\nfunction match (f, partial) {\n" + MATCH_BODY
    r.write("minimatch.js", MINIMATCH.replace("{match}", old))
    born = r.commit("match")
    r.write("minimatch.js", MINIMATCH.replace("{match}", old.replace("return false", "return 0")))
    edited = r.commit("comment")
    new = "Minimatch.prototype.match = function match (f, partial) {\n" + MATCH_BODY
    r.write("minimatch.js", MINIMATCH.replace("{match}", new.replace("return false", "return 0")))
    named = r.commit("full test coverage")
    history = symbol_history(r.path, "minimatch.js", "Minimatch.match")
    assert changes(history.commits) == [
        (named, ("signature", "rename")),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
    assert [c.symbol for c in history.commits] == ["Minimatch.match", "match", "match"]
