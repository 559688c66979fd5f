"""The symbol index: qualified names, kinds and spans for every supported language (real tree-sitter)."""

from __future__ import annotations

import pytest

from anchors.languages import SUPPORTED, language_for_path, parser_for
from anchors.symbols import extract_symbols

SAMPLES: dict[str, tuple[str, dict[str, str]]] = {
    "python": (
        """import os

@decorator
def top(x):
    \"\"\"Doc.\"\"\"
    def inner(y):
        return y
    return inner(x)  # comment

class A(Base):
    def m(self):
        pass
    if X:
        def cond(self): pass
    class B:
        async def n(self): ...
""",
        {"top": "function", "top.inner": "function", "A": "class", "A.m": "method",
         "A.cond": "method", "A.B": "class", "A.B.n": "method"},
    ),
    "typescript": (
        """export function f(a: number): number { return a }
const g = (x) => { return x * 2 }
class C<T> extends D {
  private x = 1;
  handler = () => { this.x++ }
  method(a: string): void { function nested() {} }
}
interface I { m(x: number): void; p: string }
type T = { a: 1 }
enum E { A, B }
namespace NS { export function inNs() {} }
const api = { get() { return 1 }, post: function() {} }
""",
        {"f": "function", "g": "function", "C": "class", "C.handler": "method",
         "C.method": "method", "C.method.nested": "function", "I": "interface", "I.m": "method",
         "T": "type", "E": "enum", "NS": "module", "NS.inNs": "function", "api.get": "method",
         "api.post": "method"},
    ),
    "tsx": (
        "const Comp = () => <div>hi</div>;\nexport class View { render() { return <p/> } }\n",
        {"Comp": "function", "View": "class", "View.render": "method"},
    ),
    "javascript": (
        "function f(a) { return a }\nconst g = (x) => x * 2\n"
        "class C extends D { static s() {} #priv() {} field = () => 1 }\n",
        {"f": "function", "g": "function", "C": "class", "C.s": "method", "C.#priv": "method",
         "C.field": "method"},
    ),
    "go": (
        """package main
type S struct { a int }
type I interface { M() }
type N int
func F(x int) int { return x }
func (s *S) M() {}
func (g Gen[T]) G() {}
""",
        {"S": "struct", "I": "interface", "N": "type", "F": "function", "S.M": "method",
         "Gen.G": "method"},
    ),
    "rust": (
        """struct P { x: i32 }
enum E { A }
trait T { fn req(&self); fn def(&self) {} }
impl P { pub fn new() -> Self { P { x: 1 } } }
impl T for P { fn req(&self) {} }
mod m { pub fn inner() {} }
fn free() {}
""",
        {"P": "struct", "E": "enum", "T": "trait", "T.req": "method", "T.def": "method",
         "impl P": "impl", "P.new": "method", "impl T for P": "impl", "P.req": "method",
         "m": "module", "m.inner": "function", "free": "function"},
    ),
    "java": (
        """package x;
public class A extends B {
  public A() {}
  @Override public void m(int a) {}
  void m(String s) {}
  static class Inner { void im() {} }
  enum E { X; void em() {} }
}
""",
        {"A": "class", "A.A": "method", "A.m": "method", "A.m~2": "method",
         "A.Inner": "class", "A.Inner.im": "method", "A.E": "enum", "A.E.em": "method"},
    ),
    "c": (
        """struct s { int a; };
typedef struct { int b; } T;
static int *f(int x) { return 0; }
#ifdef X
void g(void) {}
#endif
""",
        {"s": "struct", "T": "struct", "f": "function", "g": "function"},
    ),
    "cpp": (
        """namespace n { class C { public: void m() {} int k(); }; }
void n::C::k() {}
template<typename T> T mx(T a) { return a; }
extern "C" { int q() { return 1; } }
""",
        {"n": "module", "n.C": "class", "n.C.m": "method", "n.C.k": "method",
         "mx": "function", "q": "function"},
    ),
}  # fmt: skip


def test_every_supported_language_has_a_sample() -> None:
    assert set(SAMPLES) == set(SUPPORTED)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_qualified_names_and_kinds(language: str) -> None:
    source, expected = SAMPLES[language]
    found = {s.name: s.kind for s in extract_symbols(source.encode(), language)}
    assert found == expected


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_spans_cover_their_declaration(language: str) -> None:
    source, _ = SAMPLES[language]
    data = source.encode()
    lines = source.splitlines()
    for symbol in extract_symbols(data, language):
        assert 1 <= symbol.start_line <= symbol.end_line <= len(lines)
        text = data[symbol.start_byte : symbol.end_byte].decode()
        assert symbol.short_name in text
        assert symbol.signature and symbol.signature.split()[0] in text


def test_python_span_includes_decorators_and_lines_are_one_based() -> None:
    source, _ = SAMPLES["python"]
    top = next(s for s in extract_symbols(source.encode(), "python") if s.name == "top")
    assert (top.start_line, top.end_line) == (3, 8)
    assert top.signature == "@decorator def top(x):"


def test_language_for_path() -> None:
    assert language_for_path("a/b.py") == "python"
    assert language_for_path("x.TSX") == "tsx"
    assert language_for_path("lib.rs") == "rust"
    # (postcss's sources were `.es6` from 2015 to 2020, between two lives as `.js`.)
    assert language_for_path("lib/container.es6") == "javascript"
    assert language_for_path("k.h") == "cpp"  # C++ headers are mostly `.h`
    assert language_for_path("k.c") == "c"
    assert language_for_path("k.hpp") == "cpp"
    assert language_for_path("README.md") is None
    assert language_for_path("Makefile") is None
    assert parser_for("go") is parser_for("go")


@pytest.mark.parametrize(
    "language,source,intact",
    [
        ("python", "def ok():\n    return 1\n\ndef broken(:\n    pass\n\ndef fine():\n    return 2\n", {"ok", "fine"}),
        ("javascript", "function ok() { return 1 }\nfunction broken( { \nfunction fine() { return 2 }\n", {"ok"}),
        ("go", "package m\nfunc ok() int { return 1 }\nfunc broken( {\n", {"ok"}),
        ("rust", "fn ok() -> i32 { 1 }\nfn broken( {\n", {"ok"}),
        ("java", "class A { void ok() { } void broken( { }\n", {"A"}),
    ],
)  # fmt: skip
def test_syntax_errors_keep_intact_symbols(language: str, source: str, intact: set[str]) -> None:
    names = {s.name for s in extract_symbols(source.encode(), language)}
    assert intact <= names
