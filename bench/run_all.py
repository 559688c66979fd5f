"""`make bench`: run every area's benchmark in turn, each as its own process.

Benchmarks that need public repositories as subjects (history accuracy and speed, indexing) look for
them under $TETHER_SUBJECTS (default /work/subjects) and say so when they are missing.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

AREAS = ["core", "index", "stale", "anchors", "scanner", "lsp", "recall"]


def main() -> int:
    here = Path(__file__).parent
    failed = []
    for area in AREAS:
        if not (here / area / "__main__.py").exists():
            continue
        print(f"\n=== bench.{area}", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", f"bench.{area}"])
        print(f"=== bench.{area}: exit {code} in {time.perf_counter() - start:.0f} s", flush=True)
        if code:
            failed.append(area)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
