"""The anchors benchmarks: history accuracy against the hand-made truth, then history speed.

.venv/bin/python -m bench.anchors
"""

from __future__ import annotations

import sys

from bench.anchors import accuracy, history_speed


def main() -> int:
    """Run the accuracy scorer, then the speed comparison with `git log -L`."""
    status = accuracy.main([])
    print()
    return status or history_speed.main(["--rounds", "5"])


if __name__ == "__main__":
    sys.exit(main())
