"""Entry point of the `tether` console script: argument parsing and error handling only."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from anchors.errors import EXIT_USAGE, TetherError

# Each module registers its subcommands with `register(subparsers)`; heavy imports stay inside the
# functions those subcommands run, so start-up stays fast.
COMMAND_MODULES = [
    "anchors.cli.learnings",
    "anchors.cli.log",
    "anchors.cli.sync",
    "anchors.cli.recall",
    "anchors.cli.context",
    "anchors.cli.review",
    "anchors.cli.stores",
    "anchors.cli.bootstrap",
    "anchors.cli.mcp",
    "anchors.cli.stale",
    "anchors.cli.history",
    "anchors.cli.lsp",
    "anchors.cli.scan",
    "anchors.cli.hooks_install",
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"tether: {message}\n")
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tether",
        description="Project memory for codebases: learnings anchored to code, shared through git.",
    )
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    if args.directory:
        import os

        try:
            os.chdir(args.directory)
        except OSError as exc:
            sys.stderr.write(f"tether: cannot enter {args.directory}: {exc.strerror}\n")
            return EXIT_USAGE
    try:
        return int(args.func(args) or 0)
    except TetherError as exc:
        sys.stderr.write(f"tether: {exc.message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("tether: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of ours: still one line, the traceback only on request
        import os

        if os.environ.get("TETHER_DEBUG"):
            raise
        sys.stderr.write(
            f"tether: internal error: {exc.__class__.__name__}: {exc} "
            "(set TETHER_DEBUG=1 for the traceback)\n"
        )
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(main())
