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


def render() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal: fix it for a stable file
    parser = build_parser()
    out = io.StringIO()
    out.write(HEADER)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    choices: dict[str, Any] = sub.choices
    for name in choices:
        p = choices[name]
        out.write(f"\n## tether {name}\n\n{helps.get(name) or ''}\n\n```\n")
        out.write(p.format_help().replace(p.prog, f"tether {name}", 1).rstrip() + "\n```\n")
    return out.getvalue()


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
