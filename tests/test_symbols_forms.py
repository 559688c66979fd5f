"""Definition forms of real code and the names the index gives them (real tree-sitter).

Each case is a snippet written the way the form appears in public code (Express, jQuery, Zod,
Gson, LevelDB, fmt, jq, mypy style), with the qualified names and kinds it must yield.
"""

from __future__ import annotations

import pytest

from anchors.languages import language_for_path, parser_for
from anchors.outline import JavaOutliner, cpp_name_parts
from anchors.symbols import Symbol, alias_key, extract_symbols, find_symbol


def names(source: str, language: str) -> dict[str, str]:
    return {s.name: s.kind for s in extract_symbols(source.encode(), language)}


def by_name(source: str, language: str) -> dict[str, Symbol]:
    return {s.name: s for s in extract_symbols(source.encode(), language)}


# (id, language, source, expected name -> kind)
FORMS: list[tuple[str, str, str, dict[str, str]]] = [
    # -- JavaScript / TypeScript: assignments --------------------------------------------------
    ("js-member-function", "javascript",
     "app.handle = function handle(req, res, callback) {\n  return 1\n}\n",
     {"app.handle": "method"}),
    ("js-prototype", "javascript",
     "function Router(options) {}\nRouter.prototype.route = function route(path) {\n  return path\n}\n",
     {"Router": "function", "Router.route": "method"}),
    ("js-prototype-object", "javascript",
     "Foo.prototype = {\n  constructor: Foo,\n  get: function (k) { return k },\n  set(k, v) {}\n}\n",
     {"Foo.get": "method", "Foo.set": "method"}),
    ("js-exports", "javascript",
     "exports.parse = function (str) { return str }\nmodule.exports.serialize = (obj) => String(obj)\n"
     "exports.etag = createETagGenerator({ weak: false })\n",
     {"exports.parse": "function", "exports.serialize": "function", "exports.etag": "function"}),
    ("js-module-exports-named", "javascript",
     "module.exports = function createServer(opts) {\n  return opts\n}\n",
     {"createServer": "function"}),
    ("js-module-exports-anonymous", "javascript",
     "module.exports = function (opts) {\n  return opts\n}\n",
     {"module.exports": "function"}),
    ("js-module-exports-object", "javascript",
     "module.exports = {\n  start() {},\n  stop: function () {},\n  nested: { deep: () => 1 }\n}\n",
     {"exports.start": "method", "exports.stop": "method", "exports.nested.deep": "method"}),
    ("js-chained-assignment", "javascript",
     "res.contentType =\nres.type = function contentType(type) {\n  return this\n}\n",
     {"res.contentType": "method", "res.type": "method"}),
    ("js-declared-and-exported", "javascript",
     "var each = exports.each = function (fn) {\n  return this\n}\n"
     "var app = module.exports = function (opts) {\n  return opts\n}\n",
     {"exports.each": "function", "app": "function"}),
    ("js-this-in-constructor-function", "javascript",
     "function Queue() {\n  this.push = function (x) {}\n}\n",
     {"Queue": "function", "Queue.push": "method"}),
    ("js-string-key-and-computed", "javascript",
     "obj['quoted'] = function () {}\napp[method] = function () {}\n",
     {"obj.quoted": "method"}),
    ("js-plain-reassignment", "javascript",
     "var handler;\nhandler = async () => {}\n",
     {"handler": "function"}),
    # -- JavaScript / TypeScript: variables, objects, wrappers ---------------------------------
    ("js-const-function-and-arrow", "javascript",
     "const a = function () {}\nlet b = async (x) => x\nvar c = function* gen() {}\n",
     {"a": "function", "b": "function", "c": "function"}),
    ("js-object-literal-methods", "javascript",
     "const api = {\n  get(url) {},\n  post: function (url) {},\n  'delete': async () => {}\n}\n",
     {"api.get": "method", "api.post": "method", "api.delete": "method"}),
    ("js-object-in-call", "javascript",
     "jQuery.extend({\n  each: function (obj, cb) {},\n  isReady: false\n})\n",
     {"each": "method"}),
    ("js-pair-with-call-value", "javascript",
     "jQuery.event = {\n  special: jQuery.extend(Object.create(null), {\n"
     "    click: { setup: function (data) {} }\n  })\n}\n",
     {"jQuery.event.special.click.setup": "method"}),
    ("js-module-pattern", "javascript",
     "var Counter = (function () {\n  function increment() {}\n"
     "  return { next: function () { return increment() } }\n})()\n",
     {"Counter.increment": "function", "Counter.next": "method"}),
    ("js-iife", "javascript",
     "(function (root) {\n  function helper() {}\n  root.Lib.prototype.run = function () {}\n})(this)\n"
     "!function () { function banged() {} }()\n",
     {"helper": "function", "root.Lib.run": "method", "banged": "function"}),
    ("js-iife-call-apply", "javascript",
     "(function () {\n  var _ = {}\n  _.omit = function (obj) {}\n}.call(this));\n"
     "(function () {\n  function applied() {}\n}).apply(root)\n"
     "widget.call(function () { function notRun() {} })\n",
     {"_.omit": "method", "applied": "function"}),
    # A UMD bundle passes its factory in parentheses (Underscore's underscore-umd.js).
    ("js-umd-factory", "javascript",
     "(function (global, factory) {\n  module.exports = factory()\n}(this, (function () {\n"
     "  function each(obj, iteratee) {\n    return obj\n  }\n  return { each: each }\n})));\n",
     {"each": "function"}),
    ("js-amd-define-callback", "javascript",
     "define(['jquery'], function ($) {\n  function plugin(options) {}\n  return plugin\n})\n",
     {"plugin": "function"}),
    ("js-test-callbacks", "javascript",
     "describe('router', function () {\n  function fn1(req, res, next) {}\n"
     "  it('works', () => {\n    const local = (x) => x\n  })\n})\n",
     {"fn1": "function", "local": "function"}),
    ("js-factory-return-object", "javascript",
     "function cached(getter) {\n  return {\n    get value() { return getter() }\n  }\n}\n",
     {"cached": "function", "cached.value": "method"}),
    # A named function returned by a factory is the factory's (pinia's `return function
    # useStore() {...}` in `defineStore`, later declared and then returned).
    ("js-returned-named-function", "javascript",
     "function defineStore(id) {\n  return function useStore(pinia) {\n    return pinia\n  }\n}\n",
     {"defineStore": "function", "defineStore.useStore": "function"}),
    ("js-wrapped-function", "javascript",
     "const Button = React.memo(React.forwardRef((props, ref) => {\n  return null\n}))\n"
     "function Form() {\n  const onSubmit = useCallback(() => {}, [])\n"
     "  const doubled = items.map((x) => x * 2)\n}\n",
     {"Button": "function", "Form": "function", "Form.onSubmit": "function"}),
    ("js-export-default", "javascript",
     "export default {\n  data() { return {} },\n  methods: { save() {} }\n}\n",
     {"data": "method", "methods.save": "method"}),
    ("js-export-default-anonymous", "javascript",
     "export default function () {}\n",
     {"default": "function"}),
    ("js-class-fields", "javascript",
     "class A {\n  handle = () => {}\n  static create = function () {}\n  #secret() {}\n"
     "  get size() { return 0 }\n}\n",
     {"A": "class", "A.handle": "method", "A.create": "method", "A.#secret": "method",
      "A.size": "method"}),
    ("js-nested-in-blocks", "javascript",
     "function outer() {\n  if (x) {\n    function inIf() {}\n  }\n  try {\n"
     "    const inTry = () => 1\n  } catch (e) {}\n}\n",
     {"outer": "function", "outer.inIf": "function", "outer.inTry": "function"}),
    ("ts-overloads", "typescript",
     "export function parse(a: string): number;\nexport function parse(a: number): number;\n"
     "export function parse(a: any): number {\n  return 1\n}\n",
     {"parse": "function"}),
    ("ts-method-overloads", "typescript",
     "class Conn {\n  on(e: 'a'): void;\n  on(e: 'b'): void;\n  on(e: string): void {}\n}\n",
     {"Conn": "class", "Conn.on": "method"}),
    ("ts-signatures-without-body", "typescript",
     "interface Api {\n  get(k: string): void;\n  get(k: number): void;\n}\n"
     "declare function ext(a: string): void;\n",
     {"Api": "interface", "Api.get": "method", "Api.get~2": "method", "ext": "function"}),
    ("ts-abstract-and-namespace", "typescript",
     "export abstract class Shape {\n  abstract area(): number;\n  describe() { return 1 }\n}\n"
     "namespace Geo.Util {\n  export function dist() {}\n}\n",
     {"Shape": "class", "Shape.area": "method", "Shape.describe": "method",
      "Geo.Util": "module", "Geo.Util.dist": "function"}),
    ("ts-typed-arrow-const", "typescript",
     "const handler: Handler = async (req, res) => {}\n"
     "const pick = cond ? (x: number) => x : undefined\n",
     {"handler": "function", "pick": "function"}),
    # -- Python ----------------------------------------------------------------------------------
    ("py-nested-in-blocks", "python",
     "def outer():\n    if X:\n        def a(): pass\n    with ctx:\n        class Local:\n"
     "            def m(self): pass\n    for i in z:\n        try:\n            def b(): pass\n"
     "        except E:\n            pass\n    match v:\n        case 1:\n            def c(): pass\n",
     {"outer": "function", "outer.a": "function", "outer.Local": "class",
      "outer.Local.m": "method", "outer.b": "function", "outer.c": "function"}),
    ("py-async-decorated-properties", "python",
     "@app.get('/')\nasync def index():\n    pass\nclass K:\n    @property\n    def p(self): ...\n"
     "    @p.setter\n    def p(self, v): ...\n",
     {"index": "function", "K": "class", "K.p": "method", "K.p~2": "method"}),
    # -- Go ----------------------------------------------------------------------------------------
    ("go-receivers-and-generics", "go",
     "package m\nfunc (s *Stack[T]) Push(v T) {}\nfunc (p Pair[K, V]) Key() K { return p.k }\n"
     "func Map[T, U any](xs []T, f func(T) U) []U { return nil }\n",
     {"Stack.Push": "method", "Pair.Key": "method", "Map": "function"}),
    ("go-func-variables", "go",
     "package m\nvar handler = func(w int) {}\nvar (\n\tlate = func() {}\n\tn int\n)\n",
     {"handler": "function", "late": "function"}),
    # -- Rust --------------------------------------------------------------------------------------
    ("rust-trait-impls", "rust",
     "impl<T: Display> fmt::Display for Wrapper<T> {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n}\n"
     "impl<'a> Iterator for Iter<'a> {\n    type Item = u8;\n    fn next(&mut self) -> Option<u8> { None }\n}\n"
     "extern \"C\" {\n    fn c_abs(x: i32) -> i32;\n}\n",
     {"impl fmt::Display for Wrapper<T>": "impl", "Wrapper.fmt": "method",
      "impl Iterator for Iter<'a>": "impl", "Iter.Item": "type", "Iter.next": "method",
      "c_abs": "function"}),
    ("rust-test-module", "rust",
     "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn it_works() {}\n}\n",
     {"tests": "module", "tests.it_works": "function"}),
    # -- Java --------------------------------------------------------------------------------------
    ("java-anonymous-in-field", "java",
     "class Outer {\n  static final Comparator<String> CMP = new Comparator<String>() {\n"
     "    @Override public int compare(String a, String b) { return 0; }\n  };\n}\n",
     {"Outer": "class", "Outer.CMP.compare": "method"}),
    ("java-interface-constant", "java",
     "interface Filter {\n  Filter ALLOW = new Filter() {\n    public boolean check(Object o) { return true; }\n"
     "  };\n  boolean check(Object o);\n  default Filter negate() { return null; }\n}\n",
     {"Filter": "interface", "Filter.ALLOW.check": "method", "Filter.check": "method",
      "Filter.negate": "method"}),
    ("java-enum-constant-bodies", "java",
     "enum Op {\n  PLUS { int apply(int a, int b) { return a + b; } },\n  MINUS;\n"
     "  int apply(int a, int b) { return 0; }\n}\n",
     {"Op": "enum", "Op.PLUS.apply": "method", "Op.apply": "method"}),
    ("java-local-class-and-record", "java",
     "class T {\n  void test() {\n    class Local { void lm() {} }\n    record R(int x) { int twice() { return x; } }\n"
     "  }\n}\n",
     {"T": "class", "T.test": "method", "T.test.Local": "class", "T.test.Local.lm": "method",
      "T.test.R": "class", "T.test.R.twice": "method"}),
    ("java-records-nested-constructors", "java",
     "public class Outer {\n  record P(int x) {\n    P {\n      if (x < 0) throw new IllegalArgumentException();\n    }\n  }\n"
     "  static class Inner {\n    Inner() {}\n    Inner(int a) {}\n    void m() {}\n  }\n}\n",
     {"Outer": "class", "Outer.P": "class", "Outer.P.P": "method", "Outer.Inner": "class",
      "Outer.Inner.Inner": "method", "Outer.Inner.Inner~2": "method", "Outer.Inner.m": "method"}),
    # -- C / C++ -----------------------------------------------------------------------------------
    ("cpp-out-of-class", "cpp",
     "namespace leveldb {\nStatus DBImpl::Write(const WriteOptions& o, WriteBatch* b) { return Status(); }\n"
     "DBImpl::~DBImpl() {}\n}\n"
     "template <typename T> void Foo<T>::bar() {}\n"
     "std::ostream& operator<<(std::ostream& os, const Slice& s) { return os; }\n",
     {"leveldb": "module", "leveldb.DBImpl.Write": "method", "leveldb.DBImpl.~DBImpl": "method",
      "Foo.bar": "method", "operator<<": "function"}),
    ("cpp-export-macro-and-nested-class", "cpp",
     "class LEVELDB_EXPORT Status {\n public:\n  Status() noexcept : state_(nullptr) {}\n"
     "  int code() const { return 1; }\n};\n"
     "class Env {\n  class Writer : public File {\n    void Sync() override {}\n  };\n};\n",
     {"Status": "class", "Status.code": "method", "Env": "class", "Env.Writer": "class",
      "Env.Writer.Sync": "method"}),
    ("cpp-local-class-and-macro-namespace", "cpp",
     "FMT_END_EXPORT\n\nnamespace detail {\nint f() { return 1; }\n}\n"
     "class SpecialEnv : public EnvWrapper {\n  Status NewWritableFile(const std::string& f) {\n"
     "    class DataFile : public WritableFile {\n     public:\n"
     "      Status Sync() override { return Status::OK(); }\n    };\n    return Status::OK();\n  }\n};\n",
     {"detail": "module", "detail.f": "function", "SpecialEnv.NewWritableFile": "method",
      "SpecialEnv.NewWritableFile.DataFile": "class",
      "SpecialEnv.NewWritableFile.DataFile.Sync": "method"}),
    ("c-macro-parameter-list", "c",
     "void\nbase64_stream_encode_plain BASE64_ENC_PARAMS\n{\n  return;\n}\n"
     "void g(void) { struct stat st; struct P { int x; } p; }\n",
     {"base64_stream_encode_plain": "function", "g": "function", "g.P": "struct"}),
    ("cpp-gtest", "cpp",
     "TEST(printf_test, basic) { EXPECT_EQ(1, 1); }\nTEST_F(DBTest, Empty) {}\n",
     {"printf_test.basic": "function", "DBTest.Empty": "function"}),
    ("c-after-preprocessor-error", "c",
     "#ifdef HAVE_ALLOCA_H\n# include <alloca.h>\n#elif !defined alloca\n# ifdef __GNUC__\n"
     "#  define alloca __builtin_alloca\n# endif\n#endif\n"
     "static int helper(const char *s\n#ifdef WIN32\n, int w\n#endif\n) { return 0; }\n"
     "jv expand_path(jv path) {\n  return path;\n}\n",
     {"expand_path": "function"}),
]  # fmt: skip


@pytest.mark.parametrize(
    "language,source,expected", [f[1:] for f in FORMS], ids=[f[0] for f in FORMS]
)
def test_form_names_and_kinds(language: str, source: str, expected: dict[str, str]) -> None:
    found = names(source, language)
    missing = {n: k for n, k in expected.items() if found.get(n) != k}
    assert not missing, f"missing or wrong kind: {missing}; found {found}"


@pytest.mark.parametrize(
    "language,source,absent",
    [
        # A computed property names nothing stable.
        ("javascript", "app[method] = function () {}\n", {"app.method", "method"}),
        # Inside a function, a call through a member (`items.map`) is not a definition.
        ("javascript", "function f() { const doubled = items.map((x) => x * 2) }\n", {"f.doubled"}),
        # Object-literal data is not a definition; only function values are.
        ("javascript", "const config = { port: 80, name: 'x' }\n", {"config.port", "config.name"}),
        # Callback bodies without a definition are not entered (test files are mostly these).
        ("javascript", "it('x', () => { expect(f({ cb() {} })).toBe(1) })\n", {"cb"}),
        # TypeScript overload signatures are part of the implementation, not symbols of their own.
        ("typescript", "function p(a: string): void;\nfunction p(a: any) {}\n", {"p~2"}),
    ],
)
def test_forms_that_are_not_definitions(language: str, source: str, absent: set[str]) -> None:
    assert not absent & set(names(source, language))


ANONYMOUS_IN_METHOD = (
    "class Outer {\n  void start() {\n    executor.submit(new Runnable() {\n"
    "      public void run() {}\n    });\n    class Local { void lm() {} }\n  }\n}\n"
)


def test_anonymous_classes_in_methods_are_named_through_the_method() -> None:
    found = names(ANONYMOUS_IN_METHOD, "java")
    assert found["Outer.start.run"] == "method"
    assert found["Outer.start.Local.lm"] == "method"


def test_anonymous_classes_in_methods_can_be_turned_off() -> None:
    class Off(JavaOutliner):
        anonymous_in_methods = False

    source = ANONYMOUS_IN_METHOD.encode()
    tree = parser_for("java").parse(source)
    found = {d.name: d.kind for d in Off(source).outline(tree.root_node)}
    assert "Outer.start.run" not in found
    assert found["Outer.start.Local.lm"] == "method"  # local classes stay


def test_overload_signatures_start_the_implementations_span() -> None:
    source = (
        "// parse a value\n"
        "export function parse(a: string): number;\n"
        "export function parse(a: number): number;\n"
        "export function parse(a: any): number {\n"
        "  return 1\n"
        "}\n"
    )
    parse = by_name(source, "typescript")["parse"]
    assert (parse.start_line, parse.end_line) == (2, 6)
    # An edit to an overload signature is a signature change of the implementation.
    assert "parse(a: string)" in parse.signature


def test_chained_assignment_names_share_the_span() -> None:
    source = "res.contentType =\nres.type = function contentType(type) {\n  return this\n}\n"
    found = by_name(source, "javascript")
    first, second = found["res.contentType"], found["res.type"]
    assert (first.start_line, first.end_line) == (second.start_line, second.end_line) == (1, 4)
    assert first.body_fp == second.body_fp


def test_chained_assignment_of_a_wrapped_function_names_every_target() -> None:
    """Underscore's `_.reduce = _.foldl = _.inject = wrapReduce(function (...) {...}, 1)`: the
    three names of the one function, as when it was assigned bare."""
    source = (
        "_.reduce = _.foldl = _.inject = wrapReduce(function (obj, memo) {\n  return memo\n}, 1)\n"
    )
    found = by_name(source, "javascript")
    assert {"_.reduce", "_.foldl", "_.inject"} <= set(found)
    assert found["_.reduce"].body_fp == found["_.foldl"].body_fp == found["_.inject"].body_fp


def test_prototype_method_and_class_method_have_the_same_name() -> None:
    """Rewriting `Foo.prototype.bar = function` as a class keeps the name `Foo.bar`."""
    before = names(
        "function Foo() {}\nFoo.prototype.bar = function (x) { return x }\n", "javascript"
    )
    after = names("class Foo {\n  bar(x) { return x }\n}\n", "javascript")
    assert before["Foo.bar"] == after["Foo.bar"] == "method"


def test_headers_are_read_as_cpp() -> None:
    assert language_for_path("include/leveldb/db.h") == "cpp"
    assert language_for_path("src/jv.c") == "c"
    # A C header reads the same under the C++ grammar.
    header = (
        "typedef struct jv { int kind; } jv;\nstatic inline int jv_kind(jv x) { return x.kind; }\n"
    )
    assert names(header, "cpp") == names(header, "c") == {"jv": "struct", "jv_kind": "function"}


def test_cpp_name_parts() -> None:
    assert cpp_name_parts("ns::Foo<T>::bar") == ["ns", "Foo", "bar"]
    assert cpp_name_parts("formatter<std::string>") == ["formatter<std::string>"]
    assert cpp_name_parts("Foo::operator<<") == ["Foo", "operator<<"]
    assert cpp_name_parts("::global") == ["global"]


def test_destructor_short_name_keeps_its_tilde() -> None:
    found = by_name("class A { ~A() {} void f() {} void f(int) {} };\n", "cpp")
    assert found["A.~A"].short_name == "~A"
    assert found["A.f~2"].short_name == "f"


@pytest.mark.parametrize(
    "language,source,spelling,expected",
    [
        ("cpp", "namespace n { class C { void m() {} }; }", "n::C::m", "n.C.m"),
        ("java", "class A { void m(int a) {} }", "A#m", "A.m"),
        ("javascript", "Foo.prototype.bar = function () {}", "Foo.prototype.bar", "Foo.bar"),
        ("javascript", "exports.x = () => 1", "x", "exports.x"),
        ("javascript", "exports.x = () => 1", "module.exports.x", "exports.x"),
        ("go", "package m\nfunc (s *S) M() {}\n", "(*S).M", "S.M"),
        ("python", "class K:\n    def run(self): pass\n", "K.run()", "K.run"),
        # Overloads by parameter types: generics, `final` and packages do not count.
        ("java", "class A {\n  void m(int a) {}\n  void m(final java.util.List<String> xs, String... r) {}\n  void m() {}\n}\n",
         "A.m(List, String[])", "A.m~2"),
        ("java", "class A {\n  void m(int a) {}\n  void m() {}\n}\n", "A.m()", "A.m~2"),
        ("java", "class A {\n  void m(int a) {}\n  void m(String s) {}\n}\n", "A.m(String)", "A.m~2"),
        ("cpp", "class C {\n  void m(int x) {}\n  void m(const std::string& s) {}\n};\n", "C::m(std::string)", "C.m~2"),
    ],
)  # fmt: skip
def test_find_symbol_accepts_other_spellings(
    language: str, source: str, spelling: str, expected: str
) -> None:
    symbols = extract_symbols(source.encode(), language)
    found = find_symbol(symbols, spelling)
    assert found is not None and found.name == expected


def test_find_symbol_refuses_what_is_not_there() -> None:
    symbols = extract_symbols(b"class A {\n  void m(int a) {}\n}\n", "java")
    assert find_symbol(symbols, "A.m(double)") is None
    assert find_symbol(symbols, "A.n") is None
    assert find_symbol(symbols, "A.m") is not None
    assert alias_key("Foo.prototype.bar") == ("Foo.bar", None)
    assert alias_key("A.m(int, String)") == ("A.m", ("int", "String"))


def test_symbols_carry_every_field() -> None:
    """Symbols are built by filling their dict (see `_make_symbol`): none may be left out."""
    symbol = extract_symbols(b"def f():\n    pass\n", "python")[0]
    fields = set(Symbol.__annotations__)
    assert fields == {"name", "kind", "start_line", "end_line", "start_byte", "end_byte",
                      "body_start", "_stream"}  # fmt: skip
    assert fields <= set(vars(symbol))
    assert symbol == Symbol(**{name: getattr(symbol, name) for name in fields})
    assert symbol == symbol.with_stream(None) and symbol.with_stream(None).signature == ""
    assert hash(symbol) == hash(symbol.with_stream(None))
    assert (symbol.name, symbol.kind, symbol.start_line, symbol.end_line) == ("f", "function", 1, 2)


PY_OVERLOADS = """\
from typing import overload
import typing as t

class Context:
    @overload
    def invoke(self, callback: int) -> int: ...
    # a comment between the stubs
    @t.overload
    def invoke(self, callback: str) -> str: ...

    def invoke(self, callback):
        return callback

@overload
def only_stubs(x: int) -> int: ...
@overload
def only_stubs(x: str) -> str: ...
"""


def test_python_overload_stubs_leave_the_name_to_their_implementation() -> None:
    from anchors.symbols import extract_symbols

    found = {s.name: s for s in extract_symbols(PY_OVERLOADS.encode(), "python")}
    invoke = found["Context.invoke"]
    assert (invoke.start_line, invoke.end_line) == (11, 12)  # the implementation, not a stub
    assert "Context.invoke~2" not in found and "Context.invoke~3" not in found
    # Stubs with no implementation after them (a .pyi file, a protocol) stay symbols.
    assert "only_stubs" in found and "only_stubs~2" in found
