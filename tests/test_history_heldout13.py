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


PARSE = (
    "    fn parse_value(&mut self, visitor: V) -> Result<V::Value> {{\n"
    "        let peek = match self.parse_whitespace()? {{\n"
    "            Some(b) => b,\n"
    "            None => return Err(self.peek_error(ErrorCode::EofWhileParsingValue)),\n"
    "        }};\n"
    "        let value = match peek {{\n"
    "            b'n' => {{\n                self.eat_char();\n                visitor.visit_unit()\n            }}\n"
    "            b't' => {{\n                self.eat_char();\n                visitor.visit_bool(true)\n            }}\n"
    "            b'\"' => {{\n                self.eat_char();\n                self.parse_str(visitor)\n            }}\n"
    "            b'[' => {{\n"
    "                self.eat_char();\n"
    "                let ret = visitor.visit_seq(SeqAccess::new(self));\n"
    "                match (ret, self.end_seq()) {{\n"
    "                    (Ok(ret), Ok(())) => Ok(ret),\n"
    "                    (Err(err), _) | (_, Err(err)) => Err(err),\n"
    "                }}\n"
    "            }}\n"
    "            _ => Err(self.peek_error(ErrorCode::{code})),\n"
    "        }};\n"
    "        value\n"
    "    }}\n"
)


def test_a_function_inlined_into_its_caller_is_not_a_new_ones_earlier_name(tmp_path: Path) -> None:
    """serde_json's 0961dbe deleted `parse_value`, whose body went word for word into
    `deserialize_any` (until then the one line `self.parse_value(visitor)`), and wrote a dozen
    new `deserialize_*` functions each holding one of its branches: `deserialize_seq`, its `[`
    branch, is new there, not `parse_value` renamed (24 older commits were taken in)."""
    r = Repo(tmp_path / "r")
    wrapper = (
        "    fn deserialize_any(&mut self, visitor: V) -> Result<V::Value> {\n"
        "        self.parse_value(visitor)\n    }\n"
    )
    r.write("de.rs", _class("impl Deserializer", PARSE.format(code="ExpectedSomeValue"), wrapper))
    r.commit("parse value")
    r.write("de.rs", _class("impl Deserializer", PARSE.format(code="ExpectedValue"), wrapper))
    r.commit("error code")
    inlined = PARSE.format(code="ExpectedValue").replace("fn parse_value", "fn deserialize_any")
    seq = (
        "    fn deserialize_seq(&mut self, visitor: V) -> Result<V::Value> {\n"
        "        let peek = match self.parse_whitespace()? {\n"
        "            Some(b) => b,\n"
        "            None => return Err(self.peek_error(ErrorCode::EofWhileParsingValue)),\n"
        "        };\n"
        "        let value = match peek {\n"
        "            b'[' => {\n"
        "                self.eat_char();\n"
        "                let ret = visitor.visit_seq(SeqAccess::new(self));\n"
        "                match (ret, self.end_seq()) {\n"
        "                    (Ok(ret), Ok(())) => Ok(ret),\n"
        "                    (Err(err), _) | (_, Err(err)) => Err(err),\n"
        "                }\n"
        "            }\n"
        "            _ => Err(self.peek_invalid_type(&visitor)),\n"
        "        };\n"
        "        value\n"
        "    }\n"
    )
    r.write("de.rs", _class("impl Deserializer", inlined, seq))
    hints = r.commit("implement the deserializer hints")
    history = symbol_history(r.path, "de.rs", "Deserializer.deserialize_seq")
    assert changes(history.commits) == [(hints, ("introduced",))]
