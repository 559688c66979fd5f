"""`tether history`: cases the thirty-third held-out accuracy round found (bench/anchors/truth,
`held_out_round: 33`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

OLD_PARSER = (
    "class MarkdownParser:\n"
    "    def parseDocument(self, lines):\n"
    "        buffer = []\n"
    "        for line in lines:\n"
    "            if line.startswith('#'):\n"
    "                self.flush(buffer)\n"
    "                buffer = []\n"
    "            buffer.append(line)\n"
    "        self.flush(buffer)\n"
    "        return self.root\n"
)
NEW_PARSER = (
    "class BlockParser:\n"
    "    def parseDocument(self, lines):\n"
    "        buffer = []\n"
    "        for block in '\\n'.join(lines).split('\\n\\n'):\n"
    "            buffer.append(block)\n"
    "        self.parseBlocks(self.root, buffer)\n"
    "        return self.root\n"
)


def test_a_class_moved_whole_elsewhere_while_another_took_its_place(tmp_path: Path) -> None:
    """markdown's ba147ca9 moved `MarkdownParser` whole into a new legacy extension, still used
    there, and wrote a new `BlockParser` in its place in markdown.py (its `parseDocument` 0.5
    like the old one): the old parser went on in the extension; `BlockParser.parseDocument`
    is new, not `MarkdownParser.parseDocument` renamed."""
    r = Repo(tmp_path / "r")
    r.write("markdown.py", "import re\n\n\n" + OLD_PARSER)
    r.commit("parser")
    r.write("markdown.py", "import re\n\n\n" + NEW_PARSER)
    r.write("markdown_extensions/legacy.py", "import markdown\n\n\n" + OLD_PARSER)
    replaced = r.commit("Replaced old core parser with new BlockParser")
    history = symbol_history(r.path, "markdown.py", "BlockParser.parseDocument")
    assert changes(history.commits) == [(replaced, ("introduced",))]


def test_a_class_renamed_in_place_goes_on(tmp_path: Path) -> None:
    """The same rename with nothing written elsewhere: a rename."""
    r = Repo(tmp_path / "r")
    r.write("markdown.py", "import re\n\n\n" + OLD_PARSER)
    born = r.commit("parser")
    r.write("markdown.py", "import re\n\n\n" + OLD_PARSER.replace("MarkdownParser", "BlockParser"))
    renamed = r.commit("rename")
    history = symbol_history(r.path, "markdown.py", "BlockParser.parseDocument")
    assert changes(history.commits) == [(renamed, ("rename",)), (born, ("introduced",))]


REQUEST = (
    "function request (uri, options, callback) {{\n"
    "  if (typeof uri === 'undefined') throw new Error('undefined is not a valid uri');\n"
    "  if (typeof options === 'function') callback = options;\n"
    "  {copy}\n"
    "  options.uri = uri;\n"
    "  if (callback) options.callback = callback;\n"
    "  return new Request(options);\n"
    "}}\n\n"
    "module.exports = request;\n"
)


def test_a_merge_of_an_edit_into_the_side_that_renamed_the_file(tmp_path: Path) -> None:
    """request's b4c4c28 merged an edit of main.js's `request` into the line that had renamed
    main.js to index.js. index.js's log shows the merge against the renaming side only (the
    other has no index.js), where it changed the function; but it is the edit's side as it
    was: no change, and the history goes on along both sides."""
    r = Repo(tmp_path / "r")
    r.write("main.js", REQUEST.format(copy="options = options || {};"))
    born = r.commit("request")
    base = r.git("rev-parse", "HEAD").strip()
    r.git("checkout", "-q", "-b", "renaming")
    r.git("mv", "main.js", "index.js")
    renamed = r.commit("Rename main.js to index.js")
    r.git("checkout", "-q", "-b", "editing", base)
    r.write("main.js", REQUEST.format(copy="options = copy(options || {});"))
    edited = r.commit("Copy options before adding callback")
    r.git("merge", "-q", "--no-edit", "renaming")
    merged = r.git("rev-parse", "HEAD").strip()
    assert "main.js" not in r.git("ls-files").split()
    history = symbol_history(r.path, "index.js", "request")
    assert merged not in [c.commit for c in history.commits]
    assert sorted(changes(history.commits)) == sorted(
        [(edited, ("body",)), (renamed, ("file-rename",)), (born, ("introduced",))]
    )
