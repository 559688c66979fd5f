"""`tether lsp`: the language server on stdio, for editors.

The server lives in the `lsp_server` package; it is imported by name when this command runs, so
the core library keeps no static dependency on it and other commands never pay for pygls.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from anchors.errors import UsageError


def cmd_lsp(args: argparse.Namespace) -> int:
    if not args.stdio:
        raise UsageError("only --stdio is supported")
    try:
        server = importlib.import_module("lsp_server.server")
    except ImportError as exc:
        raise UsageError(f"the language server cannot start: {exc}") from None
    return int(server.main(log_file=args.log_file, verbose=args.verbose))


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "lsp", help="serve learnings to editors over the Language Server Protocol (stdio)"
    )
    # Editors (vscode-languageclient) append --stdio to the command line; it is the default.
    p.add_argument("--stdio", action="store_true", default=True, help="talk over stdin/stdout")
    p.add_argument("--log-file", metavar="PATH", help="also write the server's log to PATH")
    p.add_argument("-v", "--verbose", action="store_true", help="log every request (debug level)")
    p.set_defaults(func=cmd_lsp)
