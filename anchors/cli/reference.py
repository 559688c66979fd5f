"""Write the CLI reference (docs/cli.md) from the argument parser itself, so it cannot drift.

`python -m anchors.cli.reference > docs/cli.md`; a test checks the file is current.
"""

from __future__ import annotations

import argparse
import io
import os
from typing import Any

from anchors.cli.main import build_parser

HEADER = """# Command line reference

Generated from the parser by `python -m anchors.cli.reference > docs/cli.md`; a test keeps it
current. Exit codes: `0` ok; `1` findings; `2` usage or bad input; `3` rejected by the scanner;
`4` not inside a git repository. With `--json`, stdout holds exactly one JSON document.
"""


class _Python311Invocation(argparse.HelpFormatter):
    """An option's invocation as Python 3.11 writes it (`--category C, -c C`): 3.13 writes the
    value once (`--category, -c C`)."""

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        args = self._format_args(action, self._get_default_metavar_for_optional(action))
        return ", ".join(f"{option} {args}" for option in action.option_strings)


def _stable(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The parser's help written the same on every Python this project supports."""
    own = parser.formatter_class
    if not (isinstance(own, type) and issubclass(own, _Python311Invocation)):
        base = own if isinstance(own, type) else argparse.HelpFormatter
        stable: Any = type(f"Stable{base.__name__}", (_Python311Invocation, base), {})
        parser.formatter_class = stable
    parser._optionals.title = "options"  # 3.10 says "optional arguments"
    return parser


def render() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal: fix it for a stable file
    parser = _stable(build_parser())
    out = io.StringIO()
    out.write(HEADER)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    choices: dict[str, Any] = sub.choices
    for name in choices:
        p = _stable(choices[name])
        out.write(f"\n## tether {name}\n\n{helps.get(name) or ''}\n\n```\n")
        out.write(p.format_help().replace(p.prog, f"tether {name}", 1).rstrip() + "\n```\n")
    return out.getvalue()


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
