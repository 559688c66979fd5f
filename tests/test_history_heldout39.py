"""`tether history`: cases the thirty-ninth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 39`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

BASE = (
    "pub struct SkipList<K> {{\n    head: Vec<K>,\n    len: usize,\n}}\n\n"
    "impl<K: Ord> SkipList<K> {{\n"
    "    fn help_unlink(&self, pred: usize, curr: usize) -> Option<usize> {{\n"
    "        if curr >= self.len {{\n"
    "            return None;\n"
    "        }}\n"
    "        let succ = {succ};\n"
    "        Some(succ)\n"
    "    }}\n"
    "}}\n"
)


def test_a_file_moved_across_a_merge_that_dropped_it(tmp_path: Path) -> None:
    """crossbeam's ac2f9a61 merged crossbeam-skiplist's own history but kept only its first
    parent's tree, and the next commit, d9b1e342 ("Merge remaining subcrates"), added the
    skiplist's src/base.rs as crossbeam-skiplist/src/base.rs, byte for byte: the file moved in
    two commits across the merge, and its methods' histories go on in the merged repository's.
    The walk took them for new there."""
    r = Repo(tmp_path / "r")
    r.write("src/lib.rs", "pub fn version() -> u32 {\n    1\n}\n")
    r.commit("crossbeam")
    r.git("checkout", "-q", "--orphan", "skiplist")
    r.git("rm", "-q", "-r", "--cached", ".")
    (r.path / "src" / "lib.rs").unlink()
    r.write("src/base.rs", BASE.format(succ="pred + 1"))
    r.write("src/lib.rs", "mod base;\n")
    born = r.commit("skiplist")
    r.write("src/base.rs", BASE.format(succ="pred + curr + 1"))
    edited = r.commit("unlink past curr")
    r.git("checkout", "-q", "-f", "main")
    r.git("merge", "-q", "-s", "ours", "--allow-unrelated-histories", "-m", "merge", "skiplist")
    r.write("crossbeam-skiplist/src/base.rs", BASE.format(succ="pred + curr + 1"))
    added = r.commit("Merge remaining subcrates")
    history = symbol_history(r.path, "crossbeam-skiplist/src/base.rs", "SkipList.help_unlink")
    assert changes(history.commits) == [
        (added, ("file-rename",)),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "src/base.rs"


def test_a_file_a_merge_kept_is_not_moved_out_of_it(tmp_path: Path) -> None:
    """The same, but the merge kept the other side's file where it was: the added file is a
    copy, new here."""
    r = Repo(tmp_path / "r")
    r.write("src/lib.rs", "pub fn version() -> u32 {\n    1\n}\n")
    r.commit("crossbeam")
    r.git("checkout", "-q", "-b", "skiplist")
    r.write("src/base.rs", BASE.format(succ="pred + 1"))
    r.commit("skiplist")
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "-m", "merge", "skiplist")
    r.write("crossbeam-skiplist/src/base.rs", BASE.format(succ="pred + 1"))
    added = r.commit("copy")
    history = symbol_history(r.path, "crossbeam-skiplist/src/base.rs", "SkipList.help_unlink")
    assert changes(history.commits) == [(added, ("introduced",))]
