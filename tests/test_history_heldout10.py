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
