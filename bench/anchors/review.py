"""Aid for establishing the ground truth by hand (not used by the scorer or by `tether history`).

For one symbol it lists candidate commits from several independent sources and prints, for each
candidate, the symbol's text before and after with comments removed, as a unified diff, so that a
person can decide whether the commit changed the code. It deliberately uses its own small
tree-sitter lookup rather than `anchors.history`, so that the truth does not inherit the tool's bugs.

    .venv/bin/python -m bench.anchors.review REPO PATH SYMBOL [--rev REV] [--commits C1,C2,...]
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
from pathlib import Path

from tree_sitter import Language, Node, Parser

_DEFS = {
    "python": {"function_definition", "class_definition"},
    "javascript": {
        "function_declaration",
        "method_definition",
        "class_declaration",
        "generator_function_declaration",
    },
    "typescript": {
        "function_declaration",
        "method_definition",
        "class_declaration",
        "abstract_class_declaration",
        "generator_function_declaration",
        "interface_declaration",
    },
    "go": {"function_declaration", "method_declaration", "type_spec"},
    "rust": {"function_item", "impl_item", "struct_item", "trait_item", "mod_item", "enum_item"},
    "java": {
        "method_declaration",
        "class_declaration",
        "constructor_declaration",
        "interface_declaration",
    },
}
_EXT = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".es6": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}


def _parser(language: str) -> Parser:
    if language == "python":
        import tree_sitter_python as mod
    elif language == "javascript":
        import tree_sitter_javascript as mod  # type: ignore[no-redef]
    elif language == "typescript":
        import tree_sitter_typescript

        return Parser(Language(tree_sitter_typescript.language_typescript()))
    elif language == "tsx":
        import tree_sitter_typescript

        return Parser(Language(tree_sitter_typescript.language_tsx()))
    elif language == "go":
        import tree_sitter_go as mod  # type: ignore[no-redef]
    elif language == "rust":
        import tree_sitter_rust as mod  # type: ignore[no-redef]
    else:
        import tree_sitter_java as mod  # type: ignore[no-redef]
    return Parser(Language(mod.language()))


def _name(node: Node, language: str) -> str | None:
    if node.type == "impl_item":
        t = node.child_by_field_name("type")
        return t.text.decode().split("<")[0] if t is not None and t.text else None
    if node.type == "method_declaration" and language == "go":
        recv = node.child_by_field_name("receiver")
        rtype = recv.text.decode() if recv is not None and recv.text else ""
        # (type parameters first: `(c *Cache[K, V])` holds a blank inside them)
        rtype = rtype.strip("()").split("[")[0].split()[-1].lstrip("*")
        n = node.child_by_field_name("name")
        return f"{rtype}.{n.text.decode()}" if n is not None and n.text else None
    n = node.child_by_field_name("name")
    return n.text.decode() if n is not None and n.text else None


def _declared(node: Node) -> str | None:
    """`const name = (...) => {...}` (one declarator, a function value) and a class field holding
    a function (`name = (...) => {...}`) in TypeScript and JavaScript."""
    d = None
    if node.type == "lexical_declaration" and len(node.named_children) == 1:
        d = node.named_children[0]  # the variable_declarator
    elif node.type == "public_field_definition":  # `name = (...) => {...}` in a class body
        d = node
    if d is not None:
        name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
        if value is not None and value.type in ("arrow_function", "function_expression"):
            return name.text.decode() if name is not None and name.text else None
    return None


def _assigned(node: Node) -> str | None:
    """`a.b.c = function ...` in JavaScript: the left-hand side as the name."""
    if node.type == "expression_statement" and node.named_children:
        e = node.named_children[0]
        if e.type == "assignment_expression":
            right = e.child_by_field_name("right")
            left = e.child_by_field_name("left")
            if right is not None and right.type in (
                "function_expression",
                "function",
                "arrow_function",
            ):
                return left.text.decode() if left is not None and left.text else None
    return None


def _broken(node: Node) -> int:
    """Bytes under ERROR nodes (a missing token counts one)."""
    if node.type == "ERROR" or node.is_missing:
        return max(node.end_byte - node.start_byte, 1)
    return sum(_broken(c) for c in node.children if c.has_error)


def _overload(node: Node) -> bool:
    """Whether a Python definition is a `@overload` (or `@typing.overload`) stub."""
    parent = node.parent
    if parent is None or parent.type != "decorated_definition":
        return False
    return any(
        child.type == "decorator"
        and (child.text or b"").strip().lstrip(b"@").strip() in (b"overload", b"typing.overload")
        for child in parent.children
    )


def find(source: bytes, language: str, symbol: str) -> str | None:
    """The text of the definition whose qualified name is `symbol`, comments removed.
    JavaScript that its grammar cannot read (Flow's type annotations) is read as TypeScript
    when that grammar recovers from less."""
    tree = _parser(language).parse(source)
    if language == "javascript" and tree.root_node.has_error:
        typed = _parser("typescript").parse(source)
        if _broken(typed.root_node) < _broken(tree.root_node):
            tree, language = typed, "typescript"
    if language == "tsx":  # TypeScript with JSX: the same definitions
        language = "typescript"
    found: list[Node] = []

    def walk(node: Node, prefix: str) -> None:
        for child in node.named_children:
            name = None
            if child.type in _DEFS[language]:
                name = _name(child, language)
            elif language == "javascript":
                # `const f = (...) => {...}` too (immer's patches.js `clone` was one)
                name = _assigned(child) or _declared(child)
            elif language == "typescript":
                name = _declared(child)
            if name:
                q = f"{prefix}.{name}" if prefix else name
                if q == symbol:
                    found.append(child)
                walk(child, q)
            else:
                walk(child, prefix)

    walk(tree.root_node, "")
    if language == "python":
        # A function's `@overload` stubs come before it: they are type declarations, not it.
        found = [n for n in found if not _overload(n)] or found
    if not found:
        return None
    node = found[0]
    # Include Python decorators and TypeScript's `export`: they are part of the definition.
    if node.parent is not None and node.parent.type in ("decorated_definition", "export_statement"):
        node = node.parent
    text = source[node.start_byte : node.end_byte]
    cuts: list[tuple[int, int]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if "comment" in n.type:
            cuts.append((n.start_byte - node.start_byte, n.end_byte - node.start_byte))
        stack.extend(n.children)
    for a, b in sorted(cuts, reverse=True):
        text = text[:a] + text[b:]
    return text.decode("utf-8", "replace")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, errors="replace"
    ).stdout


def blob(repo: Path, rev: str, path: str) -> bytes | None:
    p = subprocess.run(["git", "cat-file", "blob", f"{rev}:{path}"], cwd=repo, capture_output=True)
    return p.stdout if p.returncode == 0 else None


def norm_lines(text: str | None) -> list[str]:
    if text is None:
        return []
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo")
    ap.add_argument("path")
    ap.add_argument("symbol")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--commits", default="")
    ap.add_argument("--old", default="", help="PATH::SYMBOL in the parent, when it differs")
    a = ap.parse_args(argv)
    repo = Path(a.repo)
    language = _EXT[Path(a.path).suffix]
    commits = [c for c in a.commits.split(",") if c]
    paths: dict[str, tuple[str, str]] = {}
    if not commits:
        attrs = Path("/tmp/tether-review-attrs")
        attrs.write_text("*.py diff=python\n*.go diff=golang\n*.rs diff=rust\n*.java diff=java\n")
        short = a.symbol.split(".")[-1]
        out = _git(
            repo,
            "-c",
            f"core.attributesFile={attrs}",
            "log",
            a.rev,
            "--format=@@@%H",
            "-L",
            f":{short}:{a.path}",
        )
        # The patch headers say which path the symbol lived at in each commit (-L follows renames).
        for chunk in out.split("@@@")[1:]:
            lines = chunk.splitlines()
            olds = [x[6:] for x in lines if x.startswith("--- a/")]
            news = [x[6:] for x in lines if x.startswith("+++ b/")]
            commits.append(lines[0])
            paths[lines[0]] = (olds[0] if olds else "", news[0] if news else a.path)
    old_path, _, old_sym = a.old.partition("::")
    for c in commits:
        op, np_ = paths.get(c, (old_path or a.path, a.path))
        new = find(blob(repo, c, np_) or b"", language, a.symbol)
        old = find(blob(repo, c + "^", op) or b"", language, old_sym or a.symbol) if op else None
        subject = _git(repo, "log", "-1", "--format=%h %ad %p %s", "--date=short", c).strip()
        if op != np_:
            subject += f"  [{op} -> {np_}]"
        diff = list(difflib.unified_diff(norm_lines(old), norm_lines(new), lineterm="", n=0))
        squeeze = ("".join((old or "").split()), "".join((new or "").split()))
        verdict = "CHANGED" if squeeze[0] != squeeze[1] else "same (whitespace/comments only)"
        if old is None:
            verdict = "ABSENT in parent"
        if new is None:
            verdict = "ABSENT in commit"
        print(f"== {subject}\n   {verdict}")
        for line in diff[2:8]:
            print("   " + line)
        if old is None:
            # Where did it come from? Definitions of the same name removed by the same commit.
            short = (old_sym or a.symbol).split(".")[-1]
            shown = _git(repo, "show", "-M", "--format=", c)
            hits = [
                x for x in shown.splitlines() if x.startswith(("-", "+++", "---")) and short in x
            ]
            for x in hits[:12]:
                print("   removed/file: " + x[:120])
    # File renames along the way (not listed by -L when the symbol's lines did not change).
    log = _git(
        repo, "log", a.rev, "--follow", "-M", "--name-status", "--format=@@@%H", "--", a.path
    )
    for chunk in log.split("@@@")[1:]:
        lines = chunk.split("\n")
        for x in lines[1:]:
            if x.startswith(("R", "C")):
                print(f"-- file rename {lines[0][:8]}: {x}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
