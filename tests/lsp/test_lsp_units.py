"""The plain functions behind each feature, without JSON-RPC: markdown escaping, options, hover,
code lens titles, diagnostics, code actions, command arguments, the watcher's filter, and the
editors' command lists."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types

from anchors.record import Anchor, Evidence, Learning
from lsp_server import commands as names
from lsp_server.features import code_actions, code_lens, diagnostics, hover
from lsp_server.features.commands import BadArguments, one_object, span_field, text_field
from lsp_server.markdown import age, escape, escape_inline, short_sha
from lsp_server.options import Options, parse_options
from lsp_server.resolution import Resolution
from lsp_server.state import AnchorView, DocumentSnapshot, path_of_uri
from lsp_server.watcher import MemoryWatcher

ROOT = Path(__file__).resolve().parents[2]


def learning(ident: str, text: str = "Keep retries idempotent.", **fields: object) -> Learning:
    return Learning(
        id=ident, text=text, category="pattern", author="ada@example.com", author_name="Ada",
        recorded_at="2026-01-01T00:00:00.000Z", anchors=[Anchor(path="a.py", symbol="f", span=[3, 5], commit="a" * 40)],
        **fields,  # type: ignore[arg-type]
    )  # fmt: skip


def view(
    ident: str, verdict: str = "fresh", start: int = 3, end: int = 5, **fields: object
) -> AnchorView:
    rec = learning(ident, **fields)
    flagged = verdict == "stale"
    res = Resolution(verdict, start, end, "f", detail="body changed" if flagged else "",
                     commit="b" * 40 if flagged else "", author="Bob" if flagged else "")  # fmt: skip
    return AnchorView(rec, 0, rec.anchors[0], res)


def snapshot(*views: AnchorView) -> DocumentSnapshot:
    text = "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    pass\n"
    return DocumentSnapshot(
        uri="file:///r/a.py", version=1, rel="a.py", line_count=10, views=views, text=text
    )


# -- markdown ------------------------------------------------------------------------------------

ACTIVE = re.compile(r"(?<!\\)(\[|!\[|<[a-zA-Z/!]|`|\*|_|&[#a-zA-Z])")


@pytest.mark.parametrize(
    "text",
    [
        "[click](command:workbench.action.terminal.new)",
        "![x](https://evil.example/p.png)",
        "<img src=x onerror=alert(1)>",
        "<script>alert(1)</script>",
        "&lt;b&gt; and &#60;",
        "`code` *bold* _it_ ~~gone~~",
        "# Heading\n- item\n1. first\n> quote\n===",
        "    indented code block",
    ],
)
def test_escape_leaves_no_active_markdown(text: str) -> None:
    escaped = escape(text)
    assert not ACTIVE.search(escaped), escaped
    for line in escaped.split("\n"):
        assert not re.match(r"^(#|-|\+|=|>|\d+[.)]|\s{4})", line), line


@given(st.text(max_size=300))
def test_escape_never_leaves_an_unescaped_special(text: str) -> None:
    escaped = escape(text)
    # Every special character is preceded by a backslash that is not itself escaped.
    i = 0
    while i < len(escaped):
        ch = escaped[i]
        if ch == "\\":
            i += 2
            continue
        assert ch not in "[]<>`*_!|~&", (text, escaped)
        i += 1


def test_escape_shows_hidden_characters_and_cuts_long_text() -> None:
    assert escape("a\u202eb\u200bc") == "a\ufffdb\ufffdc"
    assert escape("x" * 5000, limit=100).endswith("…")
    assert escape_inline("two\nlines") == "two lines"
    assert short_sha("0123456789abcdef") == "`0123456`"
    assert short_sha("not a sha") == "not a sha"


def test_age() -> None:
    now = datetime(2026, 1, 4, tzinfo=timezone.utc)
    assert age("2026-01-01T00:00:00.000Z", now) == "3 days ago"
    assert age("2026-01-03T23:59:30Z", now) == "just now"
    assert age("garbage", now) == ""


# -- options -------------------------------------------------------------------------------------


def test_options_fall_back_to_defaults_with_a_message() -> None:
    options, problems = parse_options({"debounceMs": 120, "codeLens": False})
    assert options == Options(debounce_ms=120, code_lens=False) and problems == []
    options, problems = parse_options({"debounceMs": -5, "codeLens": "yes", "colour": 1})
    assert options == Options()
    assert len(problems) == 3 and "outside" in problems[0]
    assert parse_options("nope")[0] == Options()
    assert parse_options(None) == (Options(), [])


# -- hover ---------------------------------------------------------------------------------------


def test_hover_renders_learnings_on_the_innermost_symbol_newest_verified_first() -> None:
    old = view("01A", text="Older note.", updated_at="2026-01-02T00:00:00Z")
    new = view("01B", text="Newer <b>note</b>.", updated_at="2026-02-01T00:00:00Z",
               evidence=[Evidence("url", "https://x.example/[a](b)")])  # fmt: skip
    outer = view("01C", text="About the module.", start=1, end=10)
    result = hover.hover(snapshot(old, new, outer), types.Position(line=3, character=4))
    assert result is not None
    value = result.contents.value  # type: ignore[union-attr]
    assert value.index("Newer") < value.index("Older")
    assert "About the module" not in value
    assert "\\<b\\>" in value and "\\[a\\]\\(b\\)" in value
    assert hover.hover(snapshot(old), types.Position(line=0, character=0)) is None
    assert hover.hover(snapshot(old), types.Position(line=99, character=0)) is None


def test_hover_says_what_changed_and_who_changed_it() -> None:
    value = hover.render([view("01A", "stale")])
    assert "**stale**" in value and "body changed" in value and "`bbbbbbb` by Bob" in value


# -- code lens -----------------------------------------------------------------------------------


def test_code_lens_title_counts_learnings_and_flags() -> None:
    assert code_lens.title([view("01A")]) == "1 learning"
    assert (
        code_lens.title([view("01A", "stale"), view("01B"), view("01B")]) == "2 learnings · 1 stale"
    )
    snap = snapshot(view("01A", "stale"), view("01B"))
    lenses = code_lens.code_lenses(snap)
    assert len(lenses) == 1 and lenses[0].range.start.line == 2
    resolved = code_lens.resolve(snap, lenses[0])
    assert resolved.command is not None and resolved.command.title == "2 learnings · 1 stale"
    assert resolved.command.command == names.SHOW_LEARNINGS
    gone = code_lens.resolve(snapshot(), lenses[0])
    assert gone.command is not None and gone.command.command == ""


# -- diagnostics ---------------------------------------------------------------------------------


def test_one_diagnostic_per_flagged_learning_with_commit_and_author() -> None:
    orphan = AnchorView(
        learning("01O"), 0, learning("01O").anchors[0], Resolution("orphaned", 0, 0)
    )
    snap = snapshot(view("01A", "stale"), view("01B"), orphan)
    found = diagnostics.diagnostics(snap)
    assert [d.code for d in found] == ["stale", "orphaned"]
    stale, orphaned = found
    assert stale.range.start == types.Position(line=2, character=0)
    assert stale.severity == types.DiagnosticSeverity.Warning
    assert any("bbbbbbbbbb by Bob" in r.message for r in stale.related_information or [])
    assert stale.data == {"id": "01A", "index": 0, "verdict": "stale"}
    assert orphaned.range.start.line == 0 and "no longer in this file" in orphaned.message
    marked = view("01M", "fresh", status="stale", status_reason="the hook saw a change")
    assert [d.code for d in diagnostics.diagnostics(snapshot(marked))] == ["stale"]


def test_diagnostic_range_counts_utf16_columns() -> None:
    snap = DocumentSnapshot(uri="u", version=1, text="  def é😀():\n", line_count=2)
    rng = diagnostics.line_range(snap, 0)
    assert (rng.start.character, rng.end.character) == (2, 12)
    assert diagnostics.line_range(snap, 50).start.line == 1


# -- code actions --------------------------------------------------------------------------------


def test_code_actions_for_a_tether_diagnostic() -> None:
    moved_home = Anchor(path="b.py", symbol="f2", span=[1, 2])
    rec = learning("01A")
    stale = AnchorView(rec, 0, rec.anchors[0], Resolution("stale", 3, 5, "f", new_home=moved_home))
    snap = snapshot(stale)
    diag = diagnostics.diagnostics(snap)[0]
    titles = [a.title for a in code_actions.code_actions(snap, [diag])]
    assert titles == [
        "Still valid (01A)",
        "Invalidate… (01A)",
        "Re-anchor to b.py::f2",
        "Show history (01A)",
    ]
    other = types.Diagnostic(range=diag.range, message="x", source="pyright")
    assert code_actions.code_actions(snap, [other]) == []
    no_data = types.Diagnostic(range=diag.range, message=diag.message, source="tether")
    assert len(code_actions.code_actions(snap, [no_data])) == 4


# -- command arguments ---------------------------------------------------------------------------


def test_command_arguments() -> None:
    assert one_object(({"id": "x"},)) == {"id": "x"}
    assert one_object(("01ABC",), id_only=True) == {"id": "01ABC"}
    with pytest.raises(BadArguments):
        one_object(("01ABC",))
    with pytest.raises(BadArguments):
        one_object(({}, {}))
    with pytest.raises(BadArguments, match="non-empty"):
        text_field({"text": "   "}, "text")
    span = span_field(
        {"range": {"start": {"line": 5, "character": 0}, "end": {"line": 2, "character": 1}}}
    )
    assert (span.start_line, span.end_line) == (2, 5)
    assert span_field({"position": {"line": 1, "character": 2}}).empty
    for bad in (
        {},
        {"range": 3},
        {"position": {"line": -1, "character": 0}},
        {"position": {"line": True, "character": 0}},
    ):
        with pytest.raises(BadArguments):
            span_field(bad)


def test_path_of_uri() -> None:
    assert path_of_uri("file:///tmp/a%20b.py") == Path("/tmp/a b.py")
    assert path_of_uri("untitled:Untitled-1") is None


def test_watcher_only_cares_about_partitions_and_stores(tmp_path: Path) -> None:
    watcher = MemoryWatcher(tmp_path, tmp_path / ".git" / "tether", lambda root: None)
    assert watcher.relevant(str(tmp_path / ".git/tether/ops/ada@example.com.jsonl"))
    assert not watcher.relevant(str(tmp_path / ".git/tether/index.sqlite"))
    assert not watcher.relevant(str(tmp_path / ".git/tether/index.sqlite-journal"))
    assert watcher.relevant(str(tmp_path / ".tether/BLUEPRINT.md"))
    assert not watcher.relevant(str(tmp_path / "src/pay.py"))


# -- editors agree with the server ---------------------------------------------------------------


def test_vscode_extension_knows_every_server_command() -> None:
    source = (ROOT / "editors/vscode/src/serverCommands.ts").read_text()
    block = source.split("SERVER_COMMANDS = {", 1)[1].split("}", 1)[0]
    assert sorted(re.findall(r'"(tether\.[A-Za-z]+)"', block)) == sorted(names.ALL)
    package = json.loads((ROOT / "editors/vscode/package.json").read_text())
    contributed = {c["command"] for c in package["contributes"]["commands"]}
    assert not contributed & set(names.ALL), "client commands must not shadow server commands"
    assert set(package["contributes"]["configuration"]["properties"]) == {
        "tether.server.command", "tether.server.args", "tether.trace.server",
    }  # fmt: skip


def test_nvim_plugin_handles_the_commands_meant_for_people() -> None:
    source = (ROOT / "editors/nvim/lua/tether/init.lua").read_text()
    for name in (
        names.SHOW_LEARNINGS,
        names.SHOW_HISTORY,
        names.INVALIDATE,
        names.ADD,
        names.STALE_CHECK,
    ):
        assert f"'{name}'" in source


def test_docs_name_every_command() -> None:
    docs = (ROOT / "docs/lsp.md").read_text()
    for name in names.ALL:
        assert f"`{name}`" in docs, name
    for command in (":TetherAdd", ":TetherStale", ":TetherHistory", ":checkhealth tether"):
        assert command in docs


SAMPLES = {
    "python": "import os\n\nclass A:\n    @staticmethod\n    def f(x, y=2):\n        if x:\n            return y  # c\n        return [i for i in range(x)]\n\n\ndef g():\n    '''doc'''\n    pass\n",
    "javascript": "class A {\n  f(x) { return x + 1; } // c\n}\nconst g = (a) => { /* c */ return a * 2; };\nfunction h() { return `t${1}`; }\n",
    "typescript": "interface I { a: number }\nclass C implements I {\n  a = 1;\n  m(x: number): number { return x; }\n}\nfunction f<T>(x: T): T { return x; }\n",
    "go": "package p\n\ntype S struct{ a int }\n\nfunc (s *S) M(x int) int {\n\t// c\n\treturn s.a + x\n}\n\nfunc F() {}\n",
    "rust": "struct S;\nimpl S {\n    fn m(&self) -> i32 { /* c */ 1 }\n}\nmod m { fn f() {} }\n",
    "java": "class A {\n  int f(int x) { return x; } // c\n  class B { void g() {} }\n}\n",
    "c": "int f(int x) {\n  /* c */\n  return x;\n}\nstruct s { int a; };\n",
    "cpp": "namespace n {\nclass C {\n  int m() { return 1; }\n};\n}\nint C::k() { return 2; }\n",
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_windowed_fingerprints_equal_the_whole_file_ones(language: str) -> None:
    """The server's per-symbol token windows must fingerprint exactly as the symbol index does,
    or every anchor would look stale in the editor."""
    from anchors.languages import SUPPORTED, parser_for
    from anchors.symbols import symbols_from_tree
    from lsp_server.token_window import windowed

    source = SAMPLES[language].encode()
    tree = parser_for(language).parse(source)
    whole = symbols_from_tree(tree, source, language)
    assert whole, language
    for a, b in zip(whole, windowed(whole, tree, source, SUPPORTED[language]), strict=True):
        assert (a.signature_fp, a.body_fp) == (b.signature_fp, b.body_fp), a.name
        assert a.body_tokens() == b.body_tokens(), a.name
