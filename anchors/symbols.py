"""The symbol index: the definitions in a source file, with qualified names and fingerprints.

Qualified names join the enclosing definitions with dots:

- Python, JavaScript/TypeScript, Java: `Class.method`, `outer.inner`, `Outer.Inner.method`;
  `const f = () => ...` is the function `f`; object-literal methods are `obj.method`.
- Go: methods are `Receiver.Method` (pointer and type parameters dropped).
- Rust: methods in `impl Type` and `impl Trait for Type` are `Type.method`; the impl block itself
  is a symbol of kind `impl` named `impl Type` or `impl Trait for Type`; `mod m` qualifies `m.f`.
- C/C++: `namespace::Class::method` is written `namespace.Class.method`, also for out-of-line
  definitions (`void Class::method() {}` is `Class.method`).
- A name defined twice in one file (overloads, `if`/`else` definitions, two trait impls with the
  same method) keeps its plain name for the first and gets `~2`, `~3`... for the next ones.

Spans are 1-based inclusive lines. A symbol's signature is its declaration up to the body
(decorators and annotations included); its body is the rest. Symbols without a body (type aliases,
abstract methods) use their whole declaration as both.

Fingerprints (`signature_fp`, `body_fp`, `body_norm`) are computed on first access, once per file
(see `anchors.fingerprint`), and so is the display signature. Symbols compare equal by name, kind
and place, not by content: compare fingerprints to know whether code changed.
"""

from __future__ import annotations

import os

from anchors.fingerprint import SELF, TokenStream, digest, normalise_tokens
from anchors.keyed import Keyed
from anchors.languages import SUPPORTED, parser_for
from anchors.lazy import cached_property

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node, Tree

KINDS = (
    "function",
    "method",
    "class",
    "struct",
    "interface",
    "enum",
    "trait",
    "impl",
    "module",
    "type",
)
MAX_SOURCE_BYTES = 1_000_000  # bigger files are skipped with a notice: generated or vendored code
MAX_SIGNATURE_CHARS = 300
_BINARY_SNIFF = 8192


class Symbol(Keyed):
    """One definition in a file.

    Immutable by convention; equal (and hashed) by name, kind and place, not by content. A plain
    class rather than a dataclass: `tether history` races `git log -L`, and the `dataclasses`
    module costs ~8 ms of start-up (docs/benchmarks.md)."""

    name: str  # qualified, see the module docstring
    kind: str  # one of KINDS
    start_line: int  # 1-based inclusive
    end_line: int
    start_byte: int
    end_byte: int
    body_start: int  # byte where the body begins
    _stream: TokenStream | None

    def __init__(
        self,
        name: str,
        kind: str,
        start_line: int,
        end_line: int,
        start_byte: int,
        end_byte: int,
        body_start: int = 0,
        _stream: TokenStream | None = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.start_line = start_line
        self.end_line = end_line
        self.start_byte = start_byte
        self.end_byte = end_byte
        self.body_start = body_start
        self._stream = _stream

    def _key(self) -> tuple[str, str, int, int, int, int, int]:
        return (
            self.name,
            self.kind,
            self.start_line,
            self.end_line,
            self.start_byte,
            self.end_byte,
            self.body_start,
        )

    def with_stream(self, stream: TokenStream | None) -> Symbol:
        """The same symbol, its fingerprints and signature taken from `stream`."""
        return Symbol(*self._key(), stream)

    def __repr__(self) -> str:
        return (
            f"Symbol(name={self.name!r}, kind={self.kind!r}, start_line={self.start_line!r}, "
            f"end_line={self.end_line!r}, start_byte={self.start_byte!r}, "
            f"end_byte={self.end_byte!r})"
        )

    @cached_property
    def signature(self) -> str:
        """The declaration up to the body, whitespace collapsed (for display; made on first use:
        listing symbols does not pay for it)."""
        if self._stream is None:
            return ""
        head = self._stream.source[self.start_byte : self.body_start].decode("utf-8", "replace")
        text = " ".join(head.split())
        if len(text) > MAX_SIGNATURE_CHARS:
            text = text[: MAX_SIGNATURE_CHARS - 1] + "…"
        return text

    @property
    def short_name(self) -> str:
        """The last part of the qualified name, without any `~N` suffix (a C++ destructor's
        `~Foo` keeps its tilde)."""
        last = self.name.rsplit(".", 1)[-1]
        base, tilde, count = last.rpartition("~")
        return base if tilde and base and count.isdigit() else last

    @cached_property
    def signature_fp(self) -> str:
        """Hash of the normalised signature tokens (name included: a rename changes it)."""
        return digest(normalise_tokens(self._tokens(self.start_byte, self.body_start)))

    @cached_property
    def body_norm(self) -> str:
        """The body's tokens, one per line, with the symbol's own name replaced by `<self>`."""
        start = self.body_start if self.body_start < self.end_byte else self.start_byte
        return normalise_tokens(self._tokens(start, self.end_byte), self.short_name)

    @cached_property
    def body_fp(self) -> str:
        """Hash of `body_norm`: equal bodies, whatever their whitespace and comments."""
        return digest(self.body_norm)

    def body_tokens(self) -> list[tuple[str, str]]:
        """The body's tokens with their node types, own name as `<self>` (for `is_cosmetic`)."""
        if self._stream is None:
            raise ValueError(f"symbol {self.name} was built without its source")
        start = self.body_start if self.body_start < self.end_byte else self.start_byte
        own = self.short_name
        return [
            (SELF, t) if text == own else (text, t)
            for text, t in self._stream.typed_tokens(start, self.end_byte)
        ]

    def _tokens(self, start: int, end: int) -> list[str]:
        if self._stream is None:
            raise ValueError(f"symbol {self.name} was built without its source")
        return self._stream.tokens(start, end)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict, fingerprints included."""
        return {
            "name": self.name,
            "kind": self.kind,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "signature": self.signature,
            "signature_fp": self.signature_fp,
            "body_fp": self.body_fp,
        }


def load_source(path: str | os.PathLike[str]) -> tuple[bytes | None, str]:
    """Read a source file for indexing: (bytes or None, a note saying what happened, or "").

    None for a file that is binary (a NUL byte near the start), over MAX_SOURCE_BYTES, a
    directory or unreadable. Text that is not valid UTF-8 is decoded with replacement characters
    (and re-encoded) so byte offsets and positions agree; the note says so.
    """
    try:
        size = os.stat(path).st_size
        if size > MAX_SOURCE_BYTES:
            return None, f"skipped: {size:,} bytes is over the {MAX_SOURCE_BYTES:,}-byte size cap"
        with open(path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except IsADirectoryError:
        return None, "skipped: a directory"
    except OSError as exc:
        return None, f"skipped: unreadable ({exc.strerror or exc})"
    return check_source(data)


def check_source(data: bytes) -> tuple[bytes | None, str]:
    """The checks of `load_source` for bytes already in hand (a blob read from git)."""
    if len(data) > MAX_SOURCE_BYTES:
        return None, f"skipped: {len(data):,} bytes is over the {MAX_SOURCE_BYTES:,}-byte size cap"
    if b"\0" in data[:_BINARY_SNIFF]:
        return None, "skipped: binary file"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        repaired = data.decode("utf-8", "replace").encode("utf-8")
        return repaired, "not valid UTF-8: decoded with replacement characters"
    return data, ""


def read_source(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of a source file, or None when it is binary, over the size cap (1 MB) or
    unreadable; `load_source` says which. Non-UTF-8 text is decoded with replacement."""
    return load_source(path)[0]


def extract_symbols(source: bytes, language: str) -> list[Symbol]:
    """Every definition in `source`, in source order (outer before inner)."""
    tree, grammar = parse_source(source, language)
    return symbols_from_tree(tree, source, grammar)


def parse_source(
    source: bytes, language: str, parse: Callable[[str], Tree] | None = None
) -> tuple[Tree, str]:
    """The parse tree of `source` and the grammar it was read with (`symbols_from_tree` takes
    that one): the language's own, except for JavaScript with Flow's type annotations (React,
    graphql-js until 2021), which JavaScript's grammar gives up on, often for the whole file (no
    definition found at all): TypeScript's grammar reads them, all but a few Flow-only forms,
    and is taken when its error recovery covers less of the file. On plain JavaScript the two
    give the same definitions, signatures and fingerprints (checked over express, axios and
    commander), so a file that tips over while being edited keeps its anchors. `parse(grammar)`
    parses `source` with that grammar (default: afresh; `tether history` reuses a neighbouring
    version's tree)."""
    if parse is None:

        def parse(grammar: str) -> Tree:
            return parser_for(grammar).parse(source)

    tree = parse(language)
    if language == "javascript" and tree.root_node.has_error:
        typed = parse("typescript")
        if error_bytes(typed.root_node) < error_bytes(tree.root_node):
            return typed, "typescript"
    return tree, language


def error_bytes(root: Node) -> int:
    """How much of a parse tree error recovery took: the bytes under ERROR nodes (a missing
    token counts one). Only the paths to errors are walked."""
    total = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            total += max(node.end_byte - node.start_byte, 1)
            continue
        stack.extend(child for child in node.children if child.has_error)
    return total


def symbols_from_tree(
    tree: Tree, source: bytes, language: str, depth: int | None = None
) -> list[Symbol]:
    """The definitions of an already parsed tree (the language server re-parses incrementally);
    with `depth`, only those nested no deeper (1: the top level; `tether history` reads a
    symbol's old text under its enclosing declarations and needs nothing nested in it)."""
    from anchors.outline import OUTLINERS

    stream = TokenStream(tree, source, SUPPORTED[language])
    outliner = OUTLINERS[language](source)
    outliner.max_depth = depth
    found = outliner.outline(tree.root_node)
    symbols: list[Symbol] = []
    seen: dict[str, int] = {}
    for d in found:
        name = d.name
        count = seen.get(name, 0) + 1
        seen[name] = count
        if count > 1:
            name = f"{name}~{count}"
        symbols.append(_make_symbol(name, d.kind, d.node, d.body, stream, d.start))
    return symbols


def _make_symbol(
    name: str,
    kind: str,
    node: Node,
    body: Node | None,
    stream: TokenStream,
    first: Node | None = None,
) -> Symbol:
    """A symbol spanning `node` (from `first` when given: overload signatures before it)."""
    begin = first if first is not None else node
    start, end = begin.start_byte, node.end_byte
    body_start = body.start_byte if body is not None and body.end_byte > body.start_byte else end
    end_row, end_col = node.end_point
    # A node that ends at column 0 ends with the previous line's newline.
    end_line = end_row if end_col == 0 and end_row > begin.start_point[0] else end_row + 1
    # Filling the instance's dict gives the same object as __init__ for less: a call with eight
    # arguments per symbol is a measurable part of the symbol walk of a large repository.
    symbol = _new_symbol(Symbol)
    symbol.__dict__.update(
        name=name,
        kind=kind,
        start_line=begin.start_point[0] + 1,
        end_line=end_line,
        start_byte=start,
        end_byte=end,
        body_start=body_start,
        _stream=stream,
    )
    return symbol


_new_symbol = object.__new__


def find_symbol(symbols: list[Symbol], name: str) -> Symbol | None:
    """The symbol called `name` (qualified), or None.

    Besides the index's own names, the spellings people bring from other tools are accepted
    when the exact name is not there (see `alias_key`): `Foo::bar` and `Foo#bar` for
    `Foo.bar`, `Foo.prototype.bar`, `exports.bar`, `(*T).M`, a trailing `()`; and an overload
    picked by its parameter types, `Foo.bar(String, int)`, where the index says `Foo.bar~2`.
    """
    for symbol in symbols:
        if symbol.name == name:
            return symbol
    wanted, params = alias_key(name)
    if not wanted:
        return None
    matches = [s for s in symbols if _without_count(s.name) == wanted]
    if params is not None:
        typed = [s for s in matches if _parameter_types(s.signature) == params]
        if typed:
            return typed[0]
        if params:
            return None
        # `f()` with no zero-parameter overload (Python's `self`): the call spelling of `f`.
    if matches:
        return matches[0]
    dropped = [s for s in symbols if alias_key(s.name)[0] == wanted]
    return dropped[0] if dropped else None


def lookup(symbols: list[Symbol], wanted: str) -> tuple[Symbol | None, list[Symbol]]:
    """The symbol `wanted` names (its name, another tool's spelling of it, or the only name that
    ends with its last part), or None and the names ending so when there are several."""
    found = find_symbol(symbols, wanted)
    if found is not None:
        return found, []
    last = alias_key(wanted)[0] or wanted
    tail = [s for s in symbols if s.name.endswith("." + last)]
    return (tail[0], []) if len(tail) == 1 else (None, tail)


def alias_key(name: str) -> tuple[str, tuple[str, ...] | None]:
    """A spelling of a symbol's name reduced to the index's rules, and the parameter types it
    gives (None when it gives none): `ns::Foo::bar` is `ns.Foo.bar`; `Foo.prototype.bar` is
    `Foo.bar`; `module.exports.x` and `exports.x` are `x`; `(*T).M` is `T.M`; `Foo.bar(int, String)`
    is `Foo.bar` with the types `("int", "String")`; `Foo.bar()` is `Foo.bar` with no
    parameters."""
    text = name.strip()
    params: tuple[str, ...] | None = None
    if text.endswith(")") and "(" in text and not text.startswith("("):
        head, _, inside = text.partition("(")
        if not head.endswith("operator"):
            inside = inside[:-1].strip()
            params = tuple(_type_name(p) for p in _split_top(inside)) if inside else ()
            text = head
    if all(part.isidentifier() for part in text.replace("$", "_").split(".") if part):
        parts = [p for p in text.split(".") if p]  # the usual spelling: no `re` to import
    else:
        import re

        receiver = re.match(r"\(\s*\*?\s*([\w.]+)\s*\)\s*\.?\s*(.*)", text)
        if receiver:  # Go's `(*T).M`
            text = f"{receiver.group(1)}.{receiver.group(2)}"
        parts = [p for p in re.split(r"\s*(?:::|#|\.)\s*", text) if p]
    if parts[:2] == ["module", "exports"]:
        parts = parts[2:]
    elif parts[:1] == ["exports"]:
        parts = parts[1:]
    parts = [p for p in parts if p != "prototype"]
    return ".".join(parts), params


def _without_count(name: str) -> str:
    base, tilde, count = name.rpartition("~")
    return base if tilde and base and count.isdigit() else name


def _split_top(text: str) -> list[str]:
    """`text` split at commas outside brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "<([{":
            depth += 1
        elif char in ">)]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _type_name(text: str) -> str:
    """A parameter's type as compared: generics, annotations, `final`, `const`, pointers,
    references and package or namespace dropped (`final java.util.List<String>` and `List` both
    give `List`, `const std::string&` gives `string`); arrays and varargs kept."""
    import re

    text = re.sub(r"@\w+(?:\([^)]*\))?", " ", text)
    text = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "", text).replace("*", " ").replace("&", " ")
    words = [w for w in text.replace("...", "[] ").split() if w not in ("final", "const")]
    if not words:
        return ""
    arrays = "".join(re.findall(r"\[\]", " ".join(words)))
    return re.split(r"\.|::", words[0])[-1].replace("[]", "") + arrays


def _parameter_types(signature: str) -> tuple[str, ...] | None:
    """The parameter types of a Java or C-family signature (`void m(String s, int n)` gives
    `("String", "int")`), or None when it has no parameter list."""
    start = signature.find("(")
    if start < 0:
        return None
    depth = 0
    for end in range(start, len(signature)):
        if signature[end] == "(":
            depth += 1
        elif signature[end] == ")":
            depth -= 1
            if depth == 0:
                break
    else:
        return None
    inside = signature[start + 1 : end].strip()
    if not inside or inside == "void":
        return ()
    import re

    types = []
    for param in _split_top(inside):
        param = re.sub(r"\s*=.*$", "", param)  # a C++ default argument
        words = re.sub(r"@\w+(?:\([^)]*\))?", " ", param).split()
        # The type is the parameter without its name (the last word), unless it is one word.
        words = [w for w in words if w not in ("final", "const")]
        typed = " ".join(words[:-1]) if len(words) > 1 else " ".join(words)
        types.append(_type_name(typed))
    return tuple(types)


def innermost_at(symbols: list[Symbol], line: int) -> Symbol | None:
    """The narrowest symbol whose span contains `line` (1-based)."""
    best: Symbol | None = None
    for symbol in symbols:
        if symbol.start_line <= line <= symbol.end_line and (
            best is None or symbol.end_line - symbol.start_line <= best.end_line - best.start_line
        ):
            best = symbol
    return best
