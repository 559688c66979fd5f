"""`tether history`'s quick paths give the answers of the slow ones: the small source built from a
diff instead of the whole parent file, the walk that stops where the file was added, the move
search over the files that name the symbol, the CLI's own argument reading, git through pipes."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchors import history_walk
from anchors.cli.history import fast_args
from anchors.cli.main import main
from anchors.git import find_repo
from anchors.gitpipe import GitProcess, run_git
from anchors.history import symbol_history
from anchors.history_compare import Version
from anchors.history_git import BlobReader, FileLog, TreeChanges, _plain_repository, file_diffs
from tests.test_history import Repo, changes


def _whole_file_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the blobs the walk parses as whole files (the slow path of a step)."""
    seen: list[str] = []
    original = BlobReader.version

    def version(self: BlobReader, blob: str, language: str, base: object = None) -> object:
        seen.append(blob)
        return original(self, blob, language, base)  # type: ignore[arg-type]

    monkeypatch.setattr(BlobReader, "version", version)
    return seen


def _blob(repo: Repo, rev: str, path: str) -> str:
    return repo.git("rev-parse", f"{rev}:{path}")


CLASS = """class Client(Base):
    def other(self):
        return 1

    def send(self, request):
        data = request.body
        return data
"""


def test_signature_and_class_header_changes_need_no_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = Repo(tmp_path / "r")
    r.write("c.py", CLASS)
    born = r.commit("client")
    text = CLASS.replace("return 1", "return 2")
    r.write("c.py", text)
    r.commit("other")  # elsewhere: its file is the parent of the next commit's
    text = text.replace("send(self, request)", "send(self, request, timeout=None)")
    r.write("c.py", text)
    signature = r.commit("timeout")
    r.write("c.py", text.replace("Client(Base)", "Client(Base, Mixin)"))
    r.commit("mixin")  # the class line only: not a change of send
    reads = _whole_file_reads(monkeypatch)
    history = symbol_history(r.path, "c.py", "Client.send")
    assert changes(history.commits) == [(signature, ("signature",)), (born, ("introduced",))]
    # Neither commit's parent was read whole: the small source was rebuilt from the diffs.
    assert _blob(r, f"{signature}^", "c.py") not in reads
    assert _blob(r, signature, "c.py") not in reads


def test_python_hunk_over_the_last_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    y = x\n    return y\n\n\ndef g():\n    return 2\n")
    born = r.commit("f")
    r.write("m.py", "def f(x):\n    y = x\n    return y\n\n\ndef g():\n    return 3\n")
    r.commit("g")
    r.write("m.py", "def f(x):\n    y = x\n    return y + 1\n\n\ndef g():\n    return 3\n")
    last = r.commit("last line")
    reads = _whole_file_reads(monkeypatch)
    history = symbol_history(r.path, "m.py", "f")
    assert changes(history.commits) == [(last, ("body",)), (born, ("introduced",))]
    assert _blob(r, f"{last}^", "m.py") not in reads


def test_body_split_off_into_a_new_function_reads_the_whole_file(tmp_path: Path) -> None:
    """A hunk over the last line that starts a new definition: the lines after it belonged to
    the old symbol, so the small source cannot say where the old one ended."""
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    a = x\n    b = a * 2\n    c = b\n    return c\n")
    born = r.commit("f")
    r.write("m.py", "def f(x):\n    a = x\n    b = a * 2\n    c = b - 1\n    return c\n")
    tail = r.commit("tail")  # a change of f in the lines _g takes over later
    r.write(
        "m.py",
        "def f(x):\n    a = x\n    return _g(a)\n\n\ndef _g(a):\n    b = a * 2\n"
        "    c = b - 1\n    return c\n",
    )
    split = r.commit("split")
    history = symbol_history(r.path, "m.py", "f")
    assert changes(history.commits) == [
        (split, ("body",)),
        (tail, ("body",)),
        (born, ("introduced",)),
    ]
    g = symbol_history(r.path, "m.py", "_g")
    assert changes(g.commits) == [(split, ("introduced",))]


def test_a_file_deleted_and_added_again(tmp_path: Path) -> None:
    """The walk stops at the commit that added the file again (git stops there too)."""
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    return x\n")
    first = r.commit("f")
    (r.path / "m.py").unlink()
    gone = r.commit("gone")
    r.write("m.py", "def f(x):\n    return x * 2\n")
    again = r.commit("back")
    r.write("m.py", "def f(x):\n    return x * 3\n")
    body = r.commit("body")
    history = symbol_history(r.path, "m.py", "f")
    assert changes(history.commits) == [(body, ("body",)), (again, ("introduced",))]
    log = FileLog(r.path, "HEAD", "m.py")
    try:  # git did not walk on past the commit that added the file again
        assert log.get(again) is not None
        assert log.get(gone) is None and log.get(first) is None
    finally:
        log.close()


def test_a_move_in_a_commit_touching_many_files(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    for i in range(12):
        r.write(f"pkg/m{i}.py", f"def helper{i}(x):\n    return x + {i}\n")
    r.write("pkg/old.py", "def parse_header(line):\n    key, _, value = line.partition(':')\n"
            "    return key.strip(), value.strip()\n")  # fmt: skip
    born = r.commit("many")
    for i in range(12):
        r.write(f"pkg/m{i}.py", f"def helper{i}(x):\n    return x + {i + 1}\n")
    r.write("pkg/old.py", "")
    r.write("pkg/new.py", "def parse_header(line):\n    key, _, value = line.partition(':')\n"
            "    return key.strip(), value.strip()\n")  # fmt: skip
    moved = r.commit("move among many edits")
    history = symbol_history(r.path, "pkg/new.py", "parse_header")
    assert changes(history.commits) == [(moved, ("move",)), (born, ("introduced",))]
    assert history.commits[1].path == "pkg/old.py"
    assert len(list(r.path.glob("pkg/*.py"))) > history_walk.MOVE_SEARCH_FILES


def test_file_diffs_one_entry_per_path(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("a.py", "x = 1\n")
    r.write("dir name/b.py", "y = 1\n")
    r.write("c.py", "z = 1\n")
    first = r.commit("one")
    r.write("a.py", "x = 2\n")
    r.write("dir name/b.py", "y = 2\n")
    second = r.commit("two")
    diffs = file_diffs(r.path, first, second, ["a.py", "dir name/b.py", "c.py"])
    assert sorted(diffs) == ["a.py", "dir name/b.py"]
    assert b"+y = 2" in diffs["dir name/b.py"] and b"+x = 2" not in diffs["dir name/b.py"]


def test_tree_changes_answers_each_question_of_one_process(tmp_path: Path) -> None:
    """Renames found, answers in the order asked whatever the order read, and a question git
    cannot answer (a blob missing from the clone, needed to pair an edited rename) answered
    empty without costing the questions around it, as a process of its own for each gave."""
    r = Repo(tmp_path / "r")
    body = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20))
    r.write("a.py", body)
    r.write("keep.py", "x = 1\n")
    first = r.commit("one")
    (r.path / "a.py").rename(r.path / "b.py")
    r.write("b.py", body.replace("return 3", "return 33"))
    renamed = r.commit("rename with an edit")
    r.write("keep.py", "x = 2\n")
    edited = r.commit("edit")
    r.write("c.py", "y = 1\n")
    added = r.commit("add")
    changes = TreeChanges(r.path)
    try:
        changes.ask(edited, added)
        changes.ask(first, renamed)
        assert changes.result(first, renamed) == [("R097", "a.py", "b.py")]
        assert changes.result(edited, added) == [("A", "c.py", "c.py")]
        assert changes.result(renamed, edited) == [("M", "keep.py", "keep.py")]
    finally:
        changes.close()
    # The renamed file's old blob gone (as in a clone missing objects): git stops at that
    # question; the others are answered all the same, by a new process.
    blob = _blob(r, first, "a.py")
    (r.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    changes = TreeChanges(r.path)
    try:
        changes.ask(renamed, edited)
        changes.ask(first, renamed)
        changes.ask(edited, added)
        assert changes.result(edited, added) == [("A", "c.py", "c.py")]
        assert changes.result(first, renamed) == []
        assert changes.result(renamed, edited) == [("M", "keep.py", "keep.py")]
    finally:
        changes.close()


def test_tree_changes_tells_without_waiting_whether_an_answer_is_in(tmp_path: Path) -> None:
    """`answered` never blocks: False for a question not asked, and True once git's answer has
    come (polled), the same answer `result` then gives."""
    r = Repo(tmp_path / "r")
    r.write("a.py", "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20)))
    first = r.commit("one")
    (r.path / "a.py").rename(r.path / "b.py")
    renamed = r.commit("rename")
    changes = TreeChanges(r.path)
    try:
        assert not changes.answered(first, renamed)  # not asked
        changes.ask(first, renamed)
        for _ in range(2000):  # git answers within a few milliseconds
            if changes.answered(first, renamed):
                break
            time.sleep(0.005)
        assert changes.answered(first, renamed)
        assert changes.result(first, renamed) == [("R100", "a.py", "b.py")]
    finally:
        changes.close()


def test_a_version_parsed_through_the_hook_is_parsed_the_same(tmp_path: Path) -> None:
    """The current version is parsed through `read_while_parsing` (git's next process is
    started from its hook): the same tree as a plain parse, the hook called as it goes, and a
    hook that fails costs nothing."""
    from anchors.history_compare import Version, read_while_parsing
    from anchors.languages import parser_for

    source = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(2000)).encode()
    calls: list[int] = []
    plain = parser_for("python").parse(source)
    hooked = parser_for("python").parse(read_while_parsing(source, lambda: calls.append(1)))
    assert str(hooked.root_node) == str(plain.root_node) and len(calls) > 3

    def broken() -> None:
        raise RuntimeError("a git process failed")

    version = Version("blob", source, "python")
    version.while_parsing = broken
    assert [s.name for s in version.symbols][:2] == ["f0", "f1"] and len(version.symbols) == 2000


def test_plain_repository_is_what_git_says_or_left_to_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tether history` reads where a plain repository is without asking git; it gives what
    `find_repo` (git rev-parse) gives, and leaves every other layout to git."""
    r = Repo(tmp_path / "r")
    r.write("pkg/deep/a.py", "x = 1\n")
    r.commit("one")
    for start in (r.path, r.path / "pkg" / "deep"):
        found = find_repo(start)
        assert _plain_repository(str(start)) == (str(found.root), str(found.git_dir))
    # Left to git: inside the git directory, a bare repository, a linked worktree, a work tree
    # set in the config, an environment that moves git's search, no repository at all.
    assert _plain_repository(str(r.path / ".git" / "refs")) is None
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(r.path), str(bare)], check=True)
    assert _plain_repository(str(bare)) is None
    linked = tmp_path / "linked"
    r.git("worktree", "add", "-q", str(linked))
    assert (linked / ".git").is_file() and _plain_repository(str(linked)) is None
    assert _plain_repository(str(tmp_path)) is None
    monkeypatch.setenv("GIT_DIR", str(r.path / ".git"))
    assert _plain_repository(str(r.path)) is None
    monkeypatch.delenv("GIT_DIR")
    r.git("config", "core.worktree", str(r.path))
    assert _plain_repository(str(r.path)) is None


def test_file_log_stops_where_the_file_was_added(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    for i in range(5):
        r.write("other.py", f"v = {i}\n")
        r.commit(f"other {i}")
    r.write("m.py", "def f():\n    return 1\n")
    added = r.commit("m")
    r.write("m.py", "def f():\n    return 2\n")
    tip = r.commit("edit")
    log = FileLog(r.path, "HEAD", "m.py")
    try:
        assert log.first() == tip
        commit = log.get(added)
        assert commit is not None and commit.old_blob is None and commit.parents == []
    finally:
        log.close()


def test_git_process(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("a.py", "x = 1\n")
    r.commit("a")
    out, status = run_git(["rev-parse", "--show-toplevel"], r.path)
    assert status == 0 and Path(out.decode().strip()).resolve() == r.path.resolve()
    assert run_git(["rev-parse", "--verify", "-q", "nope"], r.path)[1] != 0
    cat = GitProcess(["cat-file", "--batch"], r.path, stdin=True)
    assert cat.stdin is not None
    cat.stdin.write(b"HEAD:a.py\n")
    cat.stdin.flush()
    assert cat.stdout.readline().split()[1] == b"blob"
    assert cat.close(kill=True) != 0  # stopped, and reaped
    assert cat.pid is None


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["history", "a.py::f"], ("a.py::f", "HEAD", False, None)),
        (["history", "a.py::f", "--json", "--rev", "v1"], ("a.py::f", "v1", True, None)),
        (["-C", "sub", "history", "--rev=v2", "a.py::f"], ("a.py::f", "v2", False, "sub")),
    ],
)
def test_fast_args(words: list[str], expected: tuple[object, ...]) -> None:
    args = fast_args(words)
    assert args is not None
    assert (args.spec, args.rev, args.json, args.directory) == expected


@pytest.mark.parametrize(
    "words",
    [
        ["history"],
        ["history", "-h"],
        ["history", "a.py::f", "b.py::g"],
        ["history", "a.py::f", "--js"],  # an abbreviation: argparse's to read
        ["history", "a.py::f", "--rev", "-x"],
        ["history", "a.py::f", "--rev"],
        ["log"],
    ],
)
def test_fast_args_leaves_the_rest_to_the_parser(words: list[str]) -> None:
    assert fast_args(words) is None


def test_fast_path_prints_what_the_parser_path_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    r = Repo(tmp_path / "r")
    r.write("src/m.py", "def f(x):\n    return x\n")
    r.commit("f")
    r.write("src/m.py", "def f(x):\n    return x + 1\n")
    r.commit("body")
    monkeypatch.chdir(r.path / "src")
    assert main(["history", "m.py::f", "--json"]) == 0
    fast = capsysbinary.readouterr().out
    assert main(["history", "m.py::f", "--js"]) == 0  # read by argparse
    slow = capsysbinary.readouterr().out
    assert fast == slow
    document = json.loads(fast)
    assert document["path"] == "src/m.py" and len(document["commits"]) == 2
    # Nothing written, no `tether init` needed: the work tree is as it was.
    assert (
        subprocess.run(
            ["git", "status", "--porcelain", "--ignored"],
            cwd=r.path,
            capture_output=True,
            text=True,
        ).stdout
        == ""
    )


def test_the_walk_of_a_renamed_file_starts_early(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's log of the current file shows the commit that added it at once; the old file's walk
    starts then, beside the current one, and is the one the walk reads when it arrives."""
    r = Repo(tmp_path / "r")
    r.write("old/m.py", "def f(x):\n    return x\n\n\ndef g():\n    return 1\n")
    born = r.commit("f")
    r.write("old/m.py", "def f(x):\n    return x + 1\n\n\ndef g():\n    return 1\n")
    body = r.commit("body")
    r.git("mv", "old", "src")
    moved = r.commit("src layout")
    r.write("src/m.py", "def f(x):\n    return x + 1\n\n\ndef g():\n    return 2\n")
    r.commit("g")
    started: list[FileLog] = []
    original = history_walk.Walker.start_renamed
    finish = history_walk.Walker.finish_renamed

    def start_renamed(self: history_walk.Walker, log: FileLog, path: str) -> None:
        log.get(moved)  # the commit that added src/m.py has come in (so the test is not racy)
        original(self, log, path)

    def finish_renamed(self: history_walk.Walker, log: FileLog, path: str) -> None:
        finish(self, log, path)  # git's renames read (asked in start_renamed, before the parse)
        started.extend(self.early.values())

    monkeypatch.setattr(history_walk.Walker, "start_renamed", start_renamed)
    monkeypatch.setattr(history_walk.Walker, "finish_renamed", finish_renamed)
    history = symbol_history(r.path, "src/m.py", "f")
    assert changes(history.commits) == [
        (moved, ("file-rename",)),
        (body, ("body",)),
        (born, ("introduced",)),
    ]
    assert [log.path for log in started] == ["old/m.py"]
    assert all(log._proc is None for log in started)  # read to the end, or stopped
    # A symbol born after the rename: the early walk is not needed, and is stopped.
    r.write(
        "src/m.py",
        "def f(x):\n    return x + 1\n\n\ndef g():\n    return 2\n\n\n"
        "def h(items):\n    return sorted(set(items))\n",
    )
    late = r.commit("h")
    started.clear()
    assert changes(symbol_history(r.path, "src/m.py", "h").commits) == [(late, ("introduced",))]
    assert len(started) == 1 and started[0]._proc is None


def test_python_hunks_over_both_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    y = x\n    return y\n\n\ndef g():\n    return 2\n")
    born = r.commit("f")
    r.write("m.py", "def f(x):\n    y = x\n    return y\n\n\ndef g():\n    return 3\n")
    r.commit("g")
    r.write("m.py", "def f(x, k=1):\n    y = x\n    return y * k\n\n\ndef g():\n    return 3\n")
    both = r.commit("signature and last line")
    reads = _whole_file_reads(monkeypatch)
    history = symbol_history(r.path, "m.py", "f")
    assert changes(history.commits) == [(both, ("body", "signature")), (born, ("introduced",))]
    assert _blob(r, f"{both}^", "m.py") not in reads


def test_a_file_rename_among_several_deleted_look_alikes(tmp_path: Path) -> None:
    """A commit deletes two files whose definitions are mostly in the new one (both adapters
    with `read` and `write`); the symbol is in only one of them: that one was renamed."""
    r = Repo(tmp_path / "r")
    adapter = "class {name}:\n    def read(self, src):\n        return src.{name}()\n\n" \
        "    def write(self, dst, v):\n        dst.put('{name}', v)\n"  # fmt: skip
    r.write("a.py", adapter.format(name="Alpha") + "\n    def special(self, items):\n"
            "        total = 0\n        for item in items:\n            total += item.size\n"
            "        return total\n")  # fmt: skip
    r.write("b.py", adapter.format(name="Beta"))
    born = r.commit("adapters")
    r.write(
        "c.py",
        "import json\n\n\nclass Gamma:\n    def read(self, src):\n        return json.loads(src)\n"
        "\n    def write(self, dst, v):\n        dst.write(json.dumps(v))\n\n"
        "    def special(self, items):\n        total = 0\n        for item in items:\n"
        "            total += item.size\n        return total\n"
        # much else, so that git's rename detection pairs no deleted file with this one
        + "".join(f"\n\ndef helper_{i}(x):\n    return x * {i} + {i * i}\n" for i in range(30)),
    )
    (r.path / "a.py").unlink()
    (r.path / "b.py").unlink()
    merged = r.commit("one adapter")
    history = symbol_history(r.path, "c.py", "Gamma.special")
    assert changes(history.commits) == [
        (merged, ("rename", "file-rename")),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "a.py" and history.commits[1].symbol == "Alpha.special"


def _nodes(root: object) -> list[tuple[str, int, int]]:
    """Every node of a tree: its type and bytes."""
    found: list[tuple[str, int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append((node.type, node.start_byte, node.end_byte))  # type: ignore[attr-defined]
        stack.extend(node.children)  # type: ignore[attr-defined]
    return found


def test_a_snippet_told_of_each_hunk_parses_as_a_fresh_parse() -> None:
    """`snippet_step` tells tree-sitter of each undone hunk as an edit of its own: the tree is
    the one a fresh parse gives; edits that do not make the older source are not used."""
    from anchors.history_compare import Version, _edited
    from anchors.languages import parser_for

    body = "".join(f"    step{i}(x)\n" for i in range(40))
    newer = f"class Box:\n    def run(self, x):\n{body}        return x\n".encode()
    older = newer.replace(b"step3(x)", b"first(x)").replace(b"step37(x)", b"last(x, 2)")
    base = Version("", newer, "python", snippet=True)
    assert base.symbols  # parsed
    at3, at37 = newer.index(b"step3(x)"), newer.index(b"step37(x)")
    edits = [(at3, at3 + 8, b"first(x)"), (at37, at37 + 9, b"last(x, 2)")]
    snippet = Version("", older, "python", base, snippet=True, edits=edits)
    fresh = parser_for("python").parse(older)
    assert snippet.symbols == Version("", older, "python").symbols
    assert snippet._tree is not None
    assert _nodes(snippet._tree.root_node) == _nodes(fresh.root_node)
    assert base._tree is not None
    assert _edited(base._tree, newer, older, edits) is not None
    assert _edited(base._tree, newer, older, edits[:1]) is None  # not the older source


def test_a_snippet_reads_nothing_nested_in_its_symbol() -> None:
    from anchors.symbols import extract_symbols, parse_source, symbols_from_tree

    source = b"class A:\n    def f(self):\n        def inner():\n            return 1\n        return inner\n"
    tree, grammar = parse_source(source, "python")
    assert [s.name for s in extract_symbols(source, "python")] == ["A", "A.f", "A.f.inner"]
    assert [s.name for s in symbols_from_tree(tree, source, grammar, depth=2)] == ["A", "A.f"]
    assert [s.name for s in symbols_from_tree(tree, source, grammar, depth=1)] == ["A"]


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet="ab_$ .(é1\n", max_size=40),
    name=st.sampled_from(["a", "ab", "b_", "$a", "é", "aa", "a1"]),
)
def test_own_name_as_self_is_the_regular_expression(text: str, name: str) -> None:
    """The whole-word replacement the comparison of versions makes without `re` gives what the
    regular expression gave."""
    import re

    from anchors.history_compare import _own_name_as_self

    expected = re.sub(rf"(?<![\w$]){re.escape(name)}(?![\w$])", "<self>", text)
    assert _own_name_as_self(text, name) == expected


def _module(count: int, prefix: str = "helper") -> str:
    """A large Python module of `count` small functions."""
    return "".join(f"def {prefix}_{i}(x):\n    return x + {i}\n\n\n" for i in range(count))


def test_a_function_written_into_a_file_needs_no_parse_of_its_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit that only added lines, the symbol's among them: the parent's file cannot hold it
    (its name is not in its text, or the newer file's other definitions of the name are in the
    added lines), so it is not parsed to find nothing; a large file the same commit only added
    to is not searched for a move (no definition left it), one it removed lines from is."""
    r = Repo(tmp_path / "r")
    big = _module(700)
    r.write("big.py", big)
    r.write("other.py", _module(700, "other"))
    r.commit("modules")
    r.write("big.py", big + "def fresh(x):\n    return x * 2\n")
    r.write("other.py", _module(700, "other") + "def beside(x):\n    return x\n")
    born = r.commit("fresh")
    r.write("big.py", big + "def fresh(x):\n    return x * 3\n")
    changed = r.commit("change")
    parsed: list[bytes] = []
    original = Version._parse

    def parse(self: Version, *args: object, **kwargs: object) -> object:
        parsed.append(self.source)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Version, "_parse", parse)
    history = symbol_history(r.path, "big.py", "fresh")
    assert changes(history.commits) == [(changed, ("body",)), (born, ("introduced",))]
    assert big.encode() not in parsed
    assert _module(700, "other").encode() not in parsed
    assert parsed  # (what was parsed is seen)
    # Moved out of a large file: that file lost lines, so it is searched.
    moved_text = "def moving(x):\n    y = x * 7\n    z = y - 3\n    return z + y\n"
    r.write("other.py", _module(700, "other") + "def beside(x):\n    return x\n\n\n" + moved_text)
    r.commit("moving")
    r.write("other.py", _module(700, "other") + "def beside(x):\n    return x\n")
    r.write("big.py", big + "def fresh(x):\n    return x * 3\n\n\n" + moved_text)
    moved = r.commit("move it")
    history = symbol_history(r.path, "big.py", "moving")
    assert [(c.commit, c.changes, c.path) for c in history.commits][0] == (
        moved,
        ("move",),
        "big.py",
    )
    assert history.commits[-1].path == "other.py"
