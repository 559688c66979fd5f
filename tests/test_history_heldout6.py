"""`tether history`: cases the sixth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 6`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, log_kind  # noqa: F401  (log_kind: autouse)


def _parser(receiver: str, name: str, source: str, tag: str, split: str = "strings.Split") -> str:
    return (
        f"func ({receiver}) {name}(out any) error {{\n"
        "\tdata := make(map[string][]string)\n"
        f"\t{source}.VisitAll(func(key, val []byte) {{\n"
        "\t\tk := string(key)\n"
        "\t\tv := string(val)\n"
        '\t\tif strings.Contains(v, ",") {\n'
        f'\t\t\tdata[k] = append(data[k], {split}(v, ",")...)\n'
        "\t\t} else {\n"
        "\t\t\tdata[k] = append(data[k], v)\n"
        "\t\t}\n"
        "\t})\n"
        f'\treturn parseToStruct("{tag}", out, data)\n'
        "}\n"
    )


def test_a_new_definition_beside_the_ones_vanished_definitions_became(tmp_path: Path) -> None:
    """fiber `cookieBinding.Bind`: one commit moved ctx.go's `QueryParser` and `HeaderParser`
    into the new binders `queryBinding.Bind` and `headerBinding.Bind`, each most like its own
    parser, and wrote `cookieBinding.Bind` beside them, alike to both parsers but less than
    their own binders are: it is new, not either parser moved; the query binder still
    continues its parser's history."""
    r = Repo(tmp_path / "r")
    query = _parser("c *Ctx", "QueryParser", "c.Request().URI().QueryArgs()", "query")
    header = _parser("c *Ctx", "HeaderParser", "c.Request().Header", "header")
    r.write("ctx.go", "package fiber\n\ntype Ctx struct{}\n\n" + query + "\n" + header)
    born = r.commit("parsers")
    r.write(
        "ctx.go",
        "package fiber\n\ntype Ctx struct{}\n\n"
        + _parser("c *Ctx", "QueryParser", "c.Request().URI().QueryArgs()", "query", "splitValues")
        + "\n"
        + header,
    )
    edited = r.commit("edit QueryParser")
    r.write("ctx.go", "package fiber\n\ntype Ctx struct{}\n")
    binders = {
        "query": ("queryBinding", "req.URI().QueryArgs()", "query", "splitValues"),
        "header": ("headerBinding", "req.Header", "header", "strings.Split"),
        "cookie": ("cookieBinding", "req.Header.Cookies()", "cookie", "strings.Split"),
    }
    for file, (kind, source, tag, split) in binders.items():
        text = _parser(f"b *{kind}", "Bind", source, tag, split).replace(
            "(out any)", "(req *Request, out any)"
        )
        r.write(f"binder/{file}.go", f"package binder\n\ntype {kind} struct{{}}\n\n" + text)
    moved = r.commit("binders")
    cookie = symbol_history(r.path, "binder/cookie.go", "cookieBinding.Bind")
    assert [(e.commit, e.changes) for e in cookie.commits] == [(moved, ("introduced",))]
    bound = symbol_history(r.path, "binder/query.go", "queryBinding.Bind")
    assert [e.commit for e in bound.commits] == [moved, edited, born]
    assert (bound.commits[1].path, bound.commits[1].symbol) == ("ctx.go", "Ctx.QueryParser")


USE = (
    "    def use(self, fulfilled, rejected=None):\n"
    "        self.handlers.append({'{side}': fulfilled, '{side}_error': rejected})\n"
    "        return len(self.handlers) - 1\n"
)


def test_a_definition_that_took_the_place_of_several_alike_is_new(tmp_path: Path) -> None:
    """axios `InterceptorManager.use`: the request and the response interceptors each had a
    `use` of their own (equally alike to the new one); one commit replaced both with one class's
    `use` in a new file. Neither is its earlier version: it is introduced there. With only one
    such `use` vanishing, the same change is a move."""
    r = Repo(tmp_path / "r")
    sides = "".join(
        f"class {side.title()}Interceptors:\n" + USE.replace("{side}", side) + "\n\n"
        for side in ("request", "response")
    )
    r.write("api.py", "def get(url):\n    return url\n\n\n" + sides)
    r.commit("interceptors")
    r.write("api.py", "def get(url):\n    return url\n")
    manager = "class InterceptorManager:\n" + USE.replace("{side}", "fulfilled").replace(
        "return len", "return -1 + len"
    )
    r.write("manager.py", manager)
    merged = r.commit("one interceptor manager")
    history = symbol_history(r.path, "manager.py", "InterceptorManager.use")
    assert [(e.commit, e.changes) for e in history.commits] == [(merged, ("introduced",))]

    q = Repo(tmp_path / "q")
    q.write("api.py", "def get(url):\n    return url\n\n\n" + sides.split("\n\n\n")[0] + "\n")
    born = q.commit("request interceptors")
    q.write("api.py", "def get(url):\n    return url\n")
    q.write("manager.py", manager)
    moved = q.commit("an interceptor manager")
    history = symbol_history(q.path, "manager.py", "InterceptorManager.use")
    assert [e.commit for e in history.commits] == [moved, born]
    assert "move" in history.commits[0].changes
