"""The write-time scanner on public corpora and hand-written hard cases; its speed; the stale hook.

    .venv/bin/python -m bench.scanner [--corpora DIR] [--no-stale-hook] [--json OUT]

- Detection: every `*.jsonl` in the corpora directory (default `../shared/corpora` beside the
  checkout: read by path, never copied), plus `bench/scanner/hard_cases.jsonl` (attacks written for
  this project, each with a benign twin). Reported: the share of malicious texts rejected per
  category, and the share of benign texts wrongly rejected. Pass `--corpora` another directory
  (e.g. a held-out half) to check the same on texts the rules were never tuned on.
- gitleaks' entries are decided per case where the scanner and the label disagree
  (`gitleaks_decisions.jsonl`, keyed by the sha256 of the text): a `benign` entry (one of gitleaks'
  known false positives) that is still key-shaped random material is `reject-ok`; a `malicious`
  entry that is a test placeholder (`12345678-ABCD-...`, `cafebabe:deadbeef`) is `placeholder`, one
  that is a bare hex string, UUID or number with no context is `context-free`. Both the raw rates
  and the rates after these decisions are printed; undecided disagreements count against us.
- Speed: MB/s scanning one large document and many separate notes (medians of 5).
- Start-up: `import anchors.scanner` plus the first `scan_text` in a fresh interpreter (what every
  `tether add` pays), timed inside the process, median of 11, with Python's bytecode cache on;
  once alone and once after `anchors.record` (the core is loaded before a write anyway), on an
  ASCII note and on one with Cyrillic and an em dash (the look-alike table loads).
- Stale hook: `tether-stale` as its own process on a 50-file staged change in a synthetic
  repository of >= 100k lines with 10,000 anchors (bench.stale's generator), median of 5.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_CORPORA = ROOT.parent / "shared" / "corpora"


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def category_of(row: dict[str, Any]) -> str:
    """The scanner category a corpus label stands for ('benign' for benign rows)."""
    raw = str(row.get("category", ""))
    if row.get("label") == "benign":
        return "benign:gitleaks" if raw.startswith("secret_false_positive") else "benign"
    head = raw.split(":", 1)[0]
    return {
        "prompt_injection": "injection",
        "secret": "secret",
        "unicode_bidi": "unicode",
        "unicode_homoglyph": "unicode",
        "unicode_invisible": "unicode",
    }.get(head, head)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def detection(corpora: Path) -> dict[str, Any]:
    from anchors.scanner import scan_text

    decisions = {d["sha256"]: d for d in load_jsonl(HERE / "gitleaks_decisions.jsonl")}
    sets: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(corpora.glob("*.jsonl")):
        sets[path.stem] = load_jsonl(path)
    sets["hard_cases (ours)"] = load_jsonl(HERE / "hard_cases.jsonl")
    rows = []
    for name, items in sets.items():
        counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for item in items:
            text = item["text"]
            rejected = bool(scan_text(text))
            category = category_of(item)
            if name.startswith("hard_cases") and item["label"] == "benign":
                category = "benign"
            c = counts[category]
            c["n"] += 1
            c["rejected"] += rejected
            decision = decisions.get(sha(text), {}).get("decision")
            malicious = item["label"] == "malicious"
            if malicious and not rejected and decision in ("placeholder", "context-free"):
                c["excused"] += 1
            if not malicious and rejected and decision == "reject-ok":
                c["excused"] += 1
            if malicious and not rejected and decision not in ("placeholder", "context-free"):
                c["missed"] += 1
        for category, c in sorted(counts.items()):
            rows.append({"set": name, "category": category, **c})
    return {"rows": rows}


def _median_seconds(texts: list[str]) -> float:
    from anchors.scanner import scan_text

    runs = []
    for _ in range(5):
        start = time.perf_counter()
        for text in texts:
            scan_text(text)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def speed(corpora: Path) -> dict[str, float]:
    """MB/s on a 1 MB memory file of ordinary notes, and on every corpus text one by one."""
    from anchors.scanner import scan_text

    scan_text("warm up the rule tables")
    benign = [r["text"] for r in load_jsonl(corpora / "benign_engineering_notes.jsonl")]
    document = "\n\n".join(benign)
    while len(document.encode()) < 1_000_000:
        document += "\n\n" + document
    notes: list[str] = []
    for path in sorted(corpora.glob("*.jsonl")):
        notes.extend(row["text"] for row in load_jsonl(path))
    notes.extend(row["text"] for row in load_jsonl(HERE / "hard_cases.jsonl"))
    size = len(document.encode())
    note_bytes = sum(len(n.encode()) for n in notes)
    note_seconds = _median_seconds(notes)
    return {
        "document_bytes": size,
        "document_mb_s": size / _median_seconds([document]) / 1e6,
        "notes": len(notes),
        "notes_mb_s": note_bytes / note_seconds / 1e6,
        "per_note_ms": note_seconds / len(notes) * 1000,
    }


_STARTUP_CODE = """
import time
{preload}
start = time.perf_counter()
import anchors.scanner
imported = time.perf_counter()
anchors.scanner.scan_text({note!r})
print((imported - start) * 1000, (time.perf_counter() - imported) * 1000)
"""
_STARTUP_NOTES = {
    "ascii": "Retries in PaymentClient.charge must be idempotent; the token is read from "
    "DEPLOY_TOKEN, never logged. Run `make lint` before committing.",
    "non-ascii": "Ретраи в PaymentClient.charge должны быть идемпотентными — шлюз списывает дважды.",
}


def startup(runs: int = 11) -> list[dict[str, Any]]:
    """Milliseconds for the scanner's import and first scan in a fresh interpreter."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rows = []
    for preload in ("", "import anchors.record"):
        for name, note in _STARTUP_NOTES.items():
            code = _STARTUP_CODE.format(preload=preload, note=note)
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                           capture_output=True)  # fmt: skip
            samples = []
            for _ in range(runs):
                out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                                     capture_output=True, text=True).stdout.split()  # fmt: skip
                samples.append((float(out[0]), float(out[1])))
            rows.append({"after": preload or "nothing", "note": name,
                         "import_ms": statistics.median(a for a, _ in samples),
                         "first_scan_ms": statistics.median(b for _, b in samples),
                         "total_ms": statistics.median(a + b for a, b in samples)})  # fmt: skip
    return rows


def stale_hook(runs: int = 5) -> dict[str, Any]:
    """tether-stale's own process on a 50-file staged change in a >= 100k-line repository."""
    import os
    import subprocess
    import tempfile

    from bench.stale.__main__ import add_learnings, build, git, later_commits, modify

    files, functions = 1600, 10
    with tempfile.TemporaryDirectory(prefix="tether-bench-stale-hook-") as tmp:
        root = Path(tmp)
        build(root, files, functions)
        lines = sum(p.read_text().count("\n") for p in root.rglob("*.py"))
        anchors = add_learnings(root, files, functions, later_commits(root, 1))
        modify(root, files, 50)
        git(root, "add", "-A")
        changed = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=root,
                                 capture_output=True, text=True).stdout.split()  # fmt: skip
        hook = str(Path(sys.executable).parent / "tether-stale")
        times = []
        out = ""
        for _ in range(runs):
            start = time.perf_counter()
            proc = subprocess.run([hook], cwd=root, capture_output=True, text=True,
                                  env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})  # fmt: skip
            times.append(time.perf_counter() - start)
            out = proc.stdout
        listed = out.count("\n    still true?")
        return {"lines": lines, "anchors": anchors, "staged_files": len(changed),
                "learnings_listed": listed, "median_ms": statistics.median(times) * 1000,
                "min_ms": min(times) * 1000}  # fmt: skip


def rate(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.scanner", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--no-stale-hook", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if not args.corpora.is_dir():
        print(f"no corpora at {args.corpora}: pass --corpora DIR", file=sys.stderr)
        return 2
    result: dict[str, Any] = detection(args.corpora)
    print("| set | category | texts | rejected | rate | after per-case decisions |")
    print("|---|---|---:|---:|---:|---:|")
    for row in result["rows"]:
        n, rejected, excused = row["n"], row["rejected"], row.get("excused", 0)
        if row["category"].startswith("benign"):
            after = rate(rejected - excused, n) + " wrongly rejected"
            shown = rate(rejected, n) + " wrongly rejected"
        else:
            after = rate(rejected, n - excused) + f" of {n - excused}"
            shown = rate(rejected, n)
        print(f"| {row['set']} | {row['category']} | {n} | {rejected} | {shown} | {after} |")
    result["speed"] = speed(args.corpora)
    s = result["speed"]
    print(f"\nspeed: {s['document_mb_s']:.2f} MB/s on a {s['document_bytes'] / 1e6:.1f} MB file of ordinary notes; "
          f"{s['notes_mb_s']:.2f} MB/s over the {s['notes']} corpus texts one by one ({s['per_note_ms']:.3f} ms a note)")  # fmt: skip
    result["startup"] = startup()
    for row in result["startup"]:
        print(f"start-up after {row['after']}, {row['note']} note: import {row['import_ms']:.1f} ms + "
              f"first scan {row['first_scan_ms']:.1f} ms = {row['total_ms']:.1f} ms")  # fmt: skip
    if not args.no_stale_hook:
        result["stale_hook"] = h = stale_hook()
        print(f"tether-stale hook: {h['median_ms']:.0f} ms median (min {h['min_ms']:.0f}) for "
              f"{h['staged_files']} staged files in {h['lines']:,} lines, {h['anchors']:,} anchors, "
              f"{h['learnings_listed']} learnings listed")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
