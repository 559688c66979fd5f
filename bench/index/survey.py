"""Survey the symbol index against a crude, independent count of function-looking lines.

    .venv/bin/python -m bench.index.survey PATH [PATH ...] [--show 5] [--language go]

For every tracked file with a grammar in each PATH (a checkout used as a subject only), a
regular expression per language marks the lines that look like the start of a function or
method (`def `, `func `, `fn `, `function`, `x = function`, `name(...) {`, Java and C-family
headers). A marked line counts as found when a function or method symbol's declaration covers it
(from its first line to the line where its body starts). The regular expressions know nothing
of syntax, so both sides have errors: the point is to read the differences, which the report
prints (`--show N` per language) next to the counts.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from anchors.languages import language_for_path, parser_for
from anchors.symbols import load_source, symbols_from_tree

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

_JS_METHOD_MODIFIERS = (
    r"(?:(?:public|private|protected|static|async|get|set|readonly|abstract|override|"
    r"declare)\s+)*"
)
_JS = [
    r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\b\s*\*?\s*[\w$]+",
    r"^\s*[\w$.\[\]'\"]+\s*=\s*(?:async\s+)?function\b",
    r"^\s*[\w$.]+\s*=\s*(?:async\s+)?\([^)]*\)\s*=>",
    r"^\s*(?:export\s+)?(?:const|let|var)\s+[\w$]+\s*(?::[^=]+)?=\s*(?:async\s+)?"
    r"(?:function\b|\([^)]*\)\s*(?::\s*[^=]+)?=>|[\w$]+\s*=>)",
    # A method: simple parameters (no strings, calls or callbacks), then its body opens.
    r"^\s*" + _JS_METHOD_MODIFIERS + r"\*?[\w$#]+\s*(?:<[^>]*>)?\s*\([^()'\"`=>]*\)\s*"
    r"(?::\s*[^;{=]+)?\{",
    r"^\s*[\w$]+\s*:\s*(?:async\s+)?function\b",
]
_NOT_JS_METHOD = re.compile(r"^\s*(?:if|for|while|switch|catch|function|return|with|else|do)\b")
_JAVA_MODS = (
    r"(?:(?:public|private|protected|static|final|abstract|synchronized|native|default|"
    r"strictfp)\s+|@\w+(?:\([^)]*\))?\s+)*"
)
PATTERNS: dict[str, list[str]] = {
    "python": [r"^\s*(?:async\s+)?def\s+\w+"],
    "go": [r"^func\s"],
    "rust": [
        r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?"
        r"(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+\w+"
    ],
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "java": [
        r"^\s*" + _JAVA_MODS + r"(?:<[^>]+>\s+)?[\w.<>\[\]?, ]*[\w>\]]\s+\w+\s*\([^;=]*$",
        r"^\s*" + _JAVA_MODS + r"(?:public|private|protected)\s+[A-Z]\w*\s*\([^;=]*$",
    ],
    "c": [r"^[A-Za-z_][\w \t\*]*?\b\w+\s*\([^;]*$"],
    "cpp": [
        r"^[A-Za-z_~][\w \t\*&:<>,~]*?[\w~:]+\s*\([^;]*$",
        r"^\s+(?:virtual\s+|static\s+|inline\s+|constexpr\s+|explicit\s+)*[\w:<>,\*& ~]*?"
        r"[\w~]+\s*\([^;]*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:final\s*)?\{",
    ],
}
_NOT_C = re.compile(
    r"^\s*(?:if|for|while|switch|return|else|do|case|sizeof|typedef|#|//|/\*|\*)\b|^\s*(?://|/\*|\*|#)"
)
_NOT_JAVA = re.compile(r"^\s*(?:return|new|throw|else|if|for|while|switch|catch|case|assert)\b")
FUNCTION_KINDS = frozenset({"function", "method"})


def in_text(tree: Tree, row: int, column: int) -> bool:
    """Whether the point is inside a string or a comment (code quoted in tests, examples)."""
    node: Node | None = tree.root_node.descendant_for_point_range((row, column), (row, column))
    while node is not None:
        if "string" in node.type or "comment" in node.type or node.type == "raw_string_literal":
            return True
        node = node.parent
    return False


def marked_lines(text: str, language: str, tree: Tree | None = None) -> list[int]:
    """1-based numbers of the lines that the crude patterns take for a function's first line
    (with `tree`, lines that start inside a string or a comment are left out)."""
    patterns = [re.compile(p) for p in PATTERNS[language]]
    marked = []
    for number, line in enumerate(text.splitlines(), 1):
        if not any(p.search(line) for p in patterns):
            continue
        if tree is not None:
            column = len(line.encode()) - len(line.lstrip().encode())
            if in_text(tree, number - 1, column):
                continue
        if (
            language in ("javascript", "typescript", "tsx")
            and _NOT_JS_METHOD.search(line)
            and not re.search(r"\bfunction\b\s*\*?\s*[\w$]+\s*\(", line)
        ):
            continue
        if language == "java" and _NOT_JAVA.search(line):
            continue
        if language in ("c", "cpp") and _NOT_C.search(line):
            continue
        marked.append(number)
    return marked


def tracked(root: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index.survey")
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--show", type=int, default=5, help="misses printed per language")
    parser.add_argument("--language", default=None, help="only this language")
    parser.add_argument("--extra", action="store_true", help="also print symbols not marked")
    args = parser.parse_args(argv)
    marked_n: Counter[str] = Counter()
    found_n: Counter[str] = Counter()
    symbols_n: Counter[str] = Counter()
    unmarked_n: Counter[str] = Counter()
    misses: dict[str, list[str]] = defaultdict(list)
    extras: dict[str, list[str]] = defaultdict(list)
    for path in args.paths:
        root = Path(path)
        for rel in tracked(root):
            language = language_for_path(rel)
            if language is None or (args.language and language != args.language):
                continue
            source, _ = load_source(root / rel)
            if source is None:
                continue
            text = source.decode("utf-8", "replace")
            lines = text.splitlines()
            tree = parser_for(language).parse(source)
            symbols = [
                s for s in symbols_from_tree(tree, source, language) if s.kind in FUNCTION_KINDS
            ]
            covered: set[int] = set()
            for s in symbols:
                head_end = source.count(b"\n", 0, max(s.body_start, s.start_byte)) + 1
                covered.update(range(s.start_line, max(head_end, s.start_line) + 1))
            marked = marked_lines(text, language, tree)
            marked_n[language] += len(marked)
            symbols_n[language] += len(symbols)
            marked_set = set(marked)
            for number in marked:
                if number in covered:
                    found_n[language] += 1
                else:
                    misses[language].append(
                        f"{root.name}/{rel}:{number}: {lines[number - 1].strip()[:100]}"
                    )
            for s in symbols:
                head_end = source.count(b"\n", 0, max(s.body_start, s.start_byte)) + 1
                if not marked_set.intersection(range(s.start_line, head_end + 1)):
                    unmarked_n[language] += 1
                    extras[language].append(f"{root.name}/{rel}:{s.start_line}: {s.name}")
    print(
        "| language | lines marked | found by the index | missed | function/method symbols |"
        " symbols on no marked line |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for language in sorted(marked_n):
        m, f = marked_n[language], found_n[language]
        print(
            f"| {language} | {m:,} | {f:,} ({f / m:.1%}) | {m - f:,} | {symbols_n[language]:,} |"
            f" {unmarked_n[language]:,} |"
            if m
            else f"| {language} | 0 | - | - | {symbols_n[language]:,} | {unmarked_n[language]:,} |"
        )
    for language in sorted(misses):
        print(f"\n{language}: {len(misses[language])} marked lines not covered by a symbol")
        step = max(1, len(misses[language]) // max(1, args.show))
        for line in misses[language][::step][: args.show]:
            print("  " + line)
        if args.extra:
            print(f"{language}: symbols on no marked line")
            step = max(1, len(extras[language]) // max(1, args.show))
            for line in extras[language][::step][: args.show]:
                print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
