"""`tether history`: cases the tenth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 10`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

TRANSLATE = (
    "pub fn translate(name: &str, style: u8) -> String {\n"
    "    match style {\n"
    "        0 => name.to_uppercase(),\n"
    "        1 => name.to_lowercase(),\n"
    "        _ => name.to_string(),\n"
    "    }\n"
    "}\n"
)


def test_a_subtree_merge_is_a_file_rename_from_the_merged_repository(tmp_path: Path) -> None:
    """clap took in the clap_derive repository with a subtree merge: its `src/attrs.rs` became
    `clap_derive/src/attrs.rs` in the merge, which neither parent has at that path; git pairs
    the two files as renamed against the merged side, whose history goes on there."""
    r = Repo(tmp_path / "r")
    r.write("src/lib.rs", "pub fn main_crate() -> u8 {\n    1\n}\n")
    r.commit("the main repository")
    r.git("checkout", "-q", "--orphan", "derive")
    r.git("rm", "-rq", "--cached", ".")
    (r.path / "src" / "lib.rs").unlink()
    r.write("src/attrs.rs", TRANSLATE)
    born = r.commit("the derive repository")
    r.write(
        "src/attrs.rs",
        TRANSLATE.replace("_ => name", "2 => name.replace('-', \"_\"),\n        _ => name"),
    )
    changed = r.commit("snake case")
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "-s", "ours", "--no-commit", "--allow-unrelated-histories", "derive")
    r.git("read-tree", "--prefix=derive/", "-u", "derive")
    merged = r.commit("Merged derive using git-subtree")
    r.write(
        "derive/src/attrs.rs",
        TRANSLATE.replace("to_uppercase", "to_ascii_uppercase").replace(
            "_ => name", "2 => name.replace('-', \"_\"),\n        _ => name"
        ),
    )
    after = r.commit("ascii")
    history = symbol_history(r.path, "derive/src/attrs.rs", "translate")
    assert changes(history.commits) == [
        (after, ("body",)),
        (merged, ("file-rename",)),
        (changed, ("body",)),
        (born, ("introduced",)),
    ]
    assert [c.path for c in history.commits][-1] == "src/attrs.rs"


SPEC_VALS = (
    "class Help:\n"
    "    def spec_vals(self, arg):\n"
    "        spec = []\n"
    "        if arg.aliases:\n"
    "            spec.append('aliases: ' + ', '.join(arg.aliases))\n"
    "        if arg.default is not None:\n"
    "            spec.append('default: ' + str(arg.default))\n"
    "        return ' '.join(spec)\n"
    "\n"
    "    def write(self, arg):\n"
    "        return arg.name\n"
)


def test_a_method_deleted_and_written_back_goes_on_before_the_deletion(tmp_path: Path) -> None:
    """clap's `Help.sc_spec_vals` was deleted by mistake with other methods and restored by the
    next commit: neither is a change of it (the restoration, when it differs, is), and its
    history goes on before them. A name written again with other code is new there."""
    r = Repo(tmp_path / "r")
    r.write("help.py", SPEC_VALS)
    born = r.commit("help")
    r.write("help.py", SPEC_VALS.replace("' '.join(spec)", "'; '.join(spec)"))
    joined = r.commit("separator")
    text = SPEC_VALS.replace("' '.join(spec)", "'; '.join(spec)")
    without = "class Help:\n" + text.split("\n\n", 1)[1]
    r.write("help.py", without)
    r.commit("drop methods (by mistake)")
    r.write("help.py", text.replace("'aliases: '", "'alias: '"))
    restored = r.commit("restore")
    history = symbol_history(r.path, "help.py", "Help.spec_vals")
    assert changes(history.commits) == [
        (restored, ("body",)),
        (joined, ("body",)),
        (born, ("introduced",)),
    ]
    # Written back as other code under the same name: introduced there.
    r.write("help.py", without)
    r.commit("drop it again")
    other = (
        "class Help:\n    def spec_vals(self, arg):\n        return repr(arg)\n\n"
        + without.split("\n", 1)[1]
    )
    r.write("help.py", other)
    anew = r.commit("a new one")
    assert changes(symbol_history(r.path, "help.py", "Help.spec_vals").commits) == [
        (anew, ("introduced",))
    ]


def test_a_function_made_an_arrow_constant_changed_its_signature_only(tmp_path: Path) -> None:
    """excalidraw wrote `function measureText(...) {...}` as `const measureText = (...) =>
    {...};`: the body block is the same, the `;` ending the statement is not the body's."""
    r = Repo(tmp_path / "r")
    body = "{\n  const line = text.split('\\n');\n  return line.length * size;\n}"
    r.write("u.ts", f"export function measureText(text: string, size: number) {body}\n")
    born = r.commit("function")
    r.write("u.ts", f"export const measureText = (text: string, size: number) => {body};\n")
    arrow = r.commit("arrow")
    r.write("u.ts", f"export const measureText = (text: string, size: number) => {body}\n")
    r.commit("no semicolon")  # style only: not a change
    history = symbol_history(r.path, "u.ts", "measureText")
    assert changes(history.commits) == [(arrow, ("signature",)), (born, ("introduced",))]
