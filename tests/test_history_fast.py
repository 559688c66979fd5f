"""The walk's step without a parse (`Walker.fast_step`): plain lines changed inside a body are
swapped back and compared as text. It must say what the parse says: each history below is
walked twice, with the fast step and without it, in real git repositories, with real
tree-sitter, and the two must be the same."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchors.history import symbol_history
from anchors.history_compare import Version, _composed
from anchors.history_lexical import code_of
from anchors.history_walk import Walker
from tests.test_history_patch_edits import _apply

# --------------------------------------------------------------------------- the lexer


@pytest.mark.parametrize(
    ("language", "lines", "code"),
    [
        ("python", [b"    x = 1  # one\n"], b"    x = 1  \n"),
        ("python", [b'    y = "a # b"\n'], b'    y = "a # b"\n'),
        ("python", [b"    # only a comment\n"], b"    \n"),
        ("javascript", [b"  x = 1; // one\n"], b"  x = 1; \n"),
        ("javascript", [b'  y = "a // b";\n'], b'  y = "a // b";\n'),
        ("go", [b"\ts := `raw \\`\n"], b"\ts := `raw \\`\n"),
        ("rust", [b"    let c = '{';\n"], b"    let c = '{';\n"),
        ("rust", [b"    fn f<'a>(s: &'a str) {}\n"], b"    fn f<'a>(s: &'a str) {}\n"),
        ("java", [b"    char c = '\\'';\n"], b"    char c = '\\'';\n"),
    ],
)
def test_plain_lines_read_as_their_code(language: str, lines: list[bytes], code: bytes) -> None:
    read = code_of(lines, language)
    assert read is not None
    assert read[0] == code


@pytest.mark.parametrize(
    ("language", "lines"),
    [
        ("python", [b'    s = """\n']),  # a string that goes on below
        ("python", [b"    s = 'open\n"]),
        ("javascript", [b"  /* a block comment */\n"]),
        ("javascript", [b"  s = `\n"]),  # a template that goes on below
        ("javascript", [b"  r = /'/;\n"]),  # a regular expression (a lone `/`)
        ("tsx", [b'  return <a href="x">http://example.com</a>;\n']),  # JSX text, not a comment
        ("rust", [b'    let r = r"raw";\n']),  # a raw string: no escapes in it
        ("rust", [b"    let c = '\n"]),
        ("c", [b"#if 0\n"]),  # the preprocessor
        ("java", [b'    String s = """\n']),  # a text block
        ("python", [b"    f(x,\n", b"      y]\n"]),  # brackets that do not pair
        ("ruby", [b"  x = 1\n"]),  # a language it does not read
    ],
)
def test_lines_that_need_the_parse_are_not_read(language: str, lines: list[bytes]) -> None:
    assert code_of(lines, language) is None


def test_brackets_left_open_or_closed_are_told() -> None:
    assert code_of([b"    if (a) {\n"], "javascript") == (b"    if (a) {\n", ((), (123,)))
    assert code_of([b"    }) + [\n"], "javascript") == (b"    }) + [\n", ((125, 41), (91,)))


# --------------------------------------------------------------------------- real histories


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(tmp: Path, name: str, versions: list[bytes]) -> Path:
    repo = tmp / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "T")
    _git(repo, "config", "user.email", "t@example.com")
    for n, text in enumerate(versions):
        (repo / name).write_bytes(text)
        _git(repo, "add", name)
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"v{n}")
    return repo


def _both_ways(
    monkeypatch: pytest.MonkeyPatch, repo: Path, name: str, symbol: str
) -> tuple[dict[str, object], dict[str, object], int]:
    """The history with the fast step and without it, and how many steps it took."""
    taken = [0]
    fast_step = Walker.fast_step

    def counted(self: Walker, *args: object) -> object:
        result = fast_step(self, *args)  # type: ignore[arg-type]
        if result is not None:
            taken[0] += 1
            # The version it made reads, parsed, as the symbol it says.
            made = result[1].found
            parsed = Version("", made.version.source, made.version.language)
            assert made.symbol in parsed.symbols, made.version.source.decode()
            # And the edits it would be parsed with, from the parsed version its chain goes
            # back to, make its text of that one's.
            composed = _composed(made.version)
            assert composed is not None
            root, edits = composed
            assert _apply(root.source, edits) == made.version.source
        return result

    with monkeypatch.context() as patch:
        patch.setattr(Walker, "fast_step", counted)
        fast = symbol_history(repo, name, symbol).to_dict()
    with monkeypatch.context() as patch:
        patch.setattr(Walker, "fast_step", lambda *args: None)
        slow = symbol_history(repo, name, symbol).to_dict()
    return fast, slow, taken[0]


def _kinds(history: dict[str, object]) -> list[list[str]]:
    commits = history["commits"]
    assert isinstance(commits, list)
    return [c["changes"] for c in commits]


def test_a_comment_and_a_body_change_inside_a_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = b"def f(x):\n    a = 1\n"
    tail = b"    return x\n\n\ndef g():\n    return 2\n"
    versions = [
        head + b"    b = 2\n" + tail,
        head + b"    b = 2  # why two\n" + tail,  # a comment only: no change
        head + b"    b = 3  # why two\n" + tail,  # code: a body change
        head + b"    b  =  3  # why two\n" + tail,  # whitespace only: no change
    ]
    repo = _repo(tmp_path, "m.py", versions)
    fast, slow, taken = _both_ways(monkeypatch, repo, "m.py", "f")
    assert fast == slow
    assert _kinds(fast) == [["body"], ["introduced"]]
    # Every step but the first, which checks that the function's lines parse alone.
    assert taken == 2


@pytest.mark.parametrize(
    ("name", "head", "lines", "tail", "kinds"),
    [
        # A line inside a docstring: its words are code, and `# 1` in it is no comment (read
        # alone, the line would be `step` and a comment, the same on both sides).
        ("m.py", b'def f(x):\n    """Doc.\n\n', (b"    step # 1\n", b"    step # 2\n"),
         b'    """\n    return x\n', [["body"], ["body"], ["introduced"]]),
        # A line inside a block comment: its words changed, the code did not.
        ("m.js", b"function f(x) {\n  /*\n", (b"  first\n", b"  second\n"),
         b"  */\n  return x;\n}\n", [["body"], ["introduced"]]),
    ],
)  # fmt: skip
def test_a_line_inside_a_string_or_comment_is_left_to_the_parse(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    head: bytes,
    lines: tuple[bytes, bytes],
    tail: bytes,
    kinds: list[list[str]],
) -> None:
    # The last commit changes a plain line: its step (the first, from the newest version)
    # checks that the function's lines parse alone; the step before it is the one in question.
    last = tail.replace(
        b"return x", b"x = 1;\n  return x" if name.endswith(".js") else b"x = 1\n    return x"
    )
    versions = [head + lines[0] + tail, head + lines[1] + tail, head + lines[1] + last]
    repo = _repo(tmp_path, name, versions)
    fast, slow, taken = _both_ways(monkeypatch, repo, name, "f")
    assert fast == slow
    assert _kinds(fast) == kinds
    assert taken == 0


# Lines of a body, whole statements (some over several lines, some with comments, strings or
# templates that hold comment openers), in families of variants: any sequence of them is valid
# code, and a commit changes one statement into another of its family (its code, only its
# comment or only its whitespace; the words of a string or comment over several lines; Python
# lines into another block with the same tokens) or adds or removes one.
_POOLS = {
    "python": (
        "m.py",
        b"def f(x):\n",
        b"    return x\n\n\ndef g():\n    return 1\n",
        [
            [b"    x = 1\n", b"    x = 2  # two\n", b"    x  =  1\n", b"    x = 1  # one\n"],
            [b'    y = "a # not a comment"\n', b'    y = "a # not, two"\n'],
            [b"    # a comment\n", b"    # another\n", b"\n"],
            [b"    z = f(x,\n          y)\n", b"    z = f(x,\n          y, 2)\n", b"    z = f(x,\n      y)\n"],
            [b'    s = """\n    x = 1\n    """\n', b'    s = """\n    x = 1  # one\n    """\n',
             b'    s = """\n    x = 2\n    """\n'],
            [b"    if x:\n        x = 1\n        y = 2\n", b"    if x:\n        x = 1\n    y = 2\n"],
            [b"    t = (1,\n    2)  # t\n", b"    t = (1,\n    3)  # t\n"],
        ],
    ),
    "javascript": (
        "m.js",
        b"function f(x) {\n",
        b"  return x;\n}\n\nfunction g() {\n  return 1;\n}\n",
        [
            [b"  x = 1;\n", b"  x = 2; // two\n", b"  x  =  1;\n", b"  x = 1; // one\n"],
            [b'  y = "a // not a comment";\n', b'  y = "a // not, two";\n'],
            [b"  // a comment\n", b"  // another\n", b"\n"],
            [b"  /*\n  x = 1;\n  */\n", b"  /*\n  x = 2; // two\n  */\n", b"  /*\n  x = 1; // one\n  */\n"],
            [b"  s = `\n  x = 1;\n  `;\n", b"  s = `\n  x = 1; // one\n  `;\n"],
            [b"  if (x) {\n    x = 1;\n  }\n", b"  if (x) {\n    x = 2;\n  }\n"],
            [b"  r = /a'b/.test(y);\n", b"  r = /a'c/.test(y);\n"],
            [b"  o = { k: [1, 2] }; // o\n", b"  o = { k: [1, 3] }; // o\n"],
        ],
    ),
    "go": (
        "m.go",
        b"package m\n\nfunc f(x int) int {\n",
        b"\treturn x\n}\n\nfunc g() int {\n\treturn 1\n}\n",
        [
            [b"\tx = 1\n", b"\tx = 2 // two\n", b"\tx  =  1\n", b"\tx = 1 // one\n"],
            [b"\ts := `\n\tx = 1\n\t`\n", b"\ts := `\n\tx = 1 // one\n\t`\n"],
            [b"\t/*\n\tx = 1\n\t*/\n", b"\t/*\n\tx = 2\n\t*/\n"],
            [b"\tif x > 0 {\n\t\tx = 1\n\t}\n", b"\tif x > 1 {\n\t\tx = 1\n\t}\n"],
            [b"\tr := '{'\n", b"\tr := '}'\n"],
        ],
    ),
    "rust": (
        "m.rs",
        b"fn f(x: i32) -> i32 {\n",
        b"    x\n}\n\nfn g() -> i32 {\n    1\n}\n",
        [
            [b"    let a = 1;\n", b"    let a = 2; // two\n", b"    let  a  =  1;\n", b"    let a = 1; // one\n"],
            [b"    let c = '{';\n", b"    let c = '}';\n"],
            [b"    let s: &'static str = \"a // b\";\n", b"    let s: &'static str = \"a // c\";\n"],
            [b'    let r = r"raw\\";\n', b'    let r = r"raw // x\\";\n'],
            [b'    let t = "\n    let a = 1;\n    ";\n', b'    let t = "\n    let a = 1; // one\n    ";\n'],
            [b"    /* block */\n", b"    /* other */\n"],
        ],
    ),
}  # fmt: skip
# A method of an `impl` beside its struct (whose line the walk may take for its qualifier's).
_POOLS["rust-impl"] = (
    "m.rs",
    b"struct S {\n    a: i32,\n}\n\nimpl S {\n    fn f(&self, x: i32) -> i32 {\n",
    b"        x\n    }\n}\n",
    [[b"".join(b"    " + line for line in v.splitlines(keepends=True)) for v in family]
     for family in _POOLS["rust"][3]],
)  # fmt: skip
_SYMBOLS = {"rust-impl": "S.f"}


def _statement(families: list[list[bytes]]) -> st.SearchStrategy[tuple[int, int]]:
    return st.integers(0, len(families) - 1).flatmap(
        lambda f: st.tuples(st.just(f), st.integers(0, len(families[f]) - 1))
    )


@pytest.mark.parametrize("language", sorted(_POOLS))
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_histories_read_the_same_with_and_without_the_fast_step(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    data: st.DataObject,
) -> None:
    name, head, tail, families = _POOLS[language]
    body = data.draw(st.lists(_statement(families), min_size=1, max_size=5))
    bodies = [list(body)]
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(body) - 1))
        change = data.draw(st.sampled_from(["variant", "variant", "add", "remove"]))
        if change == "variant":
            family = body[at][0]
            body[at] = (family, data.draw(st.integers(0, len(families[family]) - 1)))
        elif change == "add":
            body.insert(at, data.draw(_statement(families)))
        elif len(body) > 1:
            del body[at]
        bodies.append(list(body))
    versions = [head + b"".join(families[f][v] for f, v in lines) + tail for lines in bodies]
    repo = _repo(tmp_path_factory.mktemp(language.replace("-", "_")), name, versions)
    fast, slow, _ = _both_ways(monkeypatch, repo, name, _SYMBOLS.get(language, "f"))
    assert fast == slow
