"""`tether history`: cases the fifth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 5`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, log_kind  # noqa: F401  (log_kind: autouse)

GO_BODY = "\tt := reflect.ValueOf(h)\n\tif t.Kind() == reflect.Func {\n\t\treturn t.String()\n\t}\n"


def test_a_go_function_exported_and_moved_in_a_commit_touching_many_files(tmp_path: Path) -> None:
    """echo `HandlerName`: v5 moved `handlerName` out of echo.go (kept, with other changes) into
    the new route.go as `HandlerName`, in a commit touching more files than are searched one by
    one; echo.go's diff names the function only in its unexported spelling."""
    from anchors import history_walk

    r = Repo(tmp_path / "r")
    for i in range(12):
        r.write(f"m{i}.go", f"package echo\n\nfunc helper{i}(x int) int {{\n\treturn x + {i}\n}}\n")
    old = "package echo\n\nfunc New() int {\n\treturn 1\n}\n\nfunc handlerName(h any) string {\n"
    r.write("echo.go", old + GO_BODY + '\treturn "x"\n}\n')
    born = r.commit("echo")
    r.write("echo.go", old + GO_BODY + '\treturn "y"\n}\n')
    edited = r.commit("edit handlerName")
    for i in range(12):
        r.write(
            f"m{i}.go", f"package echo\n\nfunc helper{i}(x int) int {{\n\treturn x + {i + 1}\n}}\n"
        )
    r.write("echo.go", "package echo\n\nfunc New() int {\n\treturn 2\n}\n")
    r.write("route.go", "package echo\n\nfunc HandlerName(h any) string {\n" + GO_BODY
            + '\treturn "y"\n}\n')  # fmt: skip
    moved = r.commit("v5: many changes")
    history = symbol_history(r.path, "route.go", "HandlerName")
    assert [(e.commit, set(e.changes)) for e in history.commits] == [
        (moved, {"move", "rename"}),
        (edited, {"body"}),
        (born, {"introduced"}),
    ]
    assert (history.commits[1].path, history.commits[1].symbol) == ("echo.go", "handlerName")
    assert len(list(r.path.glob("*.go"))) > history_walk.MOVE_SEARCH_FILES


STEPS = "        a = self.value + 1\n        b = a * 2\n        c = b - 3\n        d = c * c\n"


def test_bare_call_lines_are_no_sign_that_a_method_became_a_new_helper(tmp_path: Path) -> None:
    """mobx `DerivedValue.compute`: a rewrite renamed the class ViewNode and its method
    `computeNextState` (0.68 alike) to `DerivedValue.compute`, and its calls `this.computeNextState();`
    went, as bare call lines, the way of the new `this.wakeUp();`, `this.tryToSleep();` and more:
    a line that names nothing but the method reads the same with any new name, so it is no sign
    that the old method became one of those; nor is the old method of the same name (0.08 alike)
    taken instead."""
    r = Repo(tmp_path / "r")
    other = "    def compute(self):\n        return self.flag and not self.seen\n\n"
    runner = (
        "    def run(self):\n        self.compute_next_state()\n        self.compute_next_state()\n"
    )
    r.write("node.py", "class ViewNode:\n" + other + "    def compute_next_state(self):\n"
            + STEPS + "        return d\n\n" + runner)  # fmt: skip
    born = r.commit("view node")
    r.write("node.py", "class ViewNode:\n" + other + "    def compute_next_state(self):\n"
            + STEPS + "        return d + 1\n\n" + runner)  # fmt: skip
    edited = r.commit("edit compute_next_state")
    r.write("node.py", "class DerivedValue:\n    def compute(self, track):\n" + STEPS
            + "        return d + 1\n\n    def wake_up(self):\n        self.awake = True\n\n"
            + "    def sleep(self):\n        self.awake = False\n\n"
            + "    def run(self):\n        self.wake_up()\n        self.sleep()\n")  # fmt: skip
    rewritten = r.commit("restructuring")
    history = symbol_history(r.path, "node.py", "DerivedValue.compute")
    assert [e.commit for e in history.commits] == [rewritten, edited, born]
    assert "rename" in history.commits[0].changes
    assert history.commits[1].symbol == "ViewNode.compute_next_state"


def test_a_variant_from_a_deleted_file_replaces_the_symbol(tmp_path: Path) -> None:
    """echo `Context.File`: its Go 1.16 variant lived in context_fs_go1.16.go beside the old one
    in context_fs.go (build tags); when Go 1.16 became the minimum, context_fs.go was rewritten as
    the variant and the variant's file deleted. The symbol's history continues in the variant's
    file, not in the old version it replaced (0.16 alike), though the diff keeps the old lines as a
    helper's."""
    r = Repo(tmp_path / "r")
    old = ("package echo\n\nfunc (c *context) File(file string) error {\n\tf, err := os.Open(file)\n"
           "\tif err != nil {\n\t\treturn NotFoundHandler(c)\n\t}\n\tdefer f.Close()\n"
           "\treturn serve(c, f)\n}\n")  # fmt: skip
    r.write("context_fs.go", old)
    r.commit("old version")
    r.write("context_fs.go", old.replace("serve(c, f)", "serve(c, f, true)"))
    r.commit("edit the old version")

    def variant(arg: str) -> str:
        return ("package echo\n\nfunc (c *context) File(file string) error {\n"
                f"\treturn fsFile(c, file, c.echo.Filesystem{arg})\n}}\n")  # fmt: skip

    r.write("context_fs_go1.16.go", variant(""))
    added = r.commit("a Go 1.16 variant")
    r.write("context_fs_go1.16.go", variant(", nil"))
    edited = r.commit("edit the variant")
    (r.path / "context_fs_go1.16.go").unlink()
    # The old body stays below as a helper's, so the diff keeps most of its lines.
    helper = old.replace("package echo\n\n", "").replace(
        "(c *context) File(", "fsFile(c *context, "
    )
    r.write("context_fs.go", variant(", nil") + "\n" + helper)
    merged = r.commit("Go 1.16 minimum: one file")
    history = symbol_history(r.path, "context_fs.go", "context.File")
    assert [(e.commit, set(e.changes)) for e in history.commits] == [
        (merged, {"move"}),
        (edited, {"body"}),
        (added, {"introduced"}),
    ]
    assert history.commits[1].path == "context_fs_go1.16.go"


def test_a_namesake_moved_whole_to_another_file_is_not_where_a_new_variant_came_from(
    tmp_path: Path,
) -> None:
    """echo `Echo.Static`: one commit moved it unchanged from echo.go into echo_fs.go (for Go
    before 1.16) and wrote a new version for Go 1.16 in echo_fs_go1.16.go (0.48 alike). The old
    one went to echo_fs.go; the new one is introduced, not moved from echo.go as well."""
    r = Repo(tmp_path / "r")
    old = (
        'func (e *Echo) Static(prefix, root string) *Route {\n\tif root == "" {\n'
        '\t\troot = "."\n\t}\n\treturn e.static(prefix, root, e.GET)\n}\n'
    )
    r.write("echo.go", "package echo\n\n" + old + "\nfunc New() int {\n\treturn 1\n}\n")
    r.commit("echo")
    r.write("echo.go", "package echo\n\nfunc New() int {\n\treturn 1\n}\n")
    r.write("echo_fs.go", "//go:build !go1.16\n\npackage echo\n\n" + old)
    variant = (
        'func (e *Echo) Static(prefix, root string) *Route {\n\tif root == "" {\n'
        '\t\troot = "."\n\t}\n\tsub := MustSubFS(e.Filesystem, root)\n'
        '\treturn e.Add(http.MethodGet, prefix+"*", StaticDirectoryHandler(sub, false))\n}\n'
    )
    r.write("echo_fs_go1.16.go", "//go:build go1.16\n\npackage echo\n\n" + variant)
    split = r.commit("filesystem support for Go 1.16")
    history = symbol_history(r.path, "echo_fs_go1.16.go", "Echo.Static")
    assert [(e.commit, set(e.changes)) for e in history.commits] == [(split, {"introduced"})]
    moved = symbol_history(r.path, "echo_fs.go", "Echo.Static")
    assert [set(e.changes) for e in moved.commits] == [{"move"}, {"introduced"}]


def test_a_function_whose_code_went_to_another_file_is_not_a_new_ones_earlier_name(
    tmp_path: Path,
) -> None:
    """echo `handlerName`: 51acf465 removed `listDir` from echo.go, where `handlerName` was the
    only new function of its scope (0.42 alike, enough for the rule for a rename that rewrote
    the body), while `listDir`'s code went into the new handler package's `Static.Handle`
    (0.59): `handlerName` is introduced there."""
    r = Repo(tmp_path / "r")
    body = (
        "    dirs = d.readdir()\n    w = c.response()\n    w.header('type', 'html')\n"
        "    for x in dirs:\n        name = x.name()\n        w.write(name)\n    return None\n"
    )
    r.write("a.py", "def keep(x):\n    return x\n\n\ndef list_dir(d, c):\n" + body)
    r.commit("a")
    r.write("a.py", "def keep(x):\n    return x\n\n\ndef handler_name(h):\n"
            "    t = type(h)\n    w = t.name()\n    return w\n")  # fmt: skip
    static = "class Static:\n    def handle(self, c):\n        d = self.open(c)\n"
    r.write(
        "handler/static.py",
        static + body.replace("\n    ", "\n        ").replace("    ", "        ", 1),
    )
    moved = r.commit("static file serving moved to a handler package")
    history = symbol_history(r.path, "a.py", "handler_name")
    assert [(e.commit, set(e.changes)) for e in history.commits] == [(moved, {"introduced"})]
