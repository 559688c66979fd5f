"""`tether history`: cases the thirty-seventh held-out accuracy round found (bench/anchors/truth,
`held_out_round: 37`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

OLD_ITER = (
    "use crate::{{memchr, memchr2}};\n\n"
    "pub struct Memchr<'a> {{\n    needle: u8,\n    haystack: &'a [u8],\n    position: usize,\n}}\n\n"
    "impl<'a> Iterator for Memchr<'a> {{\n"
    "    type Item = usize;\n\n"
    "    fn next(&mut self) -> Option<usize> {{\n"
    "        {one}\n"
    "    }}\n"
    "}}\n\n"
    "pub struct Memchr2<'a> {{\n    needle1: u8,\n    needle2: u8,\n    haystack: &'a [u8],\n"
    "    position: usize,\n}}\n\n"
    "impl<'a> Iterator for Memchr2<'a> {{\n"
    "    type Item = usize;\n\n"
    "    fn next(&mut self) -> Option<usize> {{\n"
    "        iter_next!(self, memchr2(self.needle1, self.needle2, self.haystack))\n"
    "    }}\n"
    "}}\n"
)

NEW_MEMCHR = (
    "pub struct Memchr<'h> {\n    needle1: u8,\n    it: crate::arch::generic::Iter<'h>,\n}\n\n"
    "impl<'h> Iterator for Memchr<'h> {\n"
    "    type Item = usize;\n\n"
    "    fn next(&mut self) -> Option<usize> {\n"
    "        unsafe { self.it.next(|s, e| memchr_raw(self.needle1, s, e)) }\n"
    "    }\n"
    "}\n\n"
    "pub struct Memchr2<'h> {\n    needle1: u8,\n    needle2: u8,\n"
    "    it: crate::arch::generic::Iter<'h>,\n}\n\n"
    "impl<'h> Iterator for Memchr2<'h> {\n"
    "    type Item = usize;\n\n"
    "    fn next(&mut self) -> Option<usize> {\n"
    "        unsafe { self.it.next(|s, e| memchr2_raw(self.needle1, self.needle2, s, e)) }\n"
    "    }\n"
    "}\n"
)


def test_a_method_moved_beside_namesakes_of_other_types(tmp_path: Path) -> None:
    """memchr's 93662e7 deleted src/memchr/iter.rs and wrote every iterator into the new
    src/memchr.rs, each `next` rewritten alike: the new `Memchr.next` is a little more like the
    old `Memchr2.next` than like its own old self, and as the two namesakes vanished about as
    alike, the walk took the method for new there. The namesake of its whole qualified name is
    its earlier version."""
    r = Repo(tmp_path / "r")
    r.write("src/iter.rs", OLD_ITER.format(one="iter_next!(self, memchr(self.needle, haystack))"))
    born = r.commit("iterators")
    r.write(
        "src/iter.rs", OLD_ITER.format(one="iter_next!(self, memchr(self.needle, self.haystack))")
    )
    edited = r.commit("haystack from self")
    r.git("rm", "-q", "src/iter.rs")
    # (Written among much else: git pairs no file with iter.rs, nor is it a tenth of the new one.)
    searchers = "".join(
        f"pub fn memchr{n}_raw(needle: u8, start: *const u8, end: *const u8) -> Option<usize> {{\n"
        f"    let found = crate::arch::search_{n}(needle, start, end)?;\n"
        f"    Some(found.offset_from_start({n}))\n}}\n\n"
        for n in range(40)
    )
    r.write("src/memchr.rs", searchers + NEW_MEMCHR)
    moved = r.commit("rewrite on the arch searchers")
    history = symbol_history(r.path, "src/memchr.rs", "Memchr.next")
    assert changes(history.commits) == [
        (moved, ("body", "move")),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "src/iter.rs"
