"""Find the definitions in a syntax tree, per language, with their qualified names.

The walk descends only into nodes that can hold definitions (modules, class bodies, blocks,
conditional compilation, namespaces), never into expressions, so it touches a small part of the
tree: listing symbols costs little next to parsing. See `anchors.symbols` for the naming rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

# Definitions directly inside these are members (methods); inside a module or namespace they are not.
TYPE_KINDS = frozenset({"class", "struct", "interface", "enum", "trait", "impl"})


@dataclass(frozen=True)
class Definition:
    name: str  # qualified
    kind: str
    node: Node  # the span: decorators, templates and `const f =` included
    body: Node | None


Handler = Callable[["Node", tuple[str, ...], bool, "Node"], None]


class Outliner:
    """Walks container nodes and dispatches definition nodes to per-type handlers."""

    containers: frozenset[str] = frozenset()
    # Words without which a function body holds no nested definition.
    nested_keywords: tuple[bytes, ...] = (b"def", b"class", b"fn", b"function", b"=>")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.found: list[Definition] = []
        self.handlers: dict[str, Handler] = {}
        self.setup()

    def setup(self) -> None:
        """Register the handlers of this language."""

    def outline(self, root: Node) -> list[Definition]:
        self.visit(root, (), False)
        return self.found

    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return " ".join(
            self.source[node.start_byte : node.end_byte].decode("utf-8", "replace").split()
        )

    def visit(
        self, node: Node, scope: tuple[str, ...], in_type: bool, shallow: bool = False
    ) -> None:
        """Dispatch the children of `node`. `shallow` (inside a function body) skips nested
        blocks: a definition inside an `if` inside a function is rare, and descending into every
        statement of every function would cost as much as the rest of the walk."""
        handlers = self.handlers
        containers = self.containers
        for child in node.named_children:
            kind = child.type
            handler = handlers.get(kind)
            if handler is not None:
                handler(child, scope, in_type, child)
            elif not shallow and kind in containers:
                self.visit(child, scope, in_type)

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
        self.found.append(Definition(qualified, kind, span, body))
        if descend is not None:
            inner = child_scope if child_scope is not None else (*scope, name)
            in_function = kind in ("function", "method")
            if in_function and not self.may_define(descend):
                return
            self.visit(descend, inner, kind in TYPE_KINDS, in_function)

    def may_define(self, body: Node) -> bool:
        """Whether a function body's text has a keyword that starts a nested definition: a byte
        search is much cheaper than visiting every statement of every function."""
        start, end = body.start_byte, body.end_byte
        return any(self.source.find(k, start, end) >= 0 for k in self.nested_keywords)

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
        }
    )  # fmt: skip

    def setup(self) -> None:
        self.handlers = {
            "function_definition": self.simple("function", "method"),
            "class_definition": self.simple("class"),
            "decorated_definition": self.wrapper("definition"),
        }


_JS_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)


class JavaScriptOutliner(Outliner):
    nested_keywords = (b"function", b"class", b"=>", b"namespace", b"interface", b"enum", b"type")
    containers = frozenset(
        {
            "program", "statement_block", "class_body", "if_statement", "else_clause",
            "try_statement", "catch_clause", "finally_clause", "for_statement",
            "for_in_statement", "while_statement", "do_statement", "labeled_statement",
            "expression_statement", "ambient_declaration", "interface_body", "switch_statement",
            "switch_body", "switch_case", "switch_default",
        }
    )  # fmt: skip

    def setup(self) -> None:
        function = self.simple("function", "method")
        cls = self.simple("class")
        method = self.simple("method")
        self.handlers = {
            "function_declaration": function,
            "generator_function_declaration": function,
            "function_signature": self.simple("function", "method", descend=False),
            "class_declaration": cls,
            "abstract_class_declaration": cls,
            "method_definition": method,
            "method_signature": self.simple("method", descend=False),
            "abstract_method_signature": self.simple("method", descend=False),
            "interface_declaration": self.simple("interface"),
            "enum_declaration": self.simple("enum", descend=False),
            "type_alias_declaration": self.simple("type", descend=False),
            "internal_module": self.simple("module"),
            "module": self.simple("module"),
            "export_statement": self.wrapper("declaration"),
            "lexical_declaration": self.declaration,
            "variable_declaration": self.declaration,
            "field_definition": self.field,
            "public_field_definition": self.field,
            "pair": self.pair,
        }

    def declaration(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        for declarator in declarators:
            name_node = declarator.child_by_field_name("name")
            value = declarator.child_by_field_name("value")
            if name_node is None or value is None or name_node.type != "identifier":
                continue
            where = span if len(declarators) == 1 else declarator
            name = self.text(name_node)
            if value.type in _JS_FUNCTION_VALUES:
                body = value.child_by_field_name("body")
                self.emit(name, "function", where, body, scope, body)
            elif value.type == "class":
                body = value.child_by_field_name("body")
                self.emit(name, "class", where, body, scope, body)
            elif value.type == "object":
                # Object-literal methods are named through the variable: `api.get`.
                self.visit_object(value, (*scope, name))

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
        key = node.child_by_field_name("key")
        if value is None or key is None or key.type not in ("property_identifier", "identifier"):
            return
        if value.type in _JS_FUNCTION_VALUES:
            body = value.child_by_field_name("body")
            self.emit(self.text(key), "method", span, body, scope, body)
        elif value.type == "object":
            self.visit_object(value, (*scope, self.text(key)))


class GoOutliner(Outliner):
    containers = frozenset({"source_file"})

    def setup(self) -> None:
        self.handlers = {
            "function_declaration": self.simple("function", descend=False),
            "method_declaration": self.method,
            "type_declaration": self.type_declaration,
        }

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
    containers = frozenset({"source_file", "declaration_list", "block"})

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


class COutliner(Outliner):
    containers = frozenset(
        {
            "translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
            "preproc_elifdef", "declaration_list", "linkage_specification",
            "field_declaration_list",
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
            "namespace_definition": self.namespace,
            "template_declaration": self.wrapper(),
        }

    def function(self, node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type in _C_DECLARATOR_WRAPPERS:
            declarator = declarator.child_by_field_name("declarator") or (
                declarator.named_children[0] if declarator.named_children else None
            )
        if declarator is None:
            return
        parts = [p for p in re.split(r"\s*::\s*", self.text(declarator)) if p]
        if not parts:
            return
        kind = "method" if in_type or len(parts) > 1 else "function"
        self.emit(".".join(parts), kind, span, node.child_by_field_name("body"), scope)

    def specifier(self, kind: str) -> Handler:
        def handle(node: Node, scope: tuple[str, ...], in_type: bool, span: Node) -> None:
            body = node.child_by_field_name("body")
            name = node.child_by_field_name("name")
            if body is None or name is None:  # a use of the type, or an anonymous one
                return
            descend = body if kind in ("class", "struct") else None
            qualified = self.text(name).replace("::", ".")
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
        name = self.text(node.child_by_field_name("name")).replace("::", ".")
        if not name:  # an anonymous namespace adds no name
            if body is not None:
                self.visit(body, scope, in_type)
            return
        self.emit(name, "module", span, body, scope, body)


class JavaOutliner(Outliner):
    containers = frozenset(
        {"program", "class_body", "interface_body", "enum_body", "enum_body_declarations",
         "annotation_type_body"}
    )  # fmt: skip

    def setup(self) -> None:
        method = self.simple("method", descend=False)
        self.handlers = {
            "class_declaration": self.simple("class"),
            "record_declaration": self.simple("class"),
            "interface_declaration": self.simple("interface"),
            "annotation_type_declaration": self.simple("interface"),
            "enum_declaration": self.simple("enum"),
            "method_declaration": method,
            "constructor_declaration": method,
            "compact_constructor_declaration": method,
        }


OUTLINERS: dict[str, type[Outliner]] = {
    "python": PythonOutliner,
    "javascript": JavaScriptOutliner,
    "typescript": JavaScriptOutliner,
    "tsx": JavaScriptOutliner,
    "go": GoOutliner,
    "rust": RustOutliner,
    "java": JavaOutliner,
    "c": COutliner,
    "cpp": COutliner,
}
