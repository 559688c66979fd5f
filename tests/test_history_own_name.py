"""`tether history` at a rename: the symbol's own name in its body counts as itself (`<self>`)
only where it is the symbol's own (a call of itself, on `self`/`this`/`Self`/`super()` or a Go
method's receiver); the same name as a member of another object is that object's, and a rename
that changes such a call changed the body (bytes' `Chain.bytes`, commons-lang's
`regionMatchesSequence`: `held_out_round` 16 and earlier). Walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)


def _renamed(
    tmp_path: Path, path: str, before: str, after: str, symbol: str
) -> list[tuple[str, ...]]:
    """The change kinds of the history of `symbol` in `after`, renamed from `before`'s."""
    r = Repo(tmp_path / "r")
    r.write(path, before)
    born = r.commit("add")
    r.write(path, after)
    renamed = r.commit("rename")
    history = symbol_history(r.path, path, symbol)
    assert [sha for sha, _ in changes(history.commits)] == [renamed, born]
    return [kinds for _, kinds in changes(history.commits)]


RUST_CHAIN = """pub struct Chain<T, U> {{
    a: T,
    b: U,
}}

impl<T: Buf, U: Buf> Chain<T, U> {{
    pub fn {name}(&self) -> &[u8] {{
        if self.a.has_remaining() {{
            self.a.{name}()
        }} else {{
            self.b.{name}()
        }}
    }}
}}
"""


def test_a_rename_that_renames_the_calls_of_another_objects_namesake_changed_the_body(
    tmp_path: Path,
) -> None:
    """bytes' 06907f3 renamed `Buf::bytes` to `chunk` everywhere: `Chain.bytes`, which calls
    `self.a.bytes()` and `self.b.bytes()` (the chained buffers' methods, not itself), became
    `Chain.chunk` calling `self.a.chunk()`: its body's code changed."""
    kinds = _renamed(
        tmp_path,
        "src/chain.rs",
        RUST_CHAIN.format(name="bytes"),
        RUST_CHAIN.format(name="chunk"),
        "Chain.chunk",
    )
    assert sorted(kinds[0]) == ["body", "rename"]


JAVA_UTILS = """package org.lang;

public class CharSequenceUtils {{
    static boolean {name}(CharSequence cs, boolean ignoreCase, int thisStart,
            CharSequence substring, int start, int length) {{
        if (cs instanceof String && substring instanceof String) {{
            return ((String) cs).regionMatches(ignoreCase, thisStart, (String) substring, start, length);
        }}
        return cs.toString().regionMatches(ignoreCase, thisStart, substring.toString(), start, length);
    }}
}}
"""


def test_a_rename_to_the_name_of_a_call_on_another_object_left_the_body_as_it_was(
    tmp_path: Path,
) -> None:
    """commons-lang's 2541a62 renamed `regionMatchesSequence` to `regionMatches`; its body, word
    for word the same, calls `String.regionMatches` on its arguments, which is not the method
    calling itself: a rename, not a change of the body."""
    kinds = _renamed(
        tmp_path,
        "src/CharSequenceUtils.java",
        JAVA_UTILS.format(name="regionMatchesSequence"),
        JAVA_UTILS.format(name="regionMatches"),
        "CharSequenceUtils.regionMatches",
    )
    assert kinds[0] == ("rename",)


SELF_CALLS = {
    "python": (
        "walk.py",
        "class Tree:\n    def {name}(self, node, depth):\n        if depth == 0:\n"
        "            return [node]\n        out = []\n        for child in node.children:\n"
        "            out.extend(self.{name}(child, depth - 1))\n        return out\n",
        "Tree.{name}",
    ),
    "python-super": (
        "model.py",
        "class Model(Base):\n    def {name}(self, using=None, force=False):\n"
        "        self.validate(force)\n        result = super().{name}(using=using)\n"
        "        self.clean_cache()\n        return result\n",
        "Model.{name}",
    ),
    "javascript": (
        "tree.js",
        "class Tree {{\n  {name}(node, depth) {{\n    if (depth === 0) return [node];\n"
        "    const out = [];\n    for (const child of node.children) {{\n"
        "      out.push(...this.{name}(child, depth - 1));\n    }}\n    return out;\n  }}\n}}\n",
        "Tree.{name}",
    ),
    "go": (
        "tree.go",
        "package tree\n\nfunc (t *Tree) {name}(node *Node, depth int) []*Node {{\n"
        "\tif depth == 0 {{\n\t\treturn []*Node{{node}}\n\t}}\n\tvar out []*Node\n"
        "\tfor _, child := range node.Children {{\n"
        "\t\tout = append(out, t.{name}(child, depth-1)...)\n\t}}\n\treturn out\n}}\n",
        "Tree.{name}",
    ),
    "rust": (
        "tree.rs",
        "impl Tree {{\n    fn {name}(node: &Node, depth: u32) -> Vec<Node> {{\n"
        "        if depth == 0 {{\n            return vec![node.clone()];\n        }}\n"
        "        node.children.iter().flat_map(|c| Self::{name}(c, depth - 1)).collect()\n"
        "    }}\n}}\n",
        "Tree.{name}",
    ),
}


@pytest.mark.parametrize("case", sorted(SELF_CALLS))
def test_a_rename_of_a_symbol_calling_itself_changed_only_its_name(
    tmp_path: Path, case: str
) -> None:
    """Recursion through `self`, `this`, `Self::`, a Go method's receiver, or an override's
    call of the method it overrides through `super()`: the call is renamed with the symbol,
    and the body is as it was."""
    path, text, symbol = SELF_CALLS[case]
    kinds = _renamed(
        tmp_path,
        path,
        text.format(name="walk"),
        text.format(name="visit"),
        symbol.format(name="visit"),
    )
    assert kinds[0] == ("rename",)
