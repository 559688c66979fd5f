"""`tether history`: cases the seventh held-out accuracy round found (bench/anchors/truth,
`held_out_round: 7`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, log_kind  # noqa: F401  (log_kind: autouse)

VALIDATE = (
    "    def validate(self):\n"
    "        if self.pool_size < 1:\n"
    "            raise ValueError('pool size must be positive')\n"
    "        if self.timeout < {least}:\n"
    "            self.timeout = {least}\n"
    "        return self\n"
)


def _config(cls: str, least: int, validate: bool = True) -> str:
    body = VALIDATE.replace("{least}", str(least)) if validate else ""
    return f"class {cls}:\n    def name(self):\n        return '{cls}'\n\n" + body


def test_a_definition_moved_out_of_copies_in_two_trees(tmp_path: Path) -> None:
    """HikariCP `HikariConfig.validate`: the build was split into a Java 6 and a Java 8 tree,
    each with its own copy of the class; one commit moved the (identical) method out of both
    copies into a new common base class. The copies are one past, not two rival origins: the
    history continues through one of them (the nearest path, then the first), not `introduced`.
    Two different definitions equally alike stay a case of `introduced` (axios, round six)."""
    r = Repo(tmp_path / "r")
    for tree in ("java6", "java8"):
        r.write(f"{tree}/config.py", _config("Config", 250))
    born = r.commit("two trees")
    for tree in ("java6", "java8"):
        r.write(f"{tree}/config.py", _config("Config", 1000))
    edited = r.commit("a longer least timeout")
    for tree in ("java6", "java8"):
        r.write(f"{tree}/config.py", _config("Config", 1000, validate=False))
    r.write("common/base.py", _config("BaseConfig", 1000))
    moved = r.commit("common base class")
    history = symbol_history(r.path, "common/base.py", "BaseConfig.validate")
    assert [e.commit for e in history.commits] == [moved, edited, born]
    assert "move" in history.commits[0].changes
    assert (history.commits[1].path, history.commits[1].symbol) == (
        "java6/config.py",
        "Config.validate",
    )

    # The two copies differ (one tree had its own fix): no one of them is its earlier version.
    q = Repo(tmp_path / "q")
    q.write("java6/config.py", _config("Config", 250))
    q.write("java8/config.py", _config("Config", 500))
    q.commit("two trees")
    for tree in ("java6", "java8"):
        q.write(f"{tree}/config.py", _config("Config", 1000, validate=False))
    q.write("common/base.py", _config("BaseConfig", 750))
    merged = q.commit("common base class")
    history = symbol_history(q.path, "common/base.py", "BaseConfig.validate")
    assert [(e.commit, e.changes) for e in history.commits] == [(merged, ("introduced",))]


PROCESSOR = (
    "abstract class Processor {\n"
    "  abstract getHeaders(event: Event): Headers\n"
    "}\n\n"
    "{open}\n"
    "  protected getHeaders(event: Event): Headers {\n"
    "    const headers = new Headers()\n"
    "    for (const [key, value] of Object.entries(event.headers ?? {})) {\n"
    "      if (value) {\n"
    "        headers.set(key, {value})\n"
    "      }\n"
    "    }\n"
    "    return headers\n"
    "  }\n"
    "{close}\n"
)


def _processor(declared: bool, value: str) -> str:
    if declared:
        return (
            PROCESSOR.replace("{open}", "class ALBProcessor extends Processor {")
            .replace("{close}", "}\nconst albProcessor = new ALBProcessor()")
            .replace("{value}", value)
        )
    return (
        PROCESSOR.replace(
            "{open}", "const albProcessor = new (class ALBProcessor extends Processor {"
        )
        .replace("{close}", "})()")
        .replace("{value}", value)
    )


def test_a_method_of_a_class_written_in_a_new_expression(tmp_path: Path) -> None:
    """hono `ALBProcessor.getHeaders`: the class was first written in place as a one-off
    instance, `const albProcessor = new (class ALBProcessor extends ... {...})()`, and later
    declared (`class ALBProcessor ...`) with its methods unchanged. The method is named by its
    class's own name in both, so its history goes back past the declaration to where it was
    written, and the declaration is no change to it."""
    r = Repo(tmp_path / "r")
    r.write("handler.ts", _processor(False, "value"))
    born = r.commit("ALB processor")
    r.write("handler.ts", _processor(False, "String(value)"))
    edited = r.commit("header values as strings")
    r.write("handler.ts", _processor(True, "String(value)"))
    r.commit("declare the processor classes")
    history = symbol_history(r.path, "handler.ts", "ALBProcessor.getHeaders")
    assert [(e.commit, e.changes) for e in history.commits] == [
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
