"""The token text of a span (`Version.norm`, what the rename and move searches compare) walked
from the node that covers the span is the one walked from the file's root."""

from __future__ import annotations

import pytest

from anchors.history_compare import Version
from anchors.languages import SUPPORTED

SOURCES = {
    "python": (
        "import os\n\n\nclass Store:\n    '''Doc.'''\n\n    def get(self, key):  # note\n"
        "        if key:\n            return self.get(key[1:])\n        return os.sep\n\n"
        "    @property\n    def size(self):\n        return 1\n\n\ndef helper(x):\n"
        "    def inner(y):\n        return y\n    return inner(x)\n"
    ),
    "typescript": (
        "export class Store {\n  // a comment\n  get(key: string): string {\n"
        "    return key ? this.get(key.slice(1)) : '/';\n  }\n}\n\n"
        "export const helper = (x: number) => {\n  const inner = (y: number) => y;\n"
        "  return inner(x);\n};\n\nfunction plain(a: number) { /* c */ return a + 1; }\n"
    ),
    "go": (
        "package store\n\ntype Store struct{ n int }\n\n// Get gets.\n"
        'func (s *Store) Get(key string) string {\n\tif key != "" {\n'
        '\t\treturn s.Get(key[1:])\n\t}\n\treturn "/"\n}\n\nfunc helper(x int) int { return x }\n'
    ),
    "rust": (
        "struct Store { n: u32 }\n\nimpl Store {\n    /// Doc.\n"
        '    fn get(&self, key: &str) -> String {\n        if key.is_empty() { return "/".into(); }\n'
        "        self.get(&key[1..])\n    }\n}\n\nfn helper(x: u32) -> u32 { x }\n"
    ),
    "java": (
        "class Store {\n  /** Doc. */\n  @Override\n  public String get(String key) {\n"
        '    return key.isEmpty() ? "/" : get(key.substring(1));\n  }\n\n'
        "  static int helper(int x) { return x; }\n}\n"
    ),
}


def _from_root(version: Version, start: int, end: int, own_name: str) -> str:
    """The reference: every leaf of the tree in [start, end), from the root down."""
    spec = SUPPORTED[version.grammar]
    source = version.source
    tree = version._tree
    assert tree is not None
    out: list[str] = []
    stack: list[object] = [tree.root_node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node = item
        if node.end_byte <= start or node.start_byte >= end or node.type in spec.comment_types:  # type: ignore[attr-defined]
            continue
        if node.child_count == 0:  # type: ignore[attr-defined]
            if node.start_byte >= start and node.end_byte > node.start_byte:  # type: ignore[attr-defined]
                text = source[node.start_byte : node.end_byte].decode("utf-8", "replace")  # type: ignore[attr-defined]
                out.append("<self>" if own_name and text == own_name else text)
            continue
        inside = node.start_byte >= start and node.end_byte <= end  # type: ignore[attr-defined]
        block = inside and node.type in spec.block_types  # type: ignore[attr-defined]
        if block:
            stack.append("}")
        stack.extend(reversed(node.children))  # type: ignore[attr-defined]
        if block:
            stack.append("{")
    return "\n".join(t.replace("\n", "\\n") for t in out)


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_norm_of_every_span_is_the_walk_from_the_root(language: str) -> None:
    version = Version("", SOURCES[language].encode(), language)
    symbols = version.symbols
    assert symbols
    for sym in symbols:
        for a, b in (
            (sym.start_byte, sym.end_byte),
            (sym.body_start, sym.end_byte),
            (sym.start_byte, sym.body_start),
            (sym.start_byte + 1, sym.end_byte - 1),
        ):
            assert version.norm(a, b, sym.short_name) == _from_root(version, a, b, sym.short_name)
