"""Entry point of the `tether` console script: argument parsing and error handling only."""

from __future__ import annotations

import sys

from anchors.errors import EXIT_USAGE, TetherError

# argparse is imported only when a parser is built: `tether history` reads its usual arguments
# without one, to start git sooner (see anchors.cli.history.fast_args).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# Each module registers its subcommands with `register(subparsers)`; heavy imports stay inside the
# functions those subcommands run, so start-up stays fast.
COMMAND_MODULES = [
    "anchors.cli.learnings",
    "anchors.cli.log",
    "anchors.cli.sync",
    "anchors.cli.gc",
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

# Which module registers each command: `tether add` imports only its own module (a test keeps this
# table in step with COMMAND_MODULES). Help and unknown commands build the full parser.
COMMAND_INDEX = {
    **dict.fromkeys(
        ["init", "add", "list", "show", "confirm", "reinforce", "promote", "restore", "forget",
         "invalidate", "archive", "supersede"],
        "anchors.cli.learnings",
    ),
    "log": "anchors.cli.log",
    "sync": "anchors.cli.sync",
    "gc": "anchors.cli.gc",
    "recall": "anchors.cli.recall",
    "embed": "anchors.cli.recall",
    "context": "anchors.cli.context",
    "review": "anchors.cli.review",
    **dict.fromkeys(["notebook", "profile", "blueprint"], "anchors.cli.stores"),
    "bootstrap": "anchors.cli.bootstrap",
    "mcp": "anchors.cli.mcp",
    "stale": "anchors.cli.stale",
    "history": "anchors.cli.history",
    "lsp": "anchors.cli.lsp",
    "scan": "anchors.cli.scan",
    "hooks": "anchors.cli.hooks_install",
}  # fmt: skip


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full parser, or with `only`, a parser that knows just the module of that command."""
    import argparse
    import importlib

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            sys.stderr.write(f"tether: {message}\n")
            raise SystemExit(EXIT_USAGE)

    parser = _Parser(
        prog="tether",
        description="Project memory for codebases: learnings anchored to code, shared through git.",
    )
    from anchors import __version__

    parser.add_argument("--version", action="version", version=f"tether {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in [COMMAND_INDEX[only]] if only in COMMAND_INDEX else COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The subcommand in argv, skipping the global `-C DIR`; None when help is asked for."""
    args = list(argv)
    while args and args[0] == "-C" and len(args) > 1:
        args = args[2:]
    if args and args[0] in COMMAND_INDEX:
        return args[0]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    command = _command_word(words)
    args = None
    if command == "history":  # it races `git log -L`: its usual arguments skip argparse
        from anchors.cli.history import fast_args

        args = fast_args(words)
    if args is None:
        parser = build_parser(only=command)
        args = parser.parse_args(words)
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


def run() -> None:
    """The console script: `main`, then exit with its status.

    `tether history`, which writes nothing (its background commit-graph writer is a process of
    its own), ends without the interpreter's teardown: freeing every parsed version and module
    one by one costs ~4 ms of a command that races `git log -L` (docs/benchmarks.md)."""
    code = main()
    if _command_word(sys.argv[1:]) == "history":
        import os

        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # a reader that went away (`| head`): nothing more to say
            pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    run()
