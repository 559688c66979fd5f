"""`tether history`: cases the thirteenth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 13`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

CHECK = (
    "    protected void checkRequiredOptions() throws MissingOptionException {{\n"
    "        if (requiredOptions.size() > 0) {{\n"
    "            Iterator iter = requiredOptions.iterator();\n"
    "            StringBuffer buff = new StringBuffer();\n"
    "            while (iter.hasNext()) {{\n"
    "                buff.append(iter.next());\n"
    "            }}\n"
    "            throw new {error}(buff.toString());\n"
    "        }}\n"
    "    }}\n"
)


def _class(head: str, *members: str) -> str:
    return f"{head} {{\n" + "\n".join(members) + "}\n"


def test_copies_in_sibling_classes_pulled_up_into_their_base_are_one_past(tmp_path: Path) -> None:
    """commons-cli's dde69934 added the base class `Parser` with `checkRequiredOptions`, which
    `GnuParser` and `PosixParser` each held word for word until then (both copies made by one
    commit that moved it out of `Options`): identical copies under one last name are one past,
    not two origins that tie (the history stopped there, three commits short)."""
    r = Repo(tmp_path / "r")
    other = "    public int size() {\n        return options.size();\n    }\n"
    r.write("Options.java", _class("public class Options", other, CHECK.format(error="Exception")))
    born = r.commit("options")
    r.write("Options.java", _class("public class Options", other))
    for name in ("GnuParser", "PosixParser"):
        parse = f"    public void parse{name}() {{\n        flatten();\n    }}\n"
        r.write(
            f"{name}.java", _class(f"public class {name}", parse, CHECK.format(error="Missing"))
        )
    split = r.commit("move the check into the parsers")
    for name in ("GnuParser", "PosixParser"):
        text = (r.path / f"{name}.java").read_text()
        r.write(
            f"{name}.java",
            text.replace("buff.append(iter.next());", "buff.append(iter.next()).append(' ');"),
        )
    edited = r.commit("spaces")
    check = CHECK.format(error="Missing").replace(
        "buff.append(iter.next());", "buff.append(iter.next()).append(' ');"
    )
    for name in ("GnuParser", "PosixParser"):
        parse = f"    public void parse{name}() {{\n        flatten();\n    }}\n"
        r.write(f"{name}.java", _class(f"public class {name} extends Parser", parse))
    r.write("Parser.java", _class("public abstract class Parser", check))
    pulled = r.commit("pull the check up into Parser")
    history = symbol_history(r.path, "Parser.java", "Parser.checkRequiredOptions")
    assert changes(history.commits) == [
        (pulled, ("rename", "move")),
        (edited, ("body",)),
        (split, ("body", "rename", "move")),
        (born, ("introduced",)),
    ]
    assert history.commits[-1].symbol == "Options.checkRequiredOptions"
