"""`tether history`: synthetic histories in real git repositories, parsed with real tree-sitter."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from anchors.history import HistoryError, parse_spec, symbol_history
from tests.conftest import make_repo


@pytest.fixture(autouse=True, params=["diffs", "blobs", "graph"])
def log_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every history below is walked three ways: from git's diffs (small files), from the
    blobs alone, finding the symbol's text in them (big files; see anchors.history_text), and
    from git's diffs with Tether's commit-graph (anchors.commit_graph), written at HEAD before
    each walk. Subprocess runs of the CLI take the way their file's size chooses."""
    import anchors.commit_graph
    import anchors.history

    monkeypatch.setattr(anchors.history, "big_file", lambda path: request.param == "blobs")
    if request.param == "graph":
        real = anchors.commit_graph.object_dir

        def written(start: str) -> str | None:
            common = anchors.commit_graph.common_dir(start)
            assert common is not None
            if Path(common, "shallow").exists():
                return real(start)  # git reads no commit-graph in a shallow clone
            head = subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=start, capture_output=True, text=True
            ).stdout.strip()
            tip = Path(anchors.commit_graph.graph_dir(common), "tip")
            if head and (not tip.exists() or tip.read_text().strip() != head):
                root = str(Path(common).parent)
                assert anchors.commit_graph.write(root, common, head, wait=True) == 0
            found = real(start)
            assert found is not None, "no commit-graph was written"
            return found

        monkeypatch.setattr(anchors.commit_graph, "object_dir", written)
    return str(request.param)


class Repo:
    """A repository whose commits get increasing, distinct dates (history order is by date)."""

    def __init__(self, path: Path) -> None:
        self.path = make_repo(path)
        self.clock = 1_700_000_000

    def git(self, *args: str) -> str:
        self.clock += 60
        date = f"{self.clock} +0000"
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        proc = subprocess.run(
            ["git", *args], cwd=self.path, capture_output=True, text=True, env=env
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.strip()

    def write(self, name: str, text: str) -> None:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def commit(self, message: str, *files: str) -> str:
        self.git("add", "-A", *files) if files else self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")


@dataclass(frozen=True)
class Lang:
    ext: str
    fn: Callable[[str, list[str], str], str]  # (name, params, expression) -> definition
    comment: str
    header: str = ""
    footer: str = ""
    qualifier: str = ""  # Java methods live in a class

    def file(self, *defs: str) -> str:
        return self.header + "\n".join(defs) + self.footer


LANGS = {
    "python": Lang(".py", lambda n, p, e: f"def {n}({', '.join(p)}):\n    return {e}\n", "#"),
    "javascript": Lang(
        ".js", lambda n, p, e: f"function {n}({', '.join(p)}) {{\n  return {e};\n}}\n", "//"
    ),
    "typescript": Lang(
        ".ts",
        lambda n, p, e: (
            f"function {n}({', '.join(x + ': number' for x in p)}): number {{\n  return {e};\n}}\n"
        ),
        "//",
    ),
    "go": Lang(
        ".go",
        lambda n, p, e: f"func {n}({', '.join(x + ' int' for x in p)}) int {{\n\treturn {e}\n}}\n",
        "//",
        header="package calc\n\n",
    ),
    "rust": Lang(
        ".rs",
        lambda n, p, e: f"fn {n}({', '.join(x + ': i32' for x in p)}) -> i32 {{\n    {e}\n}}\n",
        "//",
    ),
    "java": Lang(
        ".java",
        lambda n, p, e: (
            f"  int {n}({', '.join('int ' + x for x in p)}) {{\n    return {e};\n  }}\n"
        ),
        "//",
        header="class Calc {\n",
        footer="}\n",
        qualifier="Calc.",
    ),
}


def changes(history_commits: list[object]) -> list[tuple[str, tuple[str, ...]]]:
    return [(e.commit, e.changes) for e in history_commits]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(LANGS))
def test_every_change_kind(tmp_path: Path, name: str) -> None:
    lang = LANGS[name]
    r = Repo(tmp_path / "r")
    q = lang.qualifier
    a, b, c = f"src/a{lang.ext}", f"src/b{lang.ext}", f"lib/c{lang.ext}"
    other = lang.fn("other", ["y"], "y * 2")
    r.write(a, lang.file(lang.fn("foo", ["x"], "x + 1"), other))
    introduced = r.commit("add foo")
    # A comment inside the body, then whitespace only: neither is a change.
    commented = lang.fn("foo", ["x"], "x + 1").replace(
        "return" if name != "rust" else "x + 1",
        f"{lang.comment} why\n    " + ("return" if name != "rust" else "x + 1"),
        1,
    )
    r.write(a, lang.file(commented, other))
    comment_only = r.commit("comment")
    r.write(a, lang.file(commented.replace("x + 1", "x  +  1"), "\n\n" + other))
    whitespace_only = r.commit("whitespace")
    r.write(a, lang.file(lang.fn("foo", ["x"], "x + 2"), other))
    body = r.commit("body")
    r.write(a, lang.file(lang.fn("foo", ["x", "k"], "x + 2"), other))
    signature = r.commit("signature")
    r.write(a, lang.file(lang.fn("baz", ["x", "k"], "x + 2"), other))
    rename = r.commit("rename")
    r.write(a, lang.file(lang.fn("qux", ["x", "k"], "x + k + 3"), other))
    rename_edit = r.commit("rename and edit")
    r.write(a, lang.file(other.replace("y * 2", "y * 4")))  # an edit elsewhere in the file
    r.write(a, lang.file(lang.fn("qux", ["x", "k"], "x + k + 3"), other.replace("y * 2", "y * 4")))
    unrelated = r.commit("other function only")
    r.git("mv", a, b)
    file_rename = r.commit("file rename")
    r.write(b, lang.file(other.replace("y * 2", "y * 4")))
    r.write(c, lang.file(lang.fn("qux", ["x", "k"], "x + k + 3")))
    move = r.commit("move to another file")

    history = symbol_history(r.path, c, f"{q}qux")
    assert changes(history.commits) == [
        (move, ("move",)),
        (file_rename, ("file-rename",)),
        (rename_edit, ("body", "rename")),
        (rename, ("rename",)),
        (signature, ("signature",)),
        (body, ("body",)),
        (introduced, ("introduced",)),
    ]
    shas = {e.commit for e in history.commits}
    assert not shas & {comment_only, whitespace_only, unrelated}
    assert [e.path for e in history.commits][:3] == [c, b, a]
    assert history.commits[-1].symbol == f"{q}foo"
    assert not history.notices


def test_extraction_does_not_leak(tmp_path: Path) -> None:
    """A function extracted out of another starts its own history; the parent's history shows
    the extraction as its own body change and nothing of the extracted function's later edits."""
    r = Repo(tmp_path / "r")
    parent = "def handle(req):\n    data = req.read()\n    data = data.strip()\n    data = data.lower()\n    return data.split(',')\n"
    r.write("app.py", parent)
    born = r.commit("handle")
    extracted = (
        "def clean(data):\n    data = data.strip()\n    data = data.lower()\n    return data\n\n\n"
        "def handle(req):\n    data = clean(req.read())\n    return data.split(',')\n"
    )
    r.write("app.py", extracted)
    extraction = r.commit("extract clean")
    r.write("app.py", extracted.replace("data.lower()", "data.casefold()"))
    later = r.commit("edit clean")
    clean = symbol_history(r.path, "app.py", "clean")
    assert changes(clean.commits) == [(later, ("body",)), (extraction, ("introduced",))]
    handle = symbol_history(r.path, "app.py", "handle")
    assert changes(handle.commits) == [(extraction, ("body",)), (born, ("introduced",))]


def test_method_qualified_names_and_class_rename(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    src = "class Client:\n    def send(self, x):\n        return x\n\n    def close(self):\n        return None\n"
    r.write("c.py", src)
    born = r.commit("client")
    r.write("c.py", src.replace("class Client", "class HttpClient"))
    renamed = r.commit("rename class")
    history = symbol_history(r.path, "c.py", "HttpClient.send")
    assert changes(history.commits) == [(renamed, ("rename",)), (born, ("introduced",))]
    assert history.commits[-1].symbol == "Client.send"


def test_merges_report_the_branch_commit_not_the_merge(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n")
    born = r.commit("f and g")
    r.git("checkout", "-q", "-b", "topic")
    r.write("m.py", "def f(x):\n    return x * 2\n\n\ndef g(y):\n    return y\n")
    on_branch = r.commit("change f on a branch")
    r.git("checkout", "-q", "main")
    r.write("m.py", "def f(x):\n    return x\n\n\ndef g(y):\n    return -y\n")
    r.commit("change g on main")
    r.git("merge", "-q", "--no-edit", "topic")
    merge = r.git("rev-parse", "HEAD")
    history = symbol_history(r.path, "m.py", "f")
    assert changes(history.commits) == [(on_branch, ("body",)), (born, ("introduced",))]
    assert merge not in {e.commit for e in history.commits}


def test_rev_reads_the_symbol_as_of_an_older_commit(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("v.py", "def old_name():\n    return 1\n")
    born = r.commit("v1")
    r.write("v.py", "def new_name():\n    return 1\n")
    r.commit("rename")
    history = symbol_history(r.path, "v.py", "old_name", born)
    assert changes(history.commits) == [(born, ("introduced",))]
    assert history.rev == born
    with pytest.raises(HistoryError, match="no symbol 'old_name'.*closest: new_name"):
        symbol_history(r.path, "v.py", "old_name")


def test_shallow_clone_says_what_is_missing(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("s.py", "def f():\n    return 1\n")
    r.commit("one")
    r.write("s.py", "def f():\n    return 2\n")
    r.commit("two")
    r.write("s.py", "def f():\n    return 3\n")
    third = r.commit("three")
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{r.path}", str(clone)], check=True
    )
    history = symbol_history(clone, "s.py", "f")
    assert history.truncated
    assert history.commits == []  # the boundary commit's own change is unknowable
    assert "shallow clone" in history.notices[0] and third[:12] in history.notices[0]


def test_parse_spec() -> None:
    assert parse_spec("a/b.py::C.m") == ("a/b.py", "C.m")
    for bad in ("a/b.py", "::f", "a.py::", ""):
        with pytest.raises(HistoryError):
            parse_spec(bad)


def test_cli_json_and_errors(
    tmp_path: Path, run_tether: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    r = Repo(tmp_path / "r")
    r.write("pkg/m.py", "def f(x):\n    return x\n")
    born = r.commit("f")
    proc = run_tether(["history", "pkg/m.py::f", "--json"], r.path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["path"] == "pkg/m.py" and doc["symbol"] == "f"
    assert doc["commits"][0]["commit"] == born
    assert doc["commits"][0]["changes"] == ["introduced"]
    assert set(doc["commits"][0]) == {"commit", "changes", "path", "symbol", "author", "date"}
    # From a subdirectory, the path is relative to it; no `tether init` anywhere.
    sub = run_tether(["history", "m.py::f", "--json"], r.path / "pkg")
    assert sub.returncode == 0 and json.loads(sub.stdout)["path"] == "pkg/m.py"
    assert not (r.path / ".git" / "tether").exists()
    for args, message in (
        (["history", "pkg/m.py::g"], "no symbol 'g'"),
        (["history", "pkg/m.py::f", "--rev", "nope"], "unknown revision"),
        (["history", "pkg/m.py"], "bad spec"),
        (["history", "pkg/none.py::f"], "does not exist"),
        (["history", "../x.py::f"], "outside the repository"),
        (["history", "README.md::f"], "no grammar"),
    ):
        bad = run_tether(args, r.path)
        assert bad.returncode == 2, (args, bad.stderr)
        assert message in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
        assert bad.stdout == ""


def test_other_tools_spellings_and_a_unique_last_part_name_the_symbol(
    tmp_path: Path, run_tether: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    r = Repo(tmp_path / "r")
    r.write(
        "pay.py",
        "class PaymentClient:\n    def charge(self, order):\n        return order\n\n"
        "class Refunds:\n    def send(self):\n        pass\n\n"
        "class Mailer:\n    def send(self):\n        pass\n",
    )
    born = r.commit("pay")
    for spelled in ("PaymentClient#charge", "PaymentClient::charge", "charge", "charge()"):
        proc = run_tether(["history", f"pay.py::{spelled}", "--json"], r.path)
        assert proc.returncode == 0, (spelled, proc.stderr)
        doc = json.loads(proc.stdout)
        assert doc["symbol"] == "PaymentClient.charge" and doc["commits"][0]["commit"] == born
    added = run_tether(["add", "charge must stay idempotent", "--anchor", "pay.py::PaymentClient#charge",
                        "--json"], r.path)  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["anchors"][0]["symbol"] == "PaymentClient.charge"
    ambiguous = run_tether(["history", "pay.py::send"], r.path)
    assert ambiguous.returncode == 2
    assert "ambiguous" in ambiguous.stderr and "Mailer.send" in ambiguous.stderr


def test_cli_outside_a_repository(
    tmp_path: Path, run_tether: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    proc = run_tether(["history", "a.py::f"], tmp_path)
    assert proc.returncode == 4


def test_annotation_removed_above_a_method_is_a_change(tmp_path: Path) -> None:
    """A hunk just above the symbol that removes an annotation changes its declaration; one
    that only edits the comment above it does not."""
    r = Repo(tmp_path / "r")
    method = "  int f(int x) {\n    return x;\n  }\n"
    r.write("A.java", "class A {\n  /** Doc. */\n  @Deprecated\n" + method + "}\n")
    born = r.commit("f")
    r.write("A.java", "class A {\n  /** Doc. */\n" + method + "}\n")
    removed = r.commit("drop the annotation")
    r.write("A.java", "class A {\n  /** Better doc. */\n" + method + "}\n")
    r.commit("doc only")
    history = symbol_history(r.path, "A.java", "A.f")
    assert changes(history.commits) == [(removed, ("signature",)), (born, ("introduced",))]


def test_python_statements_removed_at_the_end_of_a_function(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    a = x\n    b = a\n    return b\n\n\nX = 1\n")
    born = r.commit("f")
    r.write("m.py", "def f(x):\n    a = x\n\n\nX = 1\n")
    cut = r.commit("drop the tail")
    assert changes(symbol_history(r.path, "m.py", "f").commits) == [
        (cut, ("body",)),
        (born, ("introduced",)),
    ]


def test_rename_among_new_definitions_follows_the_switched_call_site(tmp_path: Path) -> None:
    """Two definitions appear where one vanished: the one the old call site now names is the
    renamed one, even when its body was rewritten."""
    r = Repo(tmp_path / "r")
    r.write(
        "u.js",
        "function quality(s) {\n  var p = s.split(';');\n  return { v: p[0] };\n}\n\n"
        "exports.parse = function (s) {\n  return s.split(',').map(quality);\n};\n",
    )
    born = r.commit("quality")
    r.write(
        "u.js",
        "function acceptParams(s) {\n  var p = s.split(';');\n  var ret = { v: p[0], q: 1, m: {} };\n"
        "  for (var i = 1; i < p.length; ++i) {\n    var kv = p[i].split('=');\n"
        "    if (kv[0] === 'q') ret.q = parseFloat(kv[1]);\n    else ret.m[kv[0]] = kv[1];\n  }\n"
        "  return ret;\n}\n\n"
        "function paramsEqual(a, b) {\n  return a.v === b.v;\n}\n\n"
        "exports.parse = function (s) {\n  return s.split(',').map(acceptParams);\n};\n",
    )
    renamed = r.commit("rename and rewrite")
    history = symbol_history(r.path, "u.js", "acceptParams")
    assert changes(history.commits) == [
        (renamed, ("body", "rename")),
        (born, ("introduced",)),
    ]
    assert changes(symbol_history(r.path, "u.js", "paramsEqual").commits) == [
        (renamed, ("introduced",))
    ]


def test_class_renamed_with_its_file_rewritten_beyond_git_rename_detection(
    tmp_path: Path,
) -> None:
    """A deleted file that alone shares most definition names with an added one is the same
    class under a new name, even when git does not pair the files."""
    r = Repo(tmp_path / "r")
    helpers = "".join(f"  boolean h{i}(int v) {{\n    return v > {i};\n  }}\n" for i in range(4))
    old = (
        "class Old {\n  boolean skip(int v) {\n    return h0(v) || h1(v);\n  }\n" + helpers + "}\n"
    )
    r.write("Old.java", old)
    born = r.commit("Old")
    extra = "".join(
        f"  int more{i}(int a, int b) {{\n    int c = a * {i} + b;\n    return c - {i};\n  }}\n"
        for i in range(12)
    )
    new = (
        "class Neu {\n  boolean exclude(int v, boolean s) {\n    return h0(v) || h1(v) || s;\n  }\n"
        + helpers
        + extra
        + "}\n"
    )
    (r.path / "Old.java").unlink()
    r.write("Neu.java", new)
    moved = r.commit("rename Old to Neu and rework it")
    history = symbol_history(r.path, "Neu.java", "Neu.exclude")
    assert changes(history.commits) == [
        (moved, ("body", "signature", "rename", "file-rename")),
        (born, ("introduced",)),
    ]
    assert history.commits[-1].symbol == "Old.skip"
    assert [e.path for e in history.commits] == ["Neu.java", "Old.java"]


def test_docstring_words_count_even_beside_escape_sequences(tmp_path: Path) -> None:
    """A string whose text tree-sitter splits around escape sequences is compared whole."""
    r = Repo(tmp_path / "r")
    doc = '    """Send it.\n\n    :param \\*\\*kwargs: options.\n    """\n'
    r.write("api.py", "def send(**kwargs):\n" + doc + "    return kwargs\n")
    born = r.commit("send")
    r.write(
        "api.py",
        "def send(**kwargs):\n" + doc.replace("options", "the options") + "    return kwargs\n",
    )
    worded = r.commit("doc words")
    assert changes(symbol_history(r.path, "api.py", "send").commits) == [
        (worded, ("body",)),
        (born, ("introduced",)),
    ]


def test_a_merge_that_changes_the_symbol_itself_is_listed(tmp_path: Path) -> None:
    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    a = x\n    b = a\n    return b\n")
    born = r.commit("f")
    r.git("checkout", "-q", "-b", "topic")
    r.write("m.py", "def f(x):\n    a = x + 1\n    b = a\n    return b\n")
    topic = r.commit("topic edit")
    r.git("checkout", "-q", "main")
    r.write("m.py", "def f(x):\n    a = x\n    b = a\n    return b * 2\n")
    main = r.commit("main edit")
    r.git("merge", "-q", "--no-commit", "topic")
    r.write("m.py", "def f(x):\n    a = x + 1\n    b = a\n    return b * 3\n")
    merge = r.commit("merge with a different result")
    history = symbol_history(r.path, "m.py", "f")
    assert {e.commit: e.changes for e in history.commits} == {
        merge: ("body",),
        topic: ("body",),
        main: ("body",),
        born: ("introduced",),
    }


def test_an_early_log_that_found_nothing_is_asked_again(tmp_path: Path) -> None:
    """The CLI starts git's walk from the user's directory before locating the repository; if
    that walk saw nothing (a path git read differently), the history still comes out whole."""
    from anchors.history import start_log

    r = Repo(tmp_path / "r")
    r.write("m.py", "def f(x):\n    return x\n")
    born = r.commit("f")
    r.write("m.py", "def f(x):\n    return x + 1\n")
    body = r.commit("body")
    early = start_log(r.path, "HEAD", "elsewhere.py")
    assert early is not None
    history = symbol_history(r.path, "m.py", "f", log=early)
    assert changes(history.commits) == [(body, ("body",)), (born, ("introduced",))]
    assert start_log(r.path, "--all", "m.py") is None  # never taken for an option


def test_a_repository_without_commits_says_so(
    tmp_path: Path, run_tether: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    path = tmp_path / "empty"
    path.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    (path / "a.py").write_text("def f():\n    return 1\n")
    proc = run_tether(["history", "a.py::f"], path)
    assert proc.returncode == 2 and "no commits yet" in proc.stderr


def test_extraction_into_a_wrapper_under_a_new_qualifier(tmp_path: Path) -> None:
    """A function's body moves into a new nested function while the function itself lives on,
    under a new qualifier, as a wrapper that calls it (`add_issue` -> `helpers.add_issue`
    calling `helpers.make_issue`). The name says which one the old function became: the
    wrapper; the function that took the body is extracted (introduced), not a rename, however
    alike the bodies."""
    r = Repo(tmp_path / "r")
    before = (
        "def add_issue(params, data):\n"
        "    error_arg = build(params.path, data)\n"
        "    default = default_map(error_arg, params.data)\n"
        "    message = data.message or params.error_map(error_arg, default)\n"
        "    params.errors.append(make(error_arg, message))\n"
    )
    r.write("parse.py", before)
    born = r.commit("add_issue")
    after = (
        "def helpers(params):\n"
        "    def make_issue(data):\n"
        "        error_arg = build(params.path, data)\n"
        "        default = default_map(error_arg, params.data)\n"
        "        message = data.message or params.error_map(error_arg, default)\n"
        "        return make(error_arg, message)\n\n"
        "    def add_issue(data):\n"
        "        params.errors.append(make_issue(data))\n\n"
        "    return make_issue, add_issue\n"
    )
    r.write("parse.py", after)
    split = r.commit("helpers")
    made = symbol_history(r.path, "parse.py", "helpers.make_issue")
    assert changes(made.commits) == [(split, ("introduced",))]
    wrapper = symbol_history(r.path, "parse.py", "helpers.add_issue")
    assert [c.commit for c in wrapper.commits] == [split, born]


def test_a_vanished_method_whose_declaration_became_another_is_not_this_ones_earlier_name(
    tmp_path: Path,
) -> None:
    """A method is renamed in place (its declaration line now names `maybe_explode`) and most
    of its old body moves into a new module function (`is_one_tuple`), which is then more like
    the old method than the renamed one is. The changed declaration says which one the method
    became: the new function is introduced there, the renamed method goes on into the old
    history."""
    r = Repo(tmp_path / "r")
    before = (
        "class Line:\n"
        "    def maybe_remove_comma(self, closing):\n"
        "        if closing.type == RSQB:\n"
        "            for leaf in self.leaves:\n"
        "                if leaf.type == COMMA and leaf.parent is closing.parent:\n"
        "                    commas += 1\n"
        "            if commas > 1:\n"
        "                return False\n"
        "        self.remove_trailing_comma()\n"
        "        return True\n"
    )
    r.write("lines.py", before)
    born = r.commit("maybe_remove_comma")
    after = (
        "class Line:\n"
        "    def maybe_explode(self, closing):\n"
        "        if self.is_import or closing.type == RPAR:\n"
        "            return not is_one_tuple(closing.opening, closing, self.leaves)\n"
        "        return True\n"
        "\n"
        "\n"
        "def is_one_tuple(opening, closing, leaves):\n"
        "    if closing.type == RSQB:\n"
        "        for leaf in leaves:\n"
        "            if leaf.type == COMMA and leaf.parent is closing.parent:\n"
        "                commas += 1\n"
        "        if commas > 1:\n"
        "            return False\n"
        "    return True\n"
    )
    r.write("lines.py", after)
    split = r.commit("magic trailing comma")
    helper = symbol_history(r.path, "lines.py", "is_one_tuple")
    assert changes(helper.commits) == [(split, ("introduced",))]
    method = symbol_history(r.path, "lines.py", "Line.maybe_explode")
    assert [c.commit for c in method.commits] == [split, born]
    assert "rename" in method.commits[0].changes


def test_a_rewritten_rename_beside_a_new_helper_unlike_it(tmp_path: Path) -> None:
    """One function vanishes and two appear in its place: its rewrite (under half alike, under
    another name, its callers in other files) and a small new helper, not at all like the old
    function (under a quarter). The rewrite is its later name; the helper is introduced."""
    r = Repo(tmp_path / "r")
    before = (
        "def root_relative(path, root, report=None):\n"
        "    try:\n"
        "        relative = path.absolute().relative_to(root).as_posix()\n"
        "    except ValueError:\n"
        "        if report:\n"
        "            report.path_ignored(path, 'points outside root')\n"
        "        return None\n"
        "    return relative\n"
    )
    r.write("files.py", before)
    born = r.commit("root_relative")
    after = (
        "def cached_resolve(key):\n"
        "    with LOCK:\n"
        "        yield from MEMO[key]\n"
        "\n"
        "\n"
        "def best_effort_relative(path, root):\n"
        "    try:\n"
        "        return path.absolute().relative_to(root)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    parent = next((p for p in path.parents if cached_resolve(p) == root), None)\n"
        "    if parent is not None:\n"
        "        return path.relative_to(parent)\n"
        "    return cached_resolve(path).relative_to(root)\n"
    )
    r.write("files.py", after)
    rewritten = r.commit("best effort")
    renamed = symbol_history(r.path, "files.py", "best_effort_relative")
    assert [c.commit for c in renamed.commits] == [rewritten, born]
    assert "rename" in renamed.commits[0].changes
    helper = symbol_history(r.path, "files.py", "cached_resolve")
    assert changes(helper.commits) == [(rewritten, ("introduced",))]


def test_a_move_source_whose_declaration_became_another_is_not_taken(tmp_path: Path) -> None:
    """A new file's function is alike to one that vanished from another file in the same commit,
    but that one lives on there under a new name (its declaration line now names `gte`, and
    `min` is an alias): the new function is introduced, not moved."""
    r = Repo(tmp_path / "r")
    body = (
        "    checks = list(self.checks)\n"
        "    checks.append({'kind': 'min', 'value': value, 'message': message})\n"
        "    return Number(checks=checks, coerce=self.coerce)\n"
    )
    r.write(
        "number.py",
        "class Number:\n    def min(self, value, message=None):\n"
        + "".join("    " + line + "\n" for line in body.splitlines()),
    )
    born = r.commit("Number.min")
    r.write(
        "number.py",
        "class Number:\n    def gte(self, value, message=None):\n"
        "        return set_limit(self, 'min', value, True, message)\n\n    min = gte\n",
    )
    r.write("limits.py", "def set_limit(self, value, message=None):\n" + body)
    split = r.commit("gte and set_limit")
    made = symbol_history(r.path, "limits.py", "set_limit")
    assert changes(made.commits) == [(split, ("introduced",))]
    kept = symbol_history(r.path, "number.py", "Number.gte")
    assert [c.commit for c in kept.commits] == [split, born]


def test_a_path_through_a_symlink_follows_it(
    tmp_path: Path, run_tether: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """git knows a symlinked directory as a link only: the history asked for through it is its
    target's (said on stderr); a link that leaves the repository is refused, nothing printed."""
    r = Repo(tmp_path / "r")
    r.write("core/internals/attr.py", "def is_primitive(x):\n    return x\n")
    born = r.commit("attr")
    (r.path / "pkg").mkdir()
    (r.path / "pkg" / "src").symlink_to("../core/internals", target_is_directory=True)
    r.write("core/internals/attr.py", "def is_primitive(x):\n    return bool(x)\n")
    changed = r.commit("link and change")
    proc = run_tether(["history", "pkg/src/attr.py::is_primitive", "--json"], r.path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["path"] == "core/internals/attr.py"
    assert [c["commit"] for c in doc["commits"]] == [changed, born]
    assert "symlink to core/internals/attr.py" in proc.stderr
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "m.py").write_text("def f():\n    pass\n")
    (r.path / "out").symlink_to(outside, target_is_directory=True)
    refused = run_tether(["history", "out/m.py::f"], r.path)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "symlink out of the repository" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
