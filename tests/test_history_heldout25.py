"""`tether history`: cases the twenty-fifth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 25`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

TIME_FORMAT = (
    "type {Type} struct {{\n"
    "\t{format} string\n"
    "\t{typ}    int\n"
    "}}\n\n"
    "func (f {Type}) {has}() bool {{\n"
    "\t// We don't include the formats with only named timezones\n"
    "\treturn f.{typ} >= {numeric}Timezone && f.{typ} <= {numeric}AndNamedTimezone\n"
    "}}\n"
)
PARSE = (
    "func parseDateWith(s string, formats []timeFormat) (time.Time, error) {\n"
    "\tfor _, format := range formats {\n"
    "\t\tif d, err := time.Parse(format.format, s); err == nil {\n"
    "\t\t\treturn d, nil\n"
    "\t\t}\n"
    "\t}\n"
    '\treturn time.Time{}, fmt.Errorf("unable to parse date: %s", s)\n'
    "}\n"
)


def _time_format(exported: bool) -> str:
    if exported:
        names = {"Type": "TimeFormat", "format": "Format", "typ": "Typ", "has": "HasTimezone"}
        return TIME_FORMAT.format(**names, numeric="TimeFormatNumeric")
    names = {"Type": "timeFormat", "format": "format", "typ": "typ", "has": "hasTimezone"}
    return TIME_FORMAT.format(**names, numeric="timeFormatNumeric")


def test_a_go_method_exported_with_its_type_as_it_moved(tmp_path: Path) -> None:
    """cast's cd8c9c3 moved `timeFormat` and its one-line `hasTimezone` from time.go into the
    new internal/time.go as `TimeFormat.HasTimezone`, every name in it exported: only 0.33
    alike, but it moved with its type, whose name differs only in its first letter's case."""
    r = Repo(tmp_path / "r")
    r.write("time.go", "package cast\n\n" + _time_format(False) + "\n" + PARSE)
    born = r.commit("time formats")
    r.write(
        "time.go",
        "package cast\n\n" + PARSE.replace("formats []timeFormat", "formats []internal.TimeFormat"),
    )
    r.write("internal/time.go", "package internal\n\n" + _time_format(True))
    moved = r.commit("refactor: improve time tests")
    history = symbol_history(r.path, "internal/time.go", "TimeFormat.HasTimezone")
    assert [sha for sha, _ in changes(history.commits)] == [moved, born]
    assert "move" in history.commits[0].changes
    assert history.commits[1].symbol == "timeFormat.hasTimezone"


HOLDER = (
    "package org.apache.ibatis.executor.loader;\n\n"
    "public class {cls} implements Serializable {{\n\n"
    "  private static final long serialVersionUID = 9018585337519878124L;\n"
    "  private Object userBean;\n"
    "  private String[] unloadedProperties;\n"
    "  private ObjectFactory objectFactory;\n\n"
    "  public {cls}(final Object userBean, final String[] unloadedProperties,\n"
    "      final ObjectFactory objectFactory{extra_params}) {{\n"
    "    this.userBean = userBean;\n"
    "    this.unloadedProperties = unloadedProperties;\n"
    "    this.objectFactory = objectFactory;\n"
    "  }}\n\n"
    "  protected Object readResolve() throws ObjectStreamException {{\n"
    "    {resolve}\n"
    "  }}\n"
    "}}\n"
)


def test_a_class_renamed_with_its_file_and_rewritten(tmp_path: Path) -> None:
    """mybatis's cafd10c6 deleted SerialStatusHolder.java and added SerialStateHolder.java, the
    class renamed and given two more constructor arguments (git pairs the files only at 31%),
    `readResolve` rewritten (0.33 alike): a definition named as its file counts as the new
    file's, so the class, its constructor and `readResolve` are the deleted file's renamed."""
    r = Repo(tmp_path / "r")
    old = "src/main/java/org/apache/ibatis/executor/loader/SerialStatusHolder.java"
    new = old.replace("SerialStatusHolder", "SerialStateHolder")
    resolve = (
        "return DeserializedObjectProxy.createProxy(userBean, unloadedProperties, objectFactory);"
    )
    r.write(old, HOLDER.format(cls="SerialStatusHolder", extra_params="", resolve=resolve))
    born = r.commit("serializable proxies")
    (r.path / old).unlink()
    rewritten = (
        "Set<String> arrayProps = new HashSet<String>(Arrays.asList(this.unloadedProperties));\n"
        "    List<Class> arrayTypes = Arrays.asList(this.constructorArgTypes);\n"
        "    List<Object> arrayValues = Arrays.asList(this.constructorArgs);\n"
        "    return DeserializedObjectProxy.createProxy(userBean, arrayProps, objectFactory,"
        " arrayTypes, arrayValues);"
    )
    r.write(
        new,
        HOLDER.format(
            cls="SerialStateHolder",
            extra_params=", List<Class> constructorArgTypes, List<Object> constructorArgs",
            resolve=rewritten,
        ),
    )
    renamed = r.commit("Cglib proxies for beans with no default constructors")
    history = symbol_history(r.path, new, "SerialStateHolder.readResolve")
    assert [sha for sha, _ in changes(history.commits)] == [renamed, born]
    assert {"file-rename", "rename", "body"} <= set(history.commits[0].changes)


VALUE_MOD = (
    "impl<'v> Value<'v> {{\n"
    "    /// Visit the value using an internal visitor.\n"
    "    pub(crate) fn visit<'a>(&'a self, visitor: &mut dyn Visitor<'a>) -> Result<(), Error> {{\n"
    "        self.inner.visit(visitor)\n"
    "    }}\n\n"
    "    pub fn from_any<T>(value: &'v T, from: FromAny<'v, T>) -> Self {{\n"
    "        Value {{ inner: Inner::new(value, from) }}\n"
    "    }}\n\n"
    "    pub fn is<T: 'static>(&self) -> bool {{\n"
    "        self.inner.is::<T>()\n"
    "    }}\n"
    "}}\n"
)
CAST = (
    "impl<'v> Value<'v> {\n"
    "    pub fn to_borrowed_str(&self) -> Option<&str> {\n"
    "        self.inner.cast().into_primitive().into_borrowed_str()\n"
    "    }\n\n"
    "    pub fn to_u64(&self) -> Option<u64> {\n"
    "        self.inner.cast().into_primitive().into_u64()\n"
    "    }\n\n"
    "    pub fn to_i64(&self) -> Option<i64> {\n"
    "        self.inner.cast().into_primitive().into_i64()\n"
    "    }\n\n"
    "    pub fn to_f64(&self) -> Option<f64> {\n"
    "        self.inner.cast().into_primitive().into_f64()\n"
    "    }\n"
    "}\n"
)
VALUE_BAG = (
    "impl<'v> Value<'v> {\n"
    "    pub fn from_any<T>(value: &'v T) -> Self {\n"
    "        Value { inner: ValueBag::capture(value) }\n"
    "    }\n\n"
    "    pub fn is<T: 'static>(&self) -> bool {\n"
    "        self.inner.is::<T>()\n"
    "    }\n\n"
    "    pub fn to_borrowed_str(&self) -> Option<&str> {\n"
    "        self.inner.to_borrowed_str()\n"
    "    }\n"
    "}\n"
)


def test_a_namesake_deleted_elsewhere_beats_a_rename_in_the_renamed_file(tmp_path: Path) -> None:
    """log's 84b78e2 replaced src/kv/value/mod.rs and its internal modules by src/kv/value.rs:
    its `Value.to_borrowed_str` is the one deleted with cast/mod.rs (0.62 alike), not
    value/mod.rs's `Value.visit`, which vanished from the file taken for value.rs's old self
    and is 0.95 like it, as one-line methods are."""
    r = Repo(tmp_path / "r")
    r.write("src/kv/value/mod.rs", VALUE_MOD.format())
    r.write("src/kv/value/internal/cast/mod.rs", CAST)
    born = r.commit("value casting")
    (r.path / "src/kv/value/mod.rs").unlink()
    (r.path / "src/kv/value/internal/cast/mod.rs").unlink()
    r.write("src/kv/value.rs", VALUE_BAG)
    replaced = r.commit("replace value impl with value-bag")
    history = symbol_history(r.path, "src/kv/value.rs", "Value.to_borrowed_str")
    assert changes(history.commits) == [(replaced, ("body", "move")), (born, ("introduced",))]
    assert history.commits[1].path == "src/kv/value/internal/cast/mod.rs"
