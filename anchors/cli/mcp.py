"""`tether mcp`: the MCP server on stdio (the SDK is imported only when this command runs)."""

from __future__ import annotations

import argparse
from typing import Any


def cmd_mcp(args: argparse.Namespace) -> int:
    from anchors.mcp.server import serve

    serve(args.session or "")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("mcp", help="serve the memory to coding agents over MCP (stdio)")
    p.add_argument(
        "--session", metavar="S", help="session id for provenance and the frozen context pack"
    )
    p.set_defaults(func=cmd_mcp)
