"""`tether history`: cases the held-out accuracy rounds found (bench/anchors/truth, `held_out`),
each a synthetic history in a real git repository, walked the three ways of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

BODY = "    a = x + 1\n    b = a * 2\n    c = b - 3\n    return c\n"


def test_a_merge_keeping_one_parents_symbol_does_not_follow_a_rename_in_the_other(
    tmp_path: Path,
) -> None:
    """gin `Context.reset`: the merge took the symbol as one parent had it; in the other parent
    it is absent and an alike definition of another name vanished, which is not its history."""
    r = Repo(tmp_path / "r")
    other = "\n\ndef other(y):\n    return y\n"
    r.write("m.py", "def create(x):\n" + BODY + other)
    born = r.commit("create")
    r.git("checkout", "-q", "-b", "topic")
    r.write("m.py", "def create(x):\n" + BODY.replace("b - 3", "b - 4") + other)
    r.commit("edit create on a branch")
    r.write(
        "m.py", "def create(x):\n" + BODY.replace("b - 3", "b - 4") + other.replace("y\n", "-y\n")
    )
    r.commit("edit other on the branch")
    r.git("checkout", "-q", "main")
    r.write("m.py", "def reset(x):\n" + BODY + other)
    renamed = r.commit("rename create to reset")
    # main's reset and the branch's other: the file differs from both parents
    r.git("merge", "-q", "--no-commit", "topic")
    r.write("m.py", "def reset(x):\n" + BODY + other.replace("y\n", "-y\n"))
    r.commit("merge, keeping reset as main has it")
    history = symbol_history(r.path, "m.py", "reset")
    assert changes(history.commits) == [(renamed, ("rename",)), (born, ("introduced",))]


def test_a_move_and_rename_out_of_a_deleted_file_in_a_commit_touching_many_files(
    tmp_path: Path,
) -> None:
    """jinja `auto_to_list`, gin `Context.GetQuery`: a file dissolved in a commit touching more
    files than are searched one by one; its diff does not name the function's new name."""
    from anchors import history_walk

    r = Repo(tmp_path / "r")
    for i in range(12):
        r.write(f"pkg/m{i}.py", f"def helper{i}(x):\n    return x + {i}\n")
    r.write("pkg/old.py", "def auto_to_seq(value):\n" + BODY.replace("x", "value"))
    r.write("pkg/new.py", "def kept(y):\n    return [y, y]\n")
    born = r.commit("many")
    for i in range(12):
        r.write(f"pkg/m{i}.py", f"def helper{i}(x):\n    return x + {i + 1}\n")
    (r.path / "pkg/old.py").unlink()
    r.write("pkg/new.py", "def kept(y):\n    return [y, y]\n\n\ndef auto_to_list(value):\n"
            + BODY.replace("x", "value"))  # fmt: skip
    moved = r.commit("dissolve old.py among many edits")
    history = symbol_history(r.path, "pkg/new.py", "auto_to_list")
    assert [(e.commit, set(e.changes)) for e in history.commits] == [
        (moved, {"move", "rename"}),
        (born, {"introduced"}),
    ]
    assert (history.commits[1].path, history.commits[1].symbol) == ("pkg/old.py", "auto_to_seq")
    assert len(list(r.path.glob("pkg/*.py"))) > history_walk.MOVE_SEARCH_FILES


def test_a_namesake_moved_in_beats_an_alike_definition_dropped_beside_it(tmp_path: Path) -> None:
    """jsoup `Node.nameIs`: moved from Element to Node, where the commit dropped `isNode`, whose
    body was the same: the symbol is the one of its name from the other file."""
    r = Repo(tmp_path / "r")
    node = "def is_node(self, name):\n    return self.normal_name() == name\n"
    rest = "\n\ndef parent(self):\n    return self.up\n"
    r.write("node.py", node + rest)
    r.write("element.py", "def name_is(self, name):\n    return self.tag.normal_name() == name\n")
    r.commit("node and element")
    r.write(
        "element.py", "def name_is(self, name):\n    return self.tag.normal_name() == name  # x\n"
    )
    r.write("other.py", "X = 1\n")
    r.commit("comment only")
    r.write(
        "element.py", "def name_is(self, name):\n    return self.tag.normal_name() == str(name)\n"
    )
    edited = r.commit("edit name_is")
    r.write("node.py", node.replace("is_node", "name_is") + rest)
    r.write("element.py", "def tag_name(self):\n    return self.tag\n")
    moved = r.commit("move name_is to node, dropping is_node")
    history = symbol_history(r.path, "node.py", "name_is")
    assert [e.commit for e in history.commits][:2] == [moved, edited]
    assert "move" in history.commits[0].changes
    assert (history.commits[1].path, history.commits[1].symbol) == ("element.py", "name_is")


def test_a_move_beside_a_new_version_of_the_same_name_in_an_added_file(tmp_path: Path) -> None:
    """viper `Viper.findConfigFile`: one commit moved the function out of viper.go into a new
    file for one build and wrote a new version of the same name into another new file for the
    other build. The namesake in an added file did not stay: the move is found."""
    r = Repo(tmp_path / "r")
    r.write("main.go", "package p\n\nfunc keep() int {\n\treturn 1\n}\n\n"
            "func find(x int) int {\n\ta := x + 1\n\tb := a * 2\n\treturn b - 3\n}\n")  # fmt: skip
    born = r.commit("find")
    r.write("main.go", "package p\n\nfunc keep() int {\n\treturn 1\n}\n")
    r.write("old_build.go", "//go:build !new\n\npackage p\n\n"
            "func find(x int) int {\n\ta := x + 1\n\tb := a * 2\n\treturn b - 3\n}\n")  # fmt: skip
    r.write("new_build.go", "//go:build new\n\npackage p\n\n"
            "func find(x int) int {\n\treturn lookup(x)\n}\n")  # fmt: skip
    moved = r.commit("split find by build")
    history = symbol_history(r.path, "old_build.go", "find")
    assert [(e.commit, e.changes) for e in history.commits] == [
        (moved, ("move",)),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "main.go"
    # the new version is new: the one that moved is in the other file
    history = symbol_history(r.path, "new_build.go", "find")
    assert [e.commit for e in history.commits][-1] in (moved, born)


def test_an_interface_signature_is_not_where_an_implementation_came_from(
    tmp_path: Path,
) -> None:
    """yargs `Yargs.demandOption`: the commit that moved the implementation into a new file
    also deleted a file whose interface declared the same methods (so the new file looks like
    it renamed), but a signature without a body is not the implementation's earlier version:
    the method came from the old implementation's file."""
    r = Repo(tmp_path / "r")
    impl = (
        "export class Impl {\n"
        "  demandOption(keys: string, msg: string) {\n"
        "    const a = keys.split(',');\n    this.demand(a, msg);\n    return this;\n  }\n"
        "  alias(key: string) {\n    this.aliases.push(key);\n    return this;\n  }\n"
        "}\n"
    )
    r.write("old.ts", impl + "export function keep() {\n  return 1;\n}\n")
    r.write(
        "types.ts",
        "export interface Instance {\n  demandOption(keys: string, msg: string): Instance;\n"
        "  alias(key: string): Instance;\n}\n",
    )
    born = r.commit("impl and interface")
    r.write("old.ts", "export function keep() {\n  return 1;\n}\n")
    (r.path / "types.ts").unlink()
    r.write("lib.ts", impl.replace("class Impl", "class Lib"))
    moved = r.commit("move the implementation, drop the interface")
    history = symbol_history(r.path, "lib.ts", "Lib.demandOption")
    assert [(e.commit, set(e.changes)) for e in history.commits] == [
        (moved, {"move", "rename"}),
        (born, {"introduced"}),
    ]
    assert (history.commits[1].path, history.commits[1].symbol) == ("old.ts", "Impl.demandOption")


def test_a_split_function_continues_in_the_part_most_like_it(tmp_path: Path) -> None:
    """viper `defaultDecoderConfig`, just `export_scope`: a function was split in two new ones,
    the declaration rewritten in another way, the callers given other arguments. The new helper
    is alike enough to be a rename, but the other new part is more like the old function: that
    one is its later name, and the helper is introduced."""
    r = Repo(tmp_path / "r")
    old = (
        "def weak_decode(data, out):\n"
        "    config = Config(unused=True, result=out, weak=True, meta=None)\n"
        "    decoder = make_decoder(config)\n"
        "    if decoder is None:\n        raise DecodeError(data)\n"
        "    return decoder.decode(data)\n"
    )
    caller = "\n\ndef load(data, out):\n    err = weak_decode(data, out)\n    return err\n"
    r.write("d.py", old + caller)
    r.commit("weak_decode")
    new = (
        "def default_config(out):\n"
        "    return Config(unused=True, result=out, weak=True, hook=duration_hook)\n"
        "\n\n"
        "def decode(data, config):\n"
        "    decoder = make_decoder(config)\n"
        "    if decoder is None:\n        raise DecodeError(data)\n"
        "    return decoder.decode(data)\n"
    )
    caller = (
        "\n\ndef load(data, out):\n    config = default_config(out)\n"
        "    err = decode(data, config)\n    return err\n"
    )
    r.write("d.py", new + caller)
    split = r.commit("split weak_decode into default_config and decode")
    history = symbol_history(r.path, "d.py", "default_config")
    assert changes(history.commits) == [(split, ("introduced",))]
    history = symbol_history(r.path, "d.py", "decode")
    assert [e.commit for e in history.commits][0] == split
    assert "rename" in history.commits[0].changes
    assert len(history.commits) == 2
