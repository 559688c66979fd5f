"""`tether history`: cases the fourteenth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 14`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

USAGES = (
    "func FlagUsages(flag *Flag) string {{\n"
    "\tif !{call} {{\n"
    '\t\treturn flag.Name + " (default " + flag.DefValue + ")"\n'
    "\t}}\n"
    "\treturn flag.Name\n"
    "}}\n"
)


def test_a_go_function_rewritten_as_a_method_in_its_place_is_renamed(tmp_path: Path) -> None:
    """pflag's f90e8bbe replaced `func isZeroValue(value string) bool` by `func (f *Flag)
    defaultIsZeroValue() bool` in the same place, its switch on the value's text rewritten as a
    switch on the flag's type (0.33 alike), its one caller switched: the function made a method
    is a rename in Go, whose methods are declared where functions are (the history stopped)."""
    r = Repo(tmp_path / "r")
    old = (
        "func isZeroValue(value string) bool {{\n"
        "\tswitch value {{\n"
        '\tcase "false", "<nil>", "", "0"{more}:\n'
        "\t\treturn true\n"
        "\t}}\n"
        "\treturn false\n"
        "}}\n"
    )
    usages = USAGES.format(call="isZeroValue(flag.DefValue)")
    r.write("flag.go", "package flag\n\n" + old.format(more="") + "\n" + usages)
    born = r.commit("zero values")
    r.write("flag.go", "package flag\n\n" + old.format(more=', "0s"') + "\n" + usages)
    durations = r.commit("durations")
    method = (
        "func (f *Flag) defaultIsZeroValue() bool {\n"
        "\tswitch f.Value.(type) {\n"
        "\tcase boolFlag:\n"
        '\t\treturn f.DefValue == "false"\n'
        "\tcase *durationValue:\n"
        '\t\treturn f.DefValue == "0" || f.DefValue == "0s"\n'
        "\t}\n"
        '\treturn f.DefValue == ""\n'
        "}\n"
    )
    usages = USAGES.format(call="flag.defaultIsZeroValue()")
    r.write("flag.go", "package flag\n\n" + method + "\n" + usages)
    refactor = r.commit("refactor default value detection")
    history = symbol_history(r.path, "flag.go", "Flag.defaultIsZeroValue")
    assert [sha for sha, _ in changes(history.commits)] == [refactor, durations, born]
    assert "rename" in history.commits[0].changes
    assert history.commits[-1].symbol == "isZeroValue"


def _model(save_cb: str, fetch_cb: str, declare: str = "var success =") -> str:
    return (
        "var Model = {\n"
        "  save: function (attrs, options) {\n"
        "    var model = this;\n"
        f"    {declare} function (resp) {{\n{save_cb}    }};\n"
        "    return sync('update', this, options);\n"
        "  },\n"
        "  fetch: function (options) {\n"
        "    var model = this;\n"
        f"    {declare} function (resp) {{\n{fetch_cb}    }};\n"
        "    return sync('read', this, options);\n"
        "  },\n"
        "};\n"
    )


def test_a_nested_callback_renamed_stays_in_the_function_that_holds_it(tmp_path: Path) -> None:
    """backbone's 3d8fe92f turned each method's `var success = function (resp) {...}` into
    `options.success = function (resp) {...}`; `save`'s callback, changed in the same commit,
    was then more like `fetch`'s old one than its own. The history of `save.options.success`
    goes on in `save.success` (the method holding it lives on), not in `fetch.success`."""
    r = Repo(tmp_path / "r")
    plain = "      model.set(resp);\n      if (success) success(model, resp);\n"
    parsed = (
        "      if (!model.set(model.parse(resp))) return false;\n"
        "      if (success) success(model, resp);\n"
    )
    r.write("model.js", _model(plain, plain))
    born = r.commit("callbacks")
    r.write("model.js", _model(plain.replace("set(resp)", "set(resp, options)"), plain))
    saved = r.commit("save sets with options")
    r.write("model.js", _model(plain.replace("set(resp)", "set(resp, options)"), parsed))
    r.commit("fetch parses")
    r.write("model.js", _model(parsed, parsed, declare="options.success ="))
    moved = r.commit("callbacks on the options")
    history = symbol_history(r.path, "model.js", "Model.save.options.success")
    assert [sha for sha, _ in changes(history.commits)] == [moved, saved, born]
    assert history.commits[-1].symbol == "Model.save.success"
