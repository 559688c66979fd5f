"""detect-secrets' secret formats, read from the installed package's plugin sources without importing it.

detect-secrets keeps a maintained set of regex plugins (AWS, GitHub, GitLab, Slack, Stripe, ...).
Importing any of them costs 100-200 ms: `detect_secrets/__init__.py` loads the whole scanning
engine and `detect_secrets/plugins/base.py` imports `requests` (for the plugins' online
verification, which the scanner never uses). Every `tether add` would pay that, so the scanner reads
the plugins instead: it locates the installed package (asking the import system's finders, which
does not run it), parses each plugin module with `ast`, and evaluates the `denylist` of every
`RegexBasedDetector` subclass: string literals, names bound earlier in the class or module,
`+`, `str.format`, `re.escape` and `re.compile(pattern, flags)`. Nothing from the package is
executed. The result follows whatever version is installed, with no cache to go stale.

If a future release writes a denylist this reader cannot evaluate, `plugin_patterns` falls back to
importing detect-secrets (slow, still correct); the test suite compares both paths so the
difference is noticed.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from functools import lru_cache
from typing import Any

# Plugins the scanner leaves out, by class name, and why: a public IP address is not a secret;
# the private-key plugin fires on a bare "BEGIN ... PRIVATE KEY" header, which notes about keys
# quote (`secret.private-key` asks for the key material too); the Cloudant, IBM and SoftLayer
# plugins look for `<vendor>_password = value`, which `secret.assigned-credential` covers for any
# vendor, and their look-behind patterns cost more than all the other plugins together.
SKIPPED_PLUGINS = frozenset(
    {
        "IPPublicDetector",
        "PrivateKeyDetector",
        "CloudantDetector",
        "IbmCloudIamDetector",
        "IbmCosHmacDetector",
        "SoftlayerDetector",
    }
)

_REGEX_BASE = "RegexBasedDetector"


# One regex of a detect-secrets plugin: (plugin class name, e.g. "GitHubTokenDetector"; its secret
# type, e.g. "GitHub Token"; the pattern; its re flags as detect-secrets compiles them, re.UNICODE
# included for str patterns). A plain tuple: the scanner's import pays nothing to define it.
PluginPattern = tuple[str, str, str, int]


class Unsupported(Exception):
    """A plugin source uses a construct this reader does not evaluate."""


def plugins_dir() -> str | None:
    """The installed `detect_secrets/plugins` directory, found without importing the package."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec("detect_secrets", None) if find_spec is not None else None
        if spec is None:
            continue
        for location in spec.submodule_search_locations or ():
            candidate = os.path.join(location, "plugins")
            if os.path.isdir(candidate):
                return candidate
        return None
    return None


@lru_cache(maxsize=1)
def plugin_patterns() -> tuple[PluginPattern, ...]:
    """Every regex of detect-secrets' regex plugins, minus `SKIPPED_PLUGINS`, in a stable order."""
    try:
        return read_from_source()
    except (Unsupported, OSError, SyntaxError, re.error, ValueError):
        return read_by_import()


def read_from_source(directory: str | None = None) -> tuple[PluginPattern, ...]:
    """The patterns as evaluated from the plugin sources (raises `Unsupported` when it cannot)."""
    directory = directory or plugins_dir()
    if directory is None:
        raise Unsupported("detect-secrets is not installed")
    found: list[PluginPattern] = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(directory, name)
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        if f"({_REGEX_BASE})" not in source:
            continue  # no class in this module derives from RegexBasedDetector directly
        found.extend(_module_patterns(ast.parse(source, path)))
    if not found:
        raise Unsupported("no regex plugins found")
    return tuple(sorted(found, key=_order))


def _order(pattern: PluginPattern) -> tuple[str, str]:
    return (pattern[1], pattern[0])


def read_by_import() -> tuple[PluginPattern, ...]:
    """The same patterns from detect-secrets' own plugin classes (imports the package: slow)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    found: list[PluginPattern] = []
    plugins: dict[str, type] = dict(get_mapping_from_secret_type_to_class())
    for secret_type, plugin in plugins.items():
        if not issubclass(plugin, RegexBasedDetector) or plugin.__name__ in SKIPPED_PLUGINS:
            continue
        denylist: list[re.Pattern[str]] = list(getattr(plugin, "denylist", ()))
        for compiled in denylist:
            found.append((plugin.__name__, secret_type, compiled.pattern, compiled.flags))
    return tuple(sorted(found, key=_order))


def _module_patterns(module: ast.Module) -> list[PluginPattern]:
    scope: dict[str, object] = {}
    found: list[PluginPattern] = []
    for node in module.body:
        if isinstance(node, ast.Assign):
            _bind(node, scope)
        elif isinstance(node, ast.ClassDef) and _derives_from_regex_base(node):
            if node.name in SKIPPED_PLUGINS:
                continue
            found.extend(_class_patterns(node, scope))
    return found


def _derives_from_regex_base(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name == _REGEX_BASE:
            return True
    return False


def _class_patterns(node: ast.ClassDef, module_scope: dict[str, object]) -> list[PluginPattern]:
    scope = dict(module_scope)
    denylist: ast.expr | None = None
    for statement in node.body:
        if not isinstance(statement, ast.Assign):
            continue
        targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        if "denylist" in targets:
            denylist = statement.value
        else:
            _bind(statement, scope)
    secret_type = scope.get("secret_type")
    if not isinstance(secret_type, str):
        raise Unsupported(f"{node.name}: secret_type is not a string literal")
    if not isinstance(denylist, (ast.List, ast.Tuple)):
        raise Unsupported(f"{node.name}: denylist is not a list or tuple literal")
    patterns = []
    for element in denylist.elts:
        pattern, flags = _compile_call(element, scope)
        patterns.append((node.name, secret_type, pattern, flags))
    return patterns


def _bind(statement: ast.Assign, scope: dict[str, object]) -> None:
    """Evaluate `name = <expr>` into `scope` when the expression is one we can evaluate."""
    if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
        return
    try:
        scope[statement.targets[0].id] = _evaluate(statement.value, scope)
    except Unsupported:
        scope.pop(statement.targets[0].id, None)


def _compile_call(node: ast.expr, scope: dict[str, object]) -> tuple[str, int]:
    """`re.compile(pattern[, flags])` -> (pattern, flags with re.UNICODE as `re` adds it)."""
    if not (isinstance(node, ast.Call) and _is_re_attribute(node.func, "compile")):
        raise Unsupported("a denylist entry is not a re.compile(...) call")
    if not node.args or len(node.args) > 2:
        raise Unsupported("re.compile with unexpected arguments")
    pattern = _evaluate(node.args[0], scope)
    flags: object = _evaluate(node.args[1], scope) if len(node.args) == 2 else 0
    for keyword in node.keywords:
        if keyword.arg != "flags":
            raise Unsupported(f"re.compile keyword {keyword.arg!r}")
        flags = _evaluate(keyword.value, scope)
    if not isinstance(pattern, str) or not isinstance(flags, int):
        raise Unsupported("re.compile of a non-string pattern")
    # `re` adds UNICODE to str patterns unless told ASCII; compiling waits until a text needs it.
    return pattern, flags if flags & re.ASCII else flags | re.UNICODE


def _is_re_attribute(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "re"
    )


def _evaluate(node: ast.expr, scope: dict[str, object]) -> object:
    """A small, side-effect-free evaluator for the expressions plugins build their regexes from."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in scope:
            return scope[node.id]
        raise Unsupported(f"unknown name {node.id}")
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "re"
    ):
        flag = getattr(re, node.attr, None)
        if isinstance(flag, re.RegexFlag):
            return int(flag)
        raise Unsupported(f"re.{node.attr}")
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, scope), _evaluate(node.right, scope)
        if isinstance(node.op, ast.Add) and isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(node.op, ast.BitOr) and isinstance(left, int) and isinstance(right, int):
            return left | right
        raise Unsupported("binary operation")
    if isinstance(node, ast.Call):
        func = node.func
        if _is_re_attribute(func, "escape") and len(node.args) == 1 and not node.keywords:
            value = _evaluate(node.args[0], scope)
            if isinstance(value, str):
                return re.escape(value)
        if isinstance(func, ast.Attribute) and func.attr == "format":
            template = _evaluate(func.value, scope)
            if isinstance(template, str):
                args = [_evaluate(a, scope) for a in node.args]
                kwargs = {k.arg: _evaluate(k.value, scope) for k in node.keywords if k.arg}
                if len(kwargs) != len(node.keywords):
                    raise Unsupported("**kwargs in format()")
                return template.format(*args, **kwargs)
    raise Unsupported(type(node).__name__)


def jwt_is_formally_valid(token: str) -> bool:
    """detect-secrets' JWT check: every part base64url-decodes, header and payload are JSON."""
    import base64
    import binascii
    import json

    for index, part in enumerate(token.split(".")):
        missing = len(part) % 4
        if missing == 1:
            return False
        try:
            # The padding exactly as detect-secrets adds it (two for 2, three for 3).
            decoded = base64.urlsafe_b64decode(part + {0: "", 2: "==", 3: "==="}[missing])
            if index < 2:
                json.loads(decoded.decode("utf-8"))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            return False
    return True


_MAX_ALTERNATIVES = 64


def required_literals(pattern: str, flags: int) -> tuple[str, ...] | None:
    """Literal strings one of which every match of `pattern` contains, or None if none is known.

    Read from the parsed pattern: runs of literal characters, small character sets (`[po]`),
    groups and alternations of such (`(ghp|gho)_` gives `ghp_`, `gho_`). Lookarounds and anchors
    are skipped, since they consume nothing; a repeat that may occur zero times, or anything else,
    ends a run. Case-insensitive patterns give lower-case strings, to look for in lower-cased text.
    The most selective set wins (its shortest string is the longest). Only a gate: a text that
    holds none of them cannot match, so the pattern is not run on it.
    """
    sre, _parser = _regex_internals()
    # POSSESSIVE_REPEAT is new in Python 3.11 (no pattern can hold one before).
    repeats = {sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)}
    try:
        tree = _parser.parse(pattern, flags)
    except re.error:
        return None
    ignore_case = bool((flags | tree.state.flags) & re.IGNORECASE)
    candidates: list[frozenset[str]] = []

    def scan(
        items: list[tuple[object, object]], current: set[str]
    ) -> tuple[set[str], bool, set[str]]:
        """Walk a sequence from the strings `current` ends with.

        Returns the strings it ends with, whether it is nothing but literals, and its lead: the
        strings it starts with up to its first non-literal.
        """
        pure = True
        lead: set[str] | None = None

        def flush() -> None:
            nonlocal current, lead
            if lead is None:
                lead = current
            if current and "" not in current:
                candidates.append(frozenset(current))
            current = {""}

        for op, av in items:
            chars: list[str] | None = None
            if op is sre.LITERAL:
                chars = [chr(av)]  # type: ignore[arg-type]
            elif op is sre.IN and all(kind is sre.LITERAL for kind, _ in av):  # type: ignore[attr-defined]
                chars = [chr(value) for _, value in av]  # type: ignore[attr-defined]
            if chars is not None:
                if ignore_case and not all(c.isascii() for c in chars):
                    pure = False
                    flush()
                    continue
                grown = {p + c for p in current for c in chars}
                if len(grown) > _MAX_ALTERNATIVES:
                    flush()
                    grown = set(chars)
                current = grown
            elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
                continue  # consumes nothing: what comes before and after stays contiguous
            elif op is sre.SUBPATTERN and not av[1] and not av[2]:  # type: ignore[index]
                current, inner_pure, inner_lead = scan(av[3], current)  # type: ignore[index]
                if not inner_pure and lead is None:
                    lead = inner_lead
                pure = pure and inner_pure
            elif op is sre.BRANCH:
                ends: list[set[str]] = []
                leads: list[set[str]] = []
                every_pure = True
                # What one alternative requires is not required: keep its candidates apart.
                kept = len(candidates)
                for alternative in av[1]:  # type: ignore[index]
                    end, alternative_pure, alternative_lead = scan(alternative, {""})
                    every_pure = every_pure and alternative_pure
                    ends.append(end)
                    leads.append(alternative_lead)
                del candidates[kept:]
                if every_pure and all("" not in end for end in ends):
                    grown = {p + e for p in current for end in ends for e in end}
                    if len(grown) <= _MAX_ALTERNATIVES:
                        current = grown
                        continue
                pure = False
                if all("" not in each for each in leads):
                    grown = {p + e for p in current for each in leads for e in each}
                    if len(grown) <= _MAX_ALTERNATIVES:
                        current = grown
                flush()
            elif op in repeats:
                repeat: tuple[int, int, list[tuple[object, object]]] = av  # type: ignore[assignment]
                low, inner = repeat[0], repeat[2]
                pure = False
                flush()
                if low >= 1:
                    scan(inner, {""})
            else:
                pure = False
                flush()
        return current, pure, current if lead is None else lead

    end, _, _ = scan(list(tree.data), {""})
    if end and "" not in end:
        candidates.append(frozenset(end))
    if not candidates:
        return None
    best = max(candidates, key=lambda c: (min(map(len, c)), -len(c)))
    return tuple(sorted(s.lower() for s in best) if ignore_case else sorted(best))


def _regex_internals() -> tuple[Any, Any]:
    """The regex parser and its constants: `re._parser` / `re._constants` from Python 3.11,
    `sre_parse` / `sre_constants` on 3.10."""
    try:
        from re import _constants as sre  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as sre  # type: ignore[no-redef]
        import sre_parse as _parser  # type: ignore[no-redef]
    return sre, _parser
