"""`tether history`: cases the eleventh held-out accuracy round found (bench/anchors/truth,
`held_out_round: 11`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

BODY = (
    "  Base.call(this, runner, options);\n"
    "  var self = this;\n"
    "  this.colorIndex = 0;\n"
    "  this.numberOfLines = 4;\n"
    "  runner.on('start', function () {\n"
    "    self.draw();\n"
    "  });\n"
)


def test_a_constructor_function_made_a_class_goes_on_in_its_constructor(tmp_path: Path) -> None:
    """mocha's reporters left `util.inherits` for ES2015 classes: `function NyanCat(runner,
    options) {...}` became `class NyanCat extends Base { constructor(runner, options) {...} }`,
    its body the constructor's; the constructor's history goes on in the function's."""
    r = Repo(tmp_path / "r")
    old = (
        "function NyanCat(runner, options) {\n" + BODY + "}\n\n"
        "inherits(NyanCat, Base);\n\n"
        "NyanCat.prototype.draw = function () {\n  this.tick = !this.tick;\n};\n"
    )
    r.write("nyan.js", old)
    born = r.commit("nyan")
    r.write("nyan.js", old.replace("this.numberOfLines = 4", "this.numberOfLines = 5"))
    changed = r.commit("five lines")
    body = BODY.replace("this.numberOfLines = 4", "this.numberOfLines = 5")
    body = body.replace("Base.call(this, runner, options);", "super(runner, options);")
    r.write(
        "nyan.js",
        "class NyanCat extends Base {\n  constructor(runner, options) {\n"
        + "".join("  " + line + "\n" for line in body.splitlines())
        + "  }\n\n  draw() {\n    this.tick = !this.tick;\n  }\n}\n",
    )
    classes = r.commit("classes")
    history = symbol_history(r.path, "nyan.js", "NyanCat.constructor")
    assert changes(history.commits) == [
        (classes, ("body", "signature", "rename")),
        (changed, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[-1].symbol == "NyanCat"
