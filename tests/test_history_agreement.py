"""`tether history`: cases found by comparing its histories with the exhaustive sweep
(bench/anchors/sweep.py) on random functions of repositories new to it, each a synthetic history
in a real git repository, walked the three ways of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)


def test_methods_made_functions_with_the_class_line_outside_the_hunk(tmp_path: Path) -> None:
    """werkzeug's a13a92f8 removed the test class `TestTest` and made its methods functions. git's
    `-U0` diff pairs the blank lines between them, so the hunk of a later method does not hold the
    class line: its old lines, parsed alone, read as a function of the same name. It was a method:
    the commit renamed it (`Suite.test_b` became `test_b`), and the older commits are the
    method's, under its name."""
    r = Repo(tmp_path / "r")
    method = "    def test_b(self):\n        y = {n}\n        return y\n"
    r.write(
        "test_x.py",
        "class Suite(Base):\n    def test_a(self):\n        x = 1\n        return x\n\n"
        + method.format(n=1),
    )
    born = r.commit("suite")
    r.write(
        "test_x.py",
        "class Suite(Base):\n    def test_a(self):\n        x = 1\n        return x\n\n"
        + method.format(n=2),
    )
    edited = r.commit("y = 2")
    r.write(
        "test_x.py",
        "def test_a():\n    x = 1\n    return x\n\ndef test_b():\n    y = 2\n    return y\n",
    )
    flattened = r.commit("no class")
    history = symbol_history(r.path, "test_x.py", "test_b")
    assert [e.commit for e in history.commits] == [flattened, edited, born]
    assert "rename" in history.commits[0].changes
    assert [e.symbol for e in history.commits[1:]] == ["Suite.test_b", "Suite.test_b"]


def test_a_go_name_made_unexported_in_a_rewrite_is_the_same_name(tmp_path: Path) -> None:
    """client_golang's 5d40912f rewrote its registry: `NewRegistry` (returning the interface)
    vanished and `newRegistry` (returning the struct, with other fields) appeared, too unlike
    for a rename by likeness. In Go a name's first letter says only whether it is exported:
    the history continues into `NewRegistry`, as it would under the same name."""
    r = Repo(tmp_path / "r")
    old = (
        "package reg\n\n"
        "func NewRegistry() Registry {\n\treturn &registry{\n\t\tcontainers: make(map[uint64]int),\n"
        "\t}\n}\n\nfunc Register(name string) error {\n\treturn Default.Register(name)\n}\n"
    )
    r.write("registry.go", old)
    born = r.commit("registry")
    new = (
        "package reg\n\n"
        "func newRegistry() *registry {\n\treturn &registry{\n\t\tcollectorsByID: map[uint64]C{},\n"
        "\t\tdescIDs: map[uint64]struct{}{},\n\t\tbufPool: make(chan *bytes.Buffer, numBufs),\n"
        "\t}\n}\n\nfunc MustRegister(cs ...Collector) {\n\tfor _, c := range cs {\n"
        "\t\tDefault.MustRegister(c)\n\t}\n}\n"
    )
    r.write("registry.go", new)
    rewritten = r.commit("complete rewrite")
    history = symbol_history(r.path, "registry.go", "newRegistry")
    assert [e.commit for e in history.commits] == [rewritten, born]
    assert "rename" in history.commits[0].changes
    assert history.commits[1].symbol == "NewRegistry"

    # Not in another language: there the case of a name is part of it.
    r2 = Repo(tmp_path / "r2")
    r2.write(
        "reg.py",
        "def NewRegistry():\n    return Registry(containers={})\n\n\n"
        "def register(name):\n    return default.register(name)\n",
    )
    r2.commit("registry")
    r2.write(
        "reg.py",
        "def newRegistry():\n    made = _Registry()\n    made.ids, made.pool = set(), []\n"
        "    return made\n\n\n"
        "def must_register(*cs):\n    for c in cs:\n        default.must_register(c)\n",
    )
    later = r2.commit("rewrite")
    assert [e.commit for e in symbol_history(r2.path, "reg.py", "newRegistry").commits] == [later]


def test_an_escape_taken_out_of_a_string_is_a_change(tmp_path: Path) -> None:
    """client_golang's 0afe1a81 changed `"... registered.\\n"` to `"... registered."`: not
    whitespace but code (the string printed is another). It was taken for whitespace (the text
    compared had its `\\n` escapes turned to spaces). A space taken out of a string stays no
    change, as whitespace anywhere."""
    r = Repo(tmp_path / "r")
    body = 'package ex\n\nfunc Example() {\n\tfmt.Println("GaugeFunc registered.END")\n}\n'
    r.write("ex_test.go", body.replace("END", "\\n"))
    born = r.commit("example")
    r.write("ex_test.go", body.replace("END", ""))
    escaped = r.commit("no newline")
    r.write("ex_test.go", body.replace("END", "").replace("Gauge", "Gauge "))
    r.commit("a space in the string")
    history = symbol_history(r.path, "ex_test.go", "Example")
    assert [e.commit for e in history.commits] == [escaped, born]
    assert list(history.commits[0].changes) == ["body"]


def test_a_python_end_is_not_read_from_lines_the_commit_wrote(tmp_path: Path) -> None:
    """scrapy's c9f2865c cut `Scheduler.enqueue_request` short: its new last lines replaced the
    old body's first part, the old rest (a deeper `if`/`else`) became the next method's first
    lines. Where the old definition ended was read from the first code line after the hunk, but
    that line was written by the commit (the next method's `def`): the old end was taken five
    lines too soon, and the earlier change inside the lost lines was missed."""
    r = Repo(tmp_path / "r")
    old = (
        "class S:\n"
        "    def enqueue(self, r):\n"
        '        """\n        Add a page.\n        """\n'
        "        rid = fp(r)\n"
        "        added = self.f.add(rid)\n"
        "\n"
        "        if added:\n"
        "            d = D()\n"
        "            self.q.push(d)\n"
        "            return d\n"
        "        else:\n"
        "            return fail({arg})\n"
        "\n"
        "    def seen(self, r):\n"
        '        """\n        Seen before.\n        """\n'
        "        return self.f.has(fp(r))\n"
    )
    r.write("sched.py", old.format(arg=""))
    born = r.commit("scheduler")
    r.write("sched.py", old.format(arg="r"))
    tail = r.commit("fail with the request")
    r.write(
        "sched.py",
        "class S:\n"
        "    def enqueue(self, r):\n"
        '        """Enqueue a request."""\n'
        "        d = D()\n"
        "        self.q.push((r, d))\n"
        "        return d\n"
        "\n"
        "    def next(self):\n"
        '        """Return the next request.\n'
        "        Or None.\n"
        '        """\n'
        "        return self.q.pop()\n",
    )
    rewritten = r.commit("no duplicate filter")
    history = symbol_history(r.path, "sched.py", "S.enqueue")
    assert [e.commit for e in history.commits] == [rewritten, tail, born]


def test_a_rust_method_renamed_with_its_impl_type(tmp_path: Path) -> None:
    """axum's 6703f863 renamed the body type `Body` to `SseBody` on the `impl HttpBody for ...`
    line alone. A Rust method's qualifier is its `impl` block, whose line the walk did not watch
    (the block is a definition named for the whole line, not for the type): the rename was no
    change, the older commits kept the new name, and the history stopped where the type was
    older than that name."""
    r = Repo(tmp_path / "r")
    source = (  # the type itself is defined elsewhere (axum's inside a function)
        "use crate::types::{name};\n\n"
        "impl HttpBody for {name} {{\n    fn poll_data(&mut self) -> u32 {{\n"
        "        self.n += {step};\n        self.n\n    }}\n}}\n"
    )
    r.write("sse.rs", source.format(name="Body", step=1))
    born = r.commit("body")
    r.write("sse.rs", source.format(name="Body", step=2))
    edited = r.commit("step 2")
    r.write("sse.rs", source.format(name="SseBody", step=2))
    renamed = r.commit("Body is SseBody")
    history = symbol_history(r.path, "sse.rs", "SseBody.poll_data")
    assert [e.commit for e in history.commits] == [renamed, edited, born]
    assert "rename" in history.commits[0].changes
    assert [e.symbol for e in history.commits[1:]] == ["Body.poll_data", "Body.poll_data"]


def test_a_class_renamed_on_the_line_under_its_annotation(tmp_path: Path) -> None:
    """commons-io renamed `FileUtilsTestCase` to `FileUtilsTest` on the line under the class's
    `@SuppressWarnings`: the class's first line did not change, its name did (a rename of each
    method, also of a Python method under a decorated class)."""
    r = Repo(tmp_path / "r")
    method = (
        "\n    @Test\n    public void testCopy() throws Exception {\n"
        "        int a = 1;\n        assertEquals(1, a);\n    }\n}\n"
    )
    head = '@SuppressWarnings({"deprecation"}) // many deprecated methods\npublic class '
    r.write("FooTestCase.java", "package x;\n\n" + head + "FooTestCase {\n" + method)
    born = r.commit("born")
    r.git("mv", "FooTestCase.java", "FooTest.java")
    moved = r.commit("move")
    r.write("FooTest.java", "package x;\n\n" + head + "FooTest {\n" + method)
    renamed = r.commit("rename the class")
    assert changes(symbol_history(r.path, "FooTest.java", "FooTest.testCopy").commits) == [
        (renamed, ("rename",)),
        (moved, ("file-rename",)),
        (born, ("introduced",)),
    ]
    r.write("m.py", "@dataclass\nclass Old:\n    def area(self):\n        return self.w * self.h\n")
    first = r.commit("python")
    r.write("m.py", "@dataclass\nclass New:\n    def area(self):\n        return self.w * self.h\n")
    second = r.commit("rename the class")
    assert changes(symbol_history(r.path, "m.py", "New.area").commits) == [
        (second, ("rename",)),
        (first, ("introduced",)),
    ]
