"""Find the definitions in a syntax tree, per language, with their qualified names.

The walk descends only into nodes that can hold definitions (modules, class bodies, blocks,
conditional compilation, namespaces), never into expressions, so it touches a small part of the
tree: listing symbols costs little next to parsing. See `anchors.symbols` for the naming rules.
"""

from __future__ import annotations

from anchors.lazy import Pattern, cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    from tree_sitter import Node, Query

    Handler: TypeAlias = Callable[[Node, tuple[str, ...], bool, Node], None]

# Definitions directly inside these are members (methods); inside a module or namespace they are not.
TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "trait", "impl"})


class Definition:
    """A definition the walk found (a plain class: see `anchors.symbols.Symbol`)."""

    __slots__ = ("name", "kind", "node", "body", "start")

    def __init__(
        self,
        name: str,  # qualified
        kind: str,
        node: Node,  # the span: decorators, templates and `const f =` included
        body: Node | None,
        start: Node | None = None,  # where the span starts when before `node` (TS overloads)
    ) -> None:
        self.name = name
        self.kind = kind
        self.node = node
        self.body = body
        self.start = start

    def __repr__(self) -> str:
        return f"Definition({self.name!r}, {self.kind!r})"


class Outliner:
    """Walks container nodes and dispatches definition nodes to per-type handlers."""

    containers: frozenset[str] = frozenset()
    # Words without which a function body holds no nested definition.
    nested_keywords: tuple[bytes, ...] = (b"def", b"class", b"fn", b"function", b"=>")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.found: list[Definition] = []
        self.handlers: dict[str, Handler] = {}
        # How many function bodies the walk is inside (some forms count only at module level).
        self.function_depth = 0
        # Node id of an implementation -> the first of the overload signatures before it.
        self.group_start: dict[int, Node] = {}
        # Definitions nested deeper than this many levels are not looked for (None: all).
        self.max_depth: int | None = None
        self.setup()

    def setup(self) -> None:
        """Register the handlers of this language."""

    def outline(self, root: Node) -> list[Definition]:
        self.visit(root, (), False)
        return self.found

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        text = self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")
        if node.child_count == 0:  # a name: one token, no inner whitespace to collapse
            return text
        return " ".join(text.split())

    def visit(
        self, node: Node, scope: tuple[str, ...], in_type: bool, shallow: bool = False
    ) -> None:
        """Dispatch the children of `node`. `shallow` (inside a function body) enters a nested
        block only when its text holds a keyword that can start a definition: descending into
        every statement of every function would cost as much as the rest of the walk, while a
        definition inside an `if` or a `with` inside a function does occur in real code."""
        handlers = self.handlers
        containers = self.containers
        for child in node.named_children:
            kind = child.type
            handler = handlers.get(kind)
            if handler is not None:
                handler(child, scope, in_type, child)
            elif kind in containers and (not shallow or self.may_define(child)):
                self.visit(child, scope, in_type, shallow)

    def dispatch(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        handler = self.handlers.get(node.type)
        if handler is not None:
            handler(node, scope, in_type, span)
        elif node.type in self.containers:
            self.visit(node, scope, in_type)

    def emit(
        self,
        name: str,
        kind: str,
        span: Node,
        body: Node | None,
        scope: tuple[str, ...],
        descend: Node | None = None,
        child_scope: tuple[str, ...] | None = None,
    ) -> None:
        """Record a definition, then look for definitions nested in `descend`."""
        if not name:
            return
        qualified = ".".join((*scope, name))
        start = self.group_start.pop(span.id, None) if self.group_start else None
        self.found.append(Definition(qualified, kind, span, body, start))
        if descend is not None and (self.max_depth is None or len(scope) + 1 < self.max_depth):
            inner = child_scope if child_scope is not None else (*scope, name)
            in_function = kind in ("function", "method")
            if in_function and not self.may_define(descend):
                return
            self.function_depth += in_function
            self.visit(descend, inner, kind in TYPE_KINDS, in_function)
            self.function_depth -= in_function

    def may_define(self, body: Node) -> bool:
        """Whether a function body's text has a keyword that starts a nested definition: a byte
        search is much cheaper than visiting every statement of every function."""
        start, end = body.start_byte, body.end_byte
        find = self.source.find
        # A plain loop: a generator would cost more than the searches themselves.
        for keyword in self.nested_keywords:  # noqa: SIM110
            if find(keyword, start, end) >= 0:
                return True
        return False

    def simple(self, kind: str, member_kind: str = "", descend: bool = True) -> Handler:
        """A handler for a node with `name` and `body` fields."""

        def handle(node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
            body = node.child_by_field_name("body")
            chosen = member_kind if (in_type and member_kind) else kind
            self.emit(
                self.text(node.child_by_field_name("name")),
                chosen,
                span,
                body,
                scope,
                body if descend else None,
            )

        return handle

    def wrapper(self, field: str | None = None) -> Handler:
        """A handler for a node that wraps a definition (decorators, templates, export)."""

        def handle(node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
            inner = node.child_by_field_name(field) if field else None
            if inner is None:
                inner = next(
                    (c for c in reversed(node.named_children) if c.type in self.handlers), None
                )
            if inner is not None:
                self.dispatch(inner, scope, in_type, node)

        return handle


class PythonOutliner(Outliner):
    nested_keywords = (b"def", b"class")
    containers = frozenset(
        {
            "module", "block", "if_statement", "elif_clause", "else_clause", "try_statement",
            "except_clause", "finally_clause", "with_statement", "for_statement", "while_statement",
            "match_statement", "case_clause",
        }
    )  # fmt: skip

    def setup(self) -> None:
        self.handlers = {
            "function_definition": self.simple("function", "method"),
            "class_definition": self.simple("class"),
            "decorated_definition": self.decorated,
        }
        self._wrapped = self.wrapper("definition")

    def decorated(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        """`@overload` stubs right before their implementation are left out, so `Context.invoke`
        is the code that runs, as a reader means (not the first stub, with the implementation as
        `Context.invoke~3`); a stub's change is a typing change, not one of the code. Stubs with
        no implementation after them (`.pyi` files, protocols) stay symbols of their own."""
        name = self._overload_name(node)
        if name is not None:
            following = _next_code(span)
            while following is not None and self._overload_name(following) == name:
                following = _next_code(following)
            if following is not None and self._def_name(following) == name:
                return
        self._wrapped(node, scope, in_type, span)

    def _def_name(self, node: Node) -> bytes | None:
        inner = (
            node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        )
        if inner is None or inner.type != "function_definition":
            return None
        name = inner.child_by_field_name("name")
        return None if name is None else self.source[name.start_byte : name.end_byte]

    def _overload_name(self, node: Node) -> bytes | None:
        """The function's name when `node` is a definition decorated with `overload`."""
        if node.type != "decorated_definition":
            return None
        for child in node.named_children:
            if child.type == "decorator":
                text = self.source[child.start_byte : child.end_byte]
                if text.rstrip().endswith((b"overload", b"overload()")):
                    return self._def_name(node)
        return None


def _next_code(node: Node) -> Node | None:
    """The next sibling that is not a comment."""
    following = node.next_named_sibling
    while following is not None and following.type == "comment":
        following = following.next_named_sibling
    return following


_JS_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
# Right-hand sides that can define something (see `JavaScriptOutliner.value`).
_JS_DEFINING_VALUES = _JS_FUNCTION_VALUES | {
    "class", "object", "call_expression", "ternary_expression", "parenthesized_expression",
    "new_expression",
}  # fmt: skip
_JS_KEYS = frozenset({"property_identifier", "identifier", "private_property_identifier"})
_JS_INVOKERS = frozenset({b"call", b"apply"})


def _unparenthesized(node: Node | None) -> Node | None:
    """The expression inside any parentheses around `node`."""
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


_JS_WRAPPERS = frozenset({"parenthesized_expression", "unary_expression", "await_expression"})
_JS_SIGNATURES = frozenset({"function_signature", "method_signature"})
# What a callback's body must hold for the walk to enter it (`describe(() => {...})`): a named
# function or class, a function stored in a variable or a property, a prototype or an export.
# Callbacks are most of the statements in test files; searching their text is much cheaper than
# visiting them, and object-literal methods inside a callback are left out on purpose.
# (Searched with `bytes` methods: see `callback_defines`.)
_JS_IMPLEMENTATIONS = frozenset(
    {"function_declaration", "generator_function_declaration", "method_definition"}
)


CALLBACK_DEPTH = 2

_SPACE = frozenset(b" \t\n\r\f\v")
_NAME_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")
_NAME = _NAME_START | frozenset(b"0123456789")


def callback_defines(source: bytes, start: int, end: int) -> bool:
    """Whether source[start:end] holds one of `rb"function\\s*\\*?\\s*[A-Za-z_$]"`,
    `rb"class\\s+[A-Za-z_$]"` or `rb"=\\s*(?:async\\s*)?(?:\\([^()]*\\)|[A-Za-z_$][\\w$]*)\\s*(?::[^=;{]*)?=>"`
    (a named function or class, an arrow function stored). What those regular expressions
    find, found with `bytes` methods: `re` costs `tether history` ~2 ms to import (see
    `anchors.lazy`; a property test compares the two)."""
    at = source.find(b"function", start, end)
    while at >= 0:
        i = _skip_space(source, at + 8, end)
        if i < end and source[i] == 42:  # `*`
            i = _skip_space(source, i + 1, end)
        if i < end and source[i] in _NAME_START:
            return True
        at = source.find(b"function", at + 1, end)
    at = source.find(b"class", start, end)
    while at >= 0:
        i = _skip_space(source, at + 5, end)
        if at + 5 < i < end and source[i] in _NAME_START:
            return True
        at = source.find(b"class", at + 1, end)
    if source.find(b"=>", start, end) < 0:
        return False
    at = source.find(b"=", start, end)
    while at >= 0:
        i = _skip_space(source, at + 1, end)
        if (
            source.startswith(b"async", i)
            and i + 5 <= end
            and _arrow_from(source, _skip_space(source, i + 5, end), end)
        ):
            return True
        if _arrow_from(source, i, end):
            return True
        at = source.find(b"=", at + 1, end)
    return False


def _skip_space(source: bytes, at: int, end: int) -> int:
    while at < end and source[at] in _SPACE:
        at += 1
    return at


def _arrow_from(source: bytes, at: int, end: int) -> bool:
    """Whether `(params)` or a name, then an optional `: type`, then `=>` start at `at`."""
    if at >= end:
        return False
    if source[at] == 40:  # `(`: anything but parentheses up to `)`
        at += 1
        while at < end and source[at] != 41:
            if source[at] == 40:
                return False
            at += 1
        if at >= end:
            return False
        at += 1
    elif source[at] in _NAME_START:
        at += 1
        while at < end and source[at] in _NAME:
            at += 1
    else:
        return False
    at = _skip_space(source, at, end)
    if at < end and source[at] == 58:  # `:` and a type, up to `=`, `;` or `{`
        at += 1
        while at < end and source[at] not in b"=;{":
            at += 1
    return at + 2 <= end and source.startswith(b"=>", at)


class JavaScriptOutliner(Outliner):
    """JavaScript, TypeScript and TSX.

    Beyond declarations, the walk reads the assignment forms of code written before classes
    (`Foo.prototype.bar = function`, `exports.x = ...`), object literals that hold methods
    (`const api = {get() {}}`, `module.exports = {...}`, `Vue.component("x", {...})`), and the
    bodies of immediately invoked functions and callbacks (`define(function () {...})`,
    `describe(..., () => {...})`), whose definitions are named as if the wrapper were not there.
    """

    # `type `, `enum ` with their space: as bare substrings they are in most TypeScript bodies
    # (`typeof`, `enumerable`). Searches, not one pattern: `bytes.find` is much the faster.
    nested_keywords = (
        b"=>", b"function", b"class ", b"return {", b"return{", b"type ", b"interface ",
        b"enum ",
    )  # fmt: skip
    containers = frozenset(
        {
            "program", "statement_block", "class_body", "if_statement", "else_clause",
            "try_statement", "catch_clause", "finally_clause", "for_statement",
            "for_in_statement", "while_statement", "do_statement", "labeled_statement",
            "ambient_declaration", "interface_body", "switch_statement",
            "switch_body", "switch_case", "switch_default",
        }
    )  # fmt: skip

    def setup(self) -> None:
        self.callback_depth = 0
        function = self.simple("function", "method")
        cls = self.simple("class")
        method = self.simple("method")
        self.handlers = {
            "function_declaration": function,
            "generator_function_declaration": function,
            "function_signature": self.signature("function", "method"),
            "class_declaration": cls,
            "abstract_class_declaration": cls,
            "method_definition": method,
            "method_signature": self.signature("method", "method"),
            "abstract_method_signature": self.simple("method", descend=False),
            "interface_declaration": self.simple("interface"),
            "enum_declaration": self.simple("enum", descend=False),
            "type_alias_declaration": self.simple("type", descend=False),
            "internal_module": self.simple("module"),
            "module": self.simple("module"),
            "export_statement": self.export,
            "lexical_declaration": self.declaration,
            "variable_declaration": self.declaration,
            "field_definition": self.field,
            "public_field_definition": self.field,
            "pair": self.pair,
            "expression_statement": self.expression,
            "return_statement": self.returned,
        }

    # -- declarations ---------------------------------------------------------------------------

    def declaration(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        for declarator in declarators:
            name_node = declarator.child_by_field_name("name")
            value = declarator.child_by_field_name("value")
            if name_node is None or value is None or name_node.type != "identifier":
                continue
            where = span if len(declarators) == 1 else declarator
            if value.type == "assignment_expression" and self.exported(value):
                # `var each = exports.each = function (fn)`: named as the export (what the
                # line says once the local alias is dropped, `exports.each = function (fn)`).
                self.assignment(value, scope, where)
                continue
            while value.type == "assignment_expression":  # `var app = module.exports = ...`
                right = value.child_by_field_name("right")
                if right is None:
                    break
                value = right
            self.value(self.text(name_node), "function", value, where, scope)

    def exported(self, chain: Node) -> bool:
        """Whether an assignment chain gives its value a member's name (`exports.each = ...`,
        `Foo.prototype.bar = ...`): not only the module's own (`module.exports = ...`)."""
        while chain.type == "assignment_expression":
            left = chain.child_by_field_name("left")
            path = self.member_path(left) if left is not None else None
            if path is not None and path[0]:
                return True
            right = chain.child_by_field_name("right")
            if right is None:
                return False
            chain = right
        return False

    def value(self, name: str, kind: str, value: Node, span: Node, scope: tuple[str, ...]) -> None:
        """Name `value` (the right side of `=`) as `name` when it defines something: a function,
        a class, an object literal's methods (`name.key`), or a call that wraps a function
        (`memo(() => ...)`, `debounce(function () {...})`) or an object of methods."""
        if value.type not in _JS_DEFINING_VALUES:
            return
        while value.type == "parenthesized_expression" and value.named_children:
            value = value.named_children[0]
        if value.type in _JS_FUNCTION_VALUES:
            body = value.child_by_field_name("body")
            self.emit(name, kind, span, body, scope, body)
        elif value.type == "class":
            body = value.child_by_field_name("body")
            self.emit(name, "class", span, body, scope, body)
        elif value.type == "object":
            # Object-literal methods are named through the variable: `api.get`.
            self.visit_object(value, (*scope, name))
        elif value.type == "ternary_expression":  # `cond ? (x) => {...} : undefined`
            for branch in ("consequence", "alternative"):
                chosen = value.child_by_field_name(branch)
                if chosen is not None and chosen.type in _JS_FUNCTION_VALUES:
                    self.value(name, kind, chosen, span, scope)
                    return
        elif value.type == "call_expression":
            callee = value.child_by_field_name("function")
            while callee is not None and callee.type == "parenthesized_expression":
                callee = callee.named_children[0] if callee.named_children else None
            if callee is not None and callee.type in _JS_FUNCTION_VALUES:
                # The module pattern, `const M = (function () {... return {...}})()`: what the
                # function defines or returns is `M`'s.
                self.transparent(callee, (*scope, name))
                return
            wrapped = self.wrapped_function(value)
            if wrapped is not None:
                body = wrapped.child_by_field_name("body")
                self.emit(name, kind, span, body, scope, body)
                return
            args = value.child_by_field_name("arguments")
            for arg in args.named_children if args is not None else ():
                if arg.type == "object":
                    self.visit_object(arg, (*scope, name))
        elif value.type == "new_expression":
            # A one-off instance of a named class written in place, `const processor = new
            # (class ALBProcessor extends Base {...})()`: the class by its own name, as when it
            # is declared (hono later declared that class and kept its methods).
            made = value.child_by_field_name("constructor")
            while made is not None and made.type == "parenthesized_expression":
                made = made.named_children[0] if made.named_children else None
            own = made.child_by_field_name("name") if made is not None else None
            if made is not None and made.type == "class" and own is not None:
                body = made.child_by_field_name("body")
                self.emit(self.text(own), "class", span, body, scope, body)

    def function_of(self, value: Node) -> Node | None:
        """The function `value` is, or the one it wraps when it is a call (see
        `wrapped_function`)."""
        if value.type in _JS_FUNCTION_VALUES:
            return value
        if value.type == "call_expression":
            return self.wrapped_function(value)
        return None

    def wrapped_function(self, call: Node) -> Node | None:
        """The function a call wraps, as in `memo(forwardRef((props, ref) => ...))`: at module
        level any call counts; inside a function only a plain name's (`useCallback(...)`), so that
        `const doubled = items.map((x) => x * 2)` is not taken for a definition."""
        for _ in range(3):  # memo(forwardRef(fn)) and no deeper
            callee = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            if callee is None or args is None:
                return None
            if self.function_depth and callee.type != "identifier":
                return None
            inner = [a for a in args.named_children if a.type != "comment"]
            functions = [a for a in inner if a.type in _JS_FUNCTION_VALUES]
            if len(functions) == 1:
                return functions[0]
            if not functions and inner and inner[0].type == "call_expression":
                call = inner[0]
                continue
            return None
        return None

    def visit_object(self, node: Node, scope: tuple[str, ...]) -> None:
        for child in node.named_children:
            if child.type in ("pair", "method_definition"):
                self.dispatch(child, scope, True, child)

    def field(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        value = node.child_by_field_name("value")
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        if value is not None and value.type in _JS_FUNCTION_VALUES:
            body = value.child_by_field_name("body")
            self.emit(self.text(name_node), "method", span, body, scope, body)

    def pair(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        value = node.child_by_field_name("value")
        if value is None or value.type not in _JS_DEFINING_VALUES:
            return  # data: most pairs are, and only the value's type is needed to know
        key = self.key(node.child_by_field_name("key"))
        if key:
            self.value(key, "method", value, span, scope)

    def returned(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        """`return {get() {...}}` in a factory: the methods are the function's, `make.get`. A
        named function returned, `return function useStore() {...}`, is the factory's by its
        own name, `defineStore.useStore` (as when it is declared, then returned)."""
        value = node.named_children[0] if node.named_children else None
        while value is not None and value.type == "parenthesized_expression":
            value = value.named_children[0] if value.named_children else None
        if value is not None and value.type == "object":
            self.visit_object(value, scope)
        elif value is not None and value.type in _JS_FUNCTION_VALUES and scope:
            name = value.child_by_field_name("name")
            if name is not None:
                body = value.child_by_field_name("body")
                self.emit(self.text(name), "function", span, body, scope, body)

    def key(self, node: Node | None) -> str:
        """A property's name: an identifier, or a string holding one (`'foo': function`)."""
        if node is None:
            return ""
        if node.type in _JS_KEYS:
            return self.text(node)
        if node.type == "string":
            text = self.text(node)[1:-1]
            return text if text.replace("$", "_").isidentifier() else ""
        return ""

    def export(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        inner = node.child_by_field_name("declaration")
        if inner is not None:
            self.dispatch(inner, scope, in_type, node)
            return
        value = node.child_by_field_name("value")
        if value is None:
            return
        if value.type in _JS_FUNCTION_VALUES or value.type == "class":
            # `export default function () {}`: named by its own name, else `default`.
            own = value.child_by_field_name("name")
            self.value(self.text(own) or "default", "function", value, node, scope)
        elif value.type == "object":  # `export default {data() {...}}`: `data`
            self.visit_object(value, scope)
        elif value.type == "call_expression":  # `export default defineComponent({...})`
            self.call(value, scope)

    # -- TypeScript overloads -------------------------------------------------------------------

    def signature(self, kind: str, member_kind: str) -> Handler:
        """Overload signatures right before their implementation are part of it (its span
        starts at the first one): `f` is the implementation, as a reader means. Signatures with
        no implementation (interfaces, declaration files, abstract classes) are symbols."""

        def handle(node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
            name_node = node.child_by_field_name("name")
            if name_node is None:
                return
            source = self.source
            # Names compared as bytes: this runs for every member of every interface.
            key = source[name_node.start_byte : name_node.end_byte]
            following = span.next_named_sibling
            while following is not None:
                kind_of = following.type
                if kind_of == "comment":
                    following = following.next_named_sibling
                    continue
                inner = following
                if kind_of == "export_statement":
                    inner = following.child_by_field_name("declaration") or following
                    kind_of = inner.type
                if kind_of in _JS_SIGNATURES or kind_of in _JS_IMPLEMENTATIONS:
                    other = inner.child_by_field_name("name")
                    if other is not None and source[other.start_byte : other.end_byte] == key:
                        if kind_of in _JS_SIGNATURES:
                            following = following.next_named_sibling
                            continue
                        self.group_start.setdefault(following.id, span)
                        return
                break
            chosen = member_kind if (in_type and member_kind) else kind
            self.emit(self.text(name_node), chosen, span, node.child_by_field_name("body"), scope)

        return handle

    # -- assignments, calls, wrappers -----------------------------------------------------------

    def expression(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        expr = node.named_children[0] if node.named_children else None
        while expr is not None and expr.type in _JS_WRAPPERS and expr.named_children:
            expr = expr.named_children[-1]
        if expr is None:
            return
        if expr.type == "assignment_expression":
            self.assignment(expr, scope, span)
        elif expr.type == "call_expression":
            # Inside a function a call's callbacks and option objects (`items.forEach(...)`,
            # `$.ajax({success() {}})`) are the function's work, not definitions; at module
            # level they are wrappers (`define`, `describe`, an IIFE) or registrations.
            if not self.function_depth:
                self.call(expr, scope)
        elif expr.type in self.handlers:  # TypeScript's `namespace N {}` is an expression
            self.dispatch(expr, scope, in_type, expr)

    def assignment(self, node: Node, scope: tuple[str, ...], span: Node) -> None:
        """`a.b = function`, `Foo.prototype.bar = ...`, `exports.x = ...`, chains like
        `res.type = res.contentType = function`: each name on the left gets the definition."""
        targets: list[Node] = []
        value: Node | None = node
        while value is not None and value.type == "assignment_expression":
            left = value.child_by_field_name("left")
            if left is not None:
                targets.append(left)
            value = value.child_by_field_name("right")
        if value is None:
            return
        first = True
        for target in targets:
            path = self.member_path(target)
            if path is None:
                continue
            parts, member = path
            if not parts:  # `module.exports = ...`: the module's own value
                if value.type == "object":
                    self.visit_object(value, (*scope, "exports"))
                    return
                own = value.child_by_field_name("name") if value.type != "call_expression" else None
                parts = (self.text(own) or "module.exports",)
            kind = "method" if member else "function"
            if first:
                if (
                    value.type == "call_expression"
                    and len(parts) == 2
                    and parts[0] == "exports"
                    and not self.function_depth
                    and self.wrapped_function(value) is None
                ):
                    # `exports.etag = createETagGenerator({weak: false})`: an export made by a
                    # call is still the module's definition of that name.
                    self.emit(parts[-1], "function", span, value, (*scope, parts[0]))
                    return
                self.value(parts[-1], kind, value, span, (*scope, *parts[:-1]))
                first = False
            elif (function := self.function_of(value)) is not None:
                # Further names of the same function: the same span, nothing nested again (also
                # of one a call wraps: Underscore's `_.reduce = _.foldl = wrapReduce(function
                # ...)` kept its three names when the function became a wrapper's argument).
                body = function.child_by_field_name("body")
                self.emit(parts[-1], kind, span, body, (*scope, *parts[:-1]))

    def member_path(self, node: Node) -> tuple[tuple[str, ...], bool] | None:
        """The name an assignment target gives, as parts, and whether it is a member (not a
        plain variable). `this.` and `prototype` are left out: `Foo.prototype.bar` is `Foo.bar`
        (what a class would call it). The module's exports are `exports`, however reached:
        `module.exports.x` is `exports.x`; `module.exports` itself gives no parts."""
        parts: list[str] = []
        while True:
            if node.type in ("member_expression", "subscript_expression"):
                prop = node.child_by_field_name("property") or node.child_by_field_name("index")
                # `obj[key]` names nothing that stays put; `obj["key"]` does.
                if prop is None or (node.type == "subscript_expression" and prop.type != "string"):
                    return None
                name = self.key(prop)
                if not name:
                    return None
                parts.append(name)
                obj = node.child_by_field_name("object")
                if obj is None:
                    return None
                node = obj
            elif node.type in ("identifier", "this"):
                parts.append(self.text(node))
                break
            else:
                return None
        parts.reverse()
        member = len(parts) > 1
        if parts[0] == "this":
            parts = parts[1:]
        elif parts[:2] == ["module", "exports"]:
            parts, member = (["exports", *parts[2:]] if len(parts) > 2 else []), False
        elif parts[0] == "exports":
            member = False
        return tuple(p for p in parts if p != "prototype"), member

    def call(self, node: Node, scope: tuple[str, ...]) -> None:
        """An immediately invoked function's body, and a call's function and object arguments
        (`define(function () {...})`, `jQuery.extend({each: function () {}})`), are read as
        if they stood where the call is."""
        callee = _unparenthesized(node.child_by_field_name("function"))
        if callee is not None and callee.type == "member_expression":
            # `(function () {...}.call(this))`, `(function () {...}).apply(root)`: the function
            # whose `call` or `apply` runs it (Underscore's and Backbone's module wrapper).
            prop = callee.child_by_field_name("property")
            if prop is not None and self.source[prop.start_byte : prop.end_byte] in _JS_INVOKERS:
                callee = _unparenthesized(callee.child_by_field_name("object"))
        if callee is not None and callee.type in _JS_FUNCTION_VALUES:
            self.transparent(callee, scope)
        args = node.child_by_field_name("arguments")
        for given in args.named_children if args is not None else ():
            # (A UMD bundle passes its factory parenthesized: `}(this, (function () {...})))`.)
            arg = _unparenthesized(given) or given
            if arg.type in _JS_FUNCTION_VALUES:
                self.transparent(arg, scope, callback=True)
            elif arg.type == "object":
                self.visit_object(arg, scope)

    def defines_in_callback(self, body: Node) -> bool:
        source, start, end = self.source, body.start_byte, body.end_byte
        if source.find(b"prototype", start, end) >= 0 or source.find(b"exports", start, end) >= 0:
            return True
        return callback_defines(source, start, end)

    def transparent(self, function: Node, scope: tuple[str, ...], callback: bool = False) -> None:
        """Visit a function's body as if it stood in place of the call that runs it."""
        body = function.child_by_field_name("body")
        if body is None or body.type != "statement_block":
            return
        if callback:
            # Two callbacks deep at most (`describe(() => { it(() => {...}) })`): deeper ones
            # are a test's own steps, and entering them is most of the cost on test files.
            if self.callback_depth >= CALLBACK_DEPTH or not self.defines_in_callback(body):
                return
        elif not self.may_define(body):
            return
        self.callback_depth += callback
        self.visit(body, scope, False, True)
        self.callback_depth -= callback


class GoOutliner(Outliner):
    containers = frozenset({"source_file"})

    def setup(self) -> None:
        self.handlers = {
            "function_declaration": self.simple("function", descend=False),
            "method_declaration": self.method,
            "type_declaration": self.type_declaration,
            "var_declaration": self.var_declaration,
        }

    def var_declaration(
        self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node
    ) -> None:
        """`var handler = func(...) {...}`: the function `handler`."""
        specs = [c for c in node.named_children if c.type == "var_spec"]
        for group in node.named_children:
            if group.type == "var_spec_list":
                specs.extend(c for c in group.named_children if c.type == "var_spec")
        for spec in specs:
            names = [c for c in spec.named_children if c.type == "identifier"]
            values = spec.child_by_field_name("value")
            if values is None or len(names) != 1:
                continue
            value = values.named_children[0] if values.named_children else None
            if value is not None and value.type == "func_literal":
                where = span if len(specs) == 1 else spec
                self.emit(
                    self.text(names[0]), "function", where, value.child_by_field_name("body"), scope
                )

    def method(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        receiver = node.child_by_field_name("receiver")
        type_name = ""
        if receiver is not None:
            param = next(
                (c for c in receiver.named_children if c.type == "parameter_declaration"), None
            )
            type_node = param.child_by_field_name("type") if param is not None else None
            while type_node is not None and type_node.type in (
                "pointer_type",
                "generic_type",
                "parenthesized_type",
            ):
                type_node = type_node.child_by_field_name("type") or (
                    type_node.named_children[0] if type_node.named_children else None
                )
            type_name = self.text(type_node)
        name = self.text(node.child_by_field_name("name"))
        scope = (type_name,) if type_name else ()
        self.emit(name, "method", span, node.child_by_field_name("body"), scope)

    def type_declaration(
        self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node
    ) -> None:
        specs = [c for c in node.named_children if c.type in ("type_spec", "type_alias")]
        for spec in specs:
            type_node = spec.child_by_field_name("type")
            kind = {"struct_type": "struct", "interface_type": "interface"}.get(
                type_node.type if type_node is not None else "", "type"
            )
            where = span if len(specs) == 1 else spec
            self.emit(self.text(spec.child_by_field_name("name")), kind, where, type_node, scope)


class RustOutliner(Outliner):
    nested_keywords = (b"fn", b"struct", b"enum", b"trait", b"impl", b"mod", b"union", b"type")
    containers = frozenset({"source_file", "declaration_list", "block", "foreign_mod_item"})

    def setup(self) -> None:
        self.handlers = {
            "function_item": self.simple("function", "method"),
            "function_signature_item": self.simple("function", "method", descend=False),
            "struct_item": self.simple("struct", descend=False),
            "union_item": self.simple("struct", descend=False),
            "enum_item": self.simple("enum", descend=False),
            "trait_item": self.simple("trait"),
            "mod_item": self.simple("module"),
            "type_item": self.simple("type", descend=False),
            "impl_item": self.impl,
        }

    def impl(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        type_node = node.child_by_field_name("type")
        trait = node.child_by_field_name("trait")
        label = (
            f"impl {self.text(trait)} for {self.text(type_node)}"
            if trait
            else f"impl {self.text(type_node)}"
        )
        base = type_node
        while base is not None and base.type in ("generic_type", "reference_type", "pointer_type"):
            base = base.child_by_field_name("type")
        body = node.child_by_field_name("body")
        self.found.append(Definition(".".join((*scope, label)), "impl", span, body))
        if body is not None:
            self.visit(body, (*scope, self.text(base)), True)


_C_DECLARATOR_WRAPPERS = frozenset(
    {
        "pointer_declarator", "reference_declarator", "function_declarator",
        "parenthesized_declarator", "attributed_declarator",
    }
)  # fmt: skip


_C_LOCAL_TYPE = Pattern(rb"\b(?:class|struct)\s+[A-Za-z_]\w*\s*(?:final\s*)?(?::[^;{]*)?\{")


@cache
def _c_local_query(language: str) -> Query:
    """Classes and structs with a body, for `COutliner.local_types` (compiled once)."""
    from anchors.languages import grammar
    from anchors.treesitter import Query

    pattern = "(struct_specifier body: (_)) @local"
    if language == "cpp":
        pattern += " (class_specifier body: (_)) @local"
    return Query(grammar(language), pattern)


_GTEST_MACRO = Pattern(r"[A-Z0-9_]*TEST[A-Z0-9_]*")
_IDENTIFIER = Pattern(r"[A-Za-z_]\w*")


def cpp_name_parts(text: str) -> list[str]:
    """A C++ name split at its top-level `::` (not those inside template arguments), template
    arguments dropped from the scopes: `ns::Foo<T>::bar` is `["ns", "Foo", "bar"]`, so that an
    out-of-line member of a class template is named like the member in the class."""
    if "<" not in text and "(" not in text:  # most names: no brackets to keep together
        return [p.strip() for p in text.split("::") if p.strip()]
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in "<(":
            depth += 1
        elif char in ">)" and depth:
            depth -= 1
        elif char == ":" and depth == 0 and text.startswith("::", i):
            parts.append("".join(current).strip())
            current = []
            i += 2
            continue
        current.append(char)
        i += 1
    parts.append("".join(current).strip())
    scopes = [p.split("<", 1)[0].strip() for p in parts[:-1]]
    return [p for p in (*scopes, parts[-1]) if p]


class COutliner(Outliner):
    """C and C++. Definitions under an ERROR node are still found: macros and `#if` inside a
    construct often throw the parser off for a stretch of a real file, while the definitions in
    that stretch parse (without the names of any namespace or class the error swallowed).
    Google Test's `TEST(Suite, Name)` and `TEST_F(...)` bodies are named `Suite.Name`."""

    language = "c"

    containers = frozenset(
        {
            "translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
            "preproc_elifdef", "declaration_list", "linkage_specification",
            "field_declaration_list", "ERROR",
            # Only reached through the two cases above and `class EXPORT_MACRO Name {`:
            "compound_statement", "labeled_statement",
        }
    )  # fmt: skip

    def setup(self) -> None:
        self.handlers = {
            "function_definition": self.function,
            "struct_specifier": self.specifier("struct"),
            "union_specifier": self.specifier("struct"),
            "enum_specifier": self.specifier("enum"),
            "class_specifier": self.specifier("class"),
            "type_definition": self.typedef,
            "declaration": self.declaration,
            "field_declaration": self.declaration,  # a class declared in a class
            "namespace_definition": self.namespace,
            "template_declaration": self.wrapper(),
        }

    def function(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        declarator = node.child_by_field_name("declarator")
        test = self.test_macro(declarator)
        if test:
            self.emit(test, "function", span, node.child_by_field_name("body"), scope)
            return
        kind_node = node.child_by_field_name("type")
        if (
            kind_node is not None
            and kind_node.type in ("class_specifier", "struct_specifier")
            and kind_node.child_by_field_name("body") is None
            and declarator is not None
            and declarator.type == "identifier"
        ):
            # `class LEVELDB_EXPORT Status {...}`: the parser takes the export macro for the
            # class's name and the class for a function; its members are still found inside.
            body = node.child_by_field_name("body")
            kind = "class" if kind_node.type == "class_specifier" else "struct"
            self.emit(self.text(declarator), kind, span, body, scope, body)
            return
        body = node.child_by_field_name("body")
        if (
            declarator is not None
            and declarator.type == "identifier"
            and body is not None
            and self.text(declarator) == "namespace"
        ):
            # A macro the parser took for a return type, `FMT_END_EXPORT namespace detail {`:
            # the namespace and what it holds are still found. (An identifier declarator is
            # otherwise a real function: `void encode BASE64_PARAMS {`.)
            named = [c for c in node.named_children if c.type == "ERROR"]
            name = self.text(named[0]) if named else ""
            if _IDENTIFIER.fullmatch(name):
                self.emit(name, "module", span, body, scope, body)
            else:
                self.visit(body, scope, in_type)
            return
        while declarator is not None and declarator.type in _C_DECLARATOR_WRAPPERS:
            declarator = declarator.child_by_field_name("declarator") or (
                declarator.named_children[0] if declarator.named_children else None
            )
        if declarator is None:
            return
        parts = cpp_name_parts(self.text(declarator))
        if not parts:
            return
        kind = "method" if in_type or len(parts) > 1 else "function"
        self.emit(".".join(parts), kind, span, body, scope)
        if body is not None:
            self.local_types(body, (*scope, *parts))

    def local_types(self, body: Node, scope: tuple[str, ...]) -> None:
        """Classes and structs defined inside a function body (a test's fake `class DataFile`
        in `NewWritableFile`): `f.DataFile.Sync`."""
        source, start, end = self.source, body.start_byte, body.end_byte
        if source.find(b"class ", start, end) < 0 and source.find(b"struct ", start, end) < 0:
            return
        if not _C_LOCAL_TYPE.search(source, start, end):
            return
        from anchors.treesitter import QueryCursor

        cursor = QueryCursor(_c_local_query(self.language))
        cursor.set_byte_range(start, end)
        found = sorted(
            (n for nodes in cursor.captures(body).values() for n in nodes),
            key=lambda n: (n.start_byte, -n.end_byte),
        )
        reached = start
        for inner in found:
            if inner.start_byte < reached:  # inside one already taken
                continue
            reached = inner.end_byte
            self.dispatch(inner, scope, False, inner)

    def test_macro(self, declarator: Node | None) -> str:
        """`Suite.Name` for `TEST(Suite, Name)` (any all-capitals macro with TEST in its name and
        two plain names for arguments), else ""."""
        if declarator is None or declarator.type != "function_declarator":
            return ""
        macro = declarator.child_by_field_name("declarator")
        if macro is None or not _GTEST_MACRO.fullmatch(self.text(macro)):
            return ""
        args = [
            a.strip()
            for a in self.text(declarator.child_by_field_name("parameters"))[1:-1].split(",")
        ]
        if len(args) == 2 and all(_IDENTIFIER.fullmatch(a) for a in args):
            return ".".join(args)
        return ""

    def specifier(self, kind: str) -> Handler:
        def handle(node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
            body = node.child_by_field_name("body")
            name = node.child_by_field_name("name")
            if body is None or name is None:  # a use of the type, or an anonymous one
                return
            descend = body if kind in ("class", "struct") else None
            qualified = ".".join(cpp_name_parts(self.text(name)))
            self.emit(qualified, kind, span, body, scope, descend)

        return handle

    def typedef(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        declarator = node.child_by_field_name("declarator")
        if declarator is None or declarator.type != "type_identifier":
            return
        inner = node.child_by_field_name("type")
        body = inner.child_by_field_name("body") if inner is not None else None
        kinds = {
            "struct_specifier": "struct",
            "union_specifier": "struct",
            "enum_specifier": "enum",
        }
        kind = (
            kinds.get(inner.type if inner is not None else "", "type")
            if body is not None
            else "type"
        )
        self.emit(self.text(declarator), kind, span, body if body is not None else inner, scope)

    def declaration(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        inner = node.child_by_field_name("type")
        if inner is not None and inner.type in self.handlers:
            self.dispatch(inner, scope, in_type, inner)

    def namespace(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        body = node.child_by_field_name("body")
        name = ".".join(cpp_name_parts(self.text(node.child_by_field_name("name"))))
        if not name:  # an anonymous namespace adds no name
            if body is not None:
                self.visit(body, scope, in_type)
            return
        self.emit(name, "module", span, body, scope, body)


# Text in a Java method or field that may hold an anonymous class (`new T(...) {`) or a local
# class, record, enum or interface: only then is the tree searched for one.
_JAVA_LOCAL_QUERY = """
(class_declaration) @local
(record_declaration) @local
(enum_declaration) @local
(interface_declaration) @local
"""
_JAVA_ANONYMOUS_QUERY = "(object_creation_expression (class_body) @anonymous)"


@cache
def _java_nested_query(anonymous: bool) -> Query:
    """The query for local classes, and anonymous ones with `anonymous` (compiled once)."""
    from anchors.languages import grammar
    from anchors.treesitter import Query

    text = _JAVA_LOCAL_QUERY + (_JAVA_ANONYMOUS_QUERY if anonymous else "")
    return Query(grammar("java"), text)


_JAVA_TYPE_WORDS = (b"class", b"record", b"enum", b"interface")
_ASCII_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def java_declares_type(source: bytes, start: int, end: int, anonymous: bool) -> bool:
    """Whether source[start:end] holds `rb"\\b(?:class|record|enum|interface)\\s+[A-Za-z_$]"`
    (a local class), or with `anonymous` also `rb"\\)\\s*\\{"` (`new T() {`): what those
    regular expressions find, found with `bytes` methods (see `callback_defines`)."""
    if anonymous:
        at = source.find(b")", start, end)
        while at >= 0:
            i = _skip_space(source, at + 1, end)
            if i < end and source[i] == 123:  # `{`
                return True
            at = source.find(b")", at + 1, end)
    for word in _JAVA_TYPE_WORDS:
        at = source.find(word, start, end)
        while at >= 0:
            i = _skip_space(source, at + len(word), end)
            if (
                (at == 0 or source[at - 1] not in _ASCII_WORD)
                and at + len(word) < i < end
                and source[i] in _NAME_START
            ):
                return True
            at = source.find(word, at + 1, end)
    return False


class JavaOutliner(Outliner):
    """Java. Members of anonymous classes are named through where the class is written: in the
    field `CMP` of `Outer`, `new Comparator<>() { int compare(...) }` gives `Outer.CMP.compare`;
    a local class `L` in method `m` gives `Outer.m.L.f`; an enum constant with a body,
    `Op.PLUS.apply`; with `anonymous_in_methods`, `new Runnable() { void run() {} }` in `m`
    gives `Outer.m.run`."""

    # Anonymous classes with the same members in two files (`read` and `write` of a TypeAdapter)
    # once made `tether history` take a file rename for a merge of two files; history now keeps
    # the deleted file the symbol is found in, so they are on.
    anonymous_in_methods = True

    containers = frozenset(
        {"program", "class_body", "interface_body", "enum_body", "enum_body_declarations",
         "annotation_type_body"}
    )  # fmt: skip

    def setup(self) -> None:
        self.handlers = {
            "class_declaration": self.simple("class"),
            "record_declaration": self.simple("class"),
            "interface_declaration": self.simple("interface"),
            "annotation_type_declaration": self.simple("interface"),
            "enum_declaration": self.simple("enum"),
            "method_declaration": self.method,
            "constructor_declaration": self.method,
            "compact_constructor_declaration": self.method,
            "enum_constant": self.enum_constant,
            "field_declaration": self.field,
            "constant_declaration": self.field,  # an interface's fields
        }

    def method(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        body = node.child_by_field_name("body")
        name = self.text(node.child_by_field_name("name"))
        self.emit(name, "method", span, body, scope)
        if name and body is not None:
            if not self.anonymous_in_methods:
                # Inline searches: this runs for every method, most of which hold no local class.
                find, start, end = self.source.find, body.start_byte, body.end_byte
                if (
                    find(b"class", start, end) < 0
                    and find(b"record", start, end) < 0
                    and find(b"enum", start, end) < 0
                    and find(b"interface", start, end) < 0
                ):
                    return
            self.nested(body, (*scope, name), self.anonymous_in_methods)

    def field(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        # Most fields hold no brace at all: one find settles them before any pattern.
        if self.source.find(b"{", node.start_byte, node.end_byte) < 0:
            return
        for declarator in node.named_children:
            value = declarator.child_by_field_name("value")
            if declarator.type == "variable_declarator" and value is not None:
                name = self.text(declarator.child_by_field_name("name"))
                self.nested(value, (*scope, name))

    def enum_constant(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        body = node.child_by_field_name("body")
        if body is not None:
            self.visit(body, (*scope, self.text(node.child_by_field_name("name"))), True)

    def nested(self, node: Node, scope: tuple[str, ...], anonymous: bool = True) -> None:
        """The anonymous (with `anonymous`) and local classes written inside `node` (a method
        body or a field's value), outermost only: their own members are found by visiting
        them."""
        source, start, end = self.source, node.start_byte, node.end_byte
        if anonymous:
            if source.find(b"{", start + 1, end) < 0 or not java_declares_type(
                source, start, end, anonymous=True
            ):
                return
        elif not java_declares_type(source, start, end, anonymous=False):
            return
        from anchors.treesitter import QueryCursor

        cursor = QueryCursor(_java_nested_query(anonymous))
        cursor.set_byte_range(node.start_byte, node.end_byte)
        found = [
            (n.start_byte, n.end_byte, label, n)
            for label, nodes in cursor.captures(node).items()
            for n in nodes
        ]
        found.sort(key=lambda item: (item[0], -item[1]))
        reached = node.start_byte
        for start, end, label, inner in found:
            if start < reached:  # inside one already taken
                continue
            reached = end
            if label == "anonymous":
                self.visit(inner, scope, True)
            else:
                self.dispatch(inner, scope, False, inner)


class CppOutliner(COutliner):
    language = "cpp"


OUTLINERS: dict[str, type[Outliner]] = {
    "python": PythonOutliner,
    "javascript": JavaScriptOutliner,
    "typescript": JavaScriptOutliner,
    "tsx": JavaScriptOutliner,
    "go": GoOutliner,
    "rust": RustOutliner,
    "java": JavaOutliner,
    "c": COutliner,
    "cpp": CppOutliner,
}
