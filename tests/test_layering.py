"""The core library imports no adapter: no CLI, no MCP SDK, no language server, no editor code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADAPTERS = (
    "anchors.cli",
    "anchors.mcp",
    "lsp_server",
    "hooks",
    "mcp",
    "pygls",
    "lsprotocol",
    "rich",
)


def core_modules() -> list[Path]:
    return [
        p
        for p in (ROOT / "anchors").rglob("*.py")
        if p.relative_to(ROOT / "anchors").parts[0] not in ("cli", "mcp")
    ]


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_core_modules_import_no_adapter() -> None:
    modules = core_modules()
    assert len(modules) > 20
    for path in modules:
        bad = {n for n in imported(path) if n == "mcp" or n.startswith(ADAPTERS)}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_test_can_fail() -> None:
    sample = ROOT / "anchors" / "cli" / "learnings.py"
    assert any(n.startswith("anchors.cli") for n in imported(sample))
