"""Language server benchmark: `python -m bench.lsp [--quick]`.

A repository with 10,000 learnings, 200 of them anchored to the 200 functions of one 5,000-line
Python file. A real client talks to `python -m lsp_server` over stdio and measures:
start-up (spawn -> initialize answered -> first diagnostics of that file), hover latency on
anchored functions, the time from a didChange to its diagnostics (debounce set to 0, so the
figure is the work beyond the debounce), and the server's resident memory.
Prints a markdown table and writes bench/results/lsp.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
FUNCTIONS = 200
LINES_PER_FUNCTION = 25  # 200 x 25 = 5,000 lines


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def big_file() -> str:
    lines = []
    for i in range(FUNCTIONS):
        lines.append(f"def handler_{i}(request, retries={i % 7}):")
        lines.append(f'    """Handle request kind {i}."""')
        for j in range(LINES_PER_FUNCTION - 3):
            lines.append(f"    value_{j} = request.get('k{j}', {i + j}) * retries")
        lines.append("    return value_0")
    return "\n".join(lines) + "\n"


def build_repo(total: int) -> tuple[Path, Path, list[int]]:
    """The repository; the big file; the 0-based first line of each function."""
    from anchors.operations import Op
    from anchors.specs import symbol_anchor
    from anchors.symbols import extract_symbols

    base = Path(tempfile.mkdtemp(prefix="tether-bench-lsp-"))
    repo = base / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "Bench")
    text = big_file()
    big = repo / "src" / "big.py"
    big.write_text(text)
    (repo / ".tether").mkdir()
    (repo / ".tether" / "config.toml").write_text("[learnings]\ncap_per_category = 1000000\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big file")
    head = git(repo, "rev-parse", "HEAD")
    symbols = [s for s in extract_symbols(text.encode(), "python") if s.kind == "function"]
    assert len(symbols) == FUNCTIONS
    ops_dir = repo / ".git" / "tether" / "ops"
    ops_dir.mkdir(parents=True)
    rng = random.Random(7)
    part = "bench@example.com.000001"
    prev = ""
    words = [
        "retry",
        "idempotent",
        "gateway",
        "cache",
        "timeout",
        "payment",
        "schema",
        "lock",
        "queue",
        "worker",
        "token",
    ]
    with open(ops_dir / f"{part}.jsonl", "wb") as fh:
        for n in range(total):
            if n < FUNCTIONS:
                anchor = symbol_anchor("src/big.py", symbols[n], "python", head, False).to_dict()
            else:
                anchor = {"path": f"src/mod{rng.randint(0, 500)}.py", "symbol": f"f{rng.randint(0, 99)}",
                          "span": [1, 20]}  # fmt: skip
            record = {
                "id": f"01J{n:023d}", "category": rng.choice(["pattern", "error", "security", "general"]),
                "text": " ".join(rng.choice(words) for _ in range(rng.randint(8, 30))),
                "anchors": [anchor], "author": "bench@example.com", "author_name": "Bench",
            }  # fmt: skip
            op = Op("add", record["id"], "bench@example.com", part, n + 1, "2026-01-01T00:00:00.000Z",
                    prev, {"record": record})  # fmt: skip
            op.seal()
            fh.write(op.to_line())
            prev = op.id
    # Build the projection once, as any first command would.
    subprocess.run([str(Path(sys.executable).parent / "tether"), "list", "--json"], cwd=repo, env=ENV,
                   check=True, capture_output=True)  # fmt: skip
    return repo, big, [s.start_line - 1 for s in symbols]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def rss_mb(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = {line.split(":")[0]: line.split(":")[1] for line in status.splitlines() if ":" in line}
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def measure(
    repo: Path, big: Path, starts: list[int], hovers: int, edits: int
) -> dict[str, float]:
    client = LanguageClient("bench", "1")
    published: dict[tuple[str, int | None], float] = {}
    first: dict[str, float] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        now = time.perf_counter()
        published.setdefault((params.uri, params.version), now)
        first.setdefault(params.uri, now)

    t_spawn = time.perf_counter()
    await client.start_io(sys.executable, "-m", "lsp_server", env=ENV)
    pid = client._server.pid  # type: ignore[union-attr]
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=repo.as_uri(),
        initialization_options={"debounceMs": 0},
    ))  # fmt: skip
    t_answered = time.perf_counter()
    client.initialized(types.InitializedParams())
    uri = big.as_uri()
    text = big.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))  # fmt: skip
    while uri not in first:
        await asyncio.sleep(0.001)
    t_first = first[uri]

    rng = random.Random(3)
    hover_ms = []
    for _ in range(hovers):
        line = rng.choice(starts) + rng.randint(1, LINES_PER_FUNCTION - 2)
        t = time.perf_counter()
        result = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=6)))  # fmt: skip
        hover_ms.append((time.perf_counter() - t) * 1000)
        assert result is not None

    change_ms = []
    version = 1
    lines = text.split("\n")
    for k in range(edits):
        fn = starts[(k * 37) % len(starts)]
        line = fn + 3
        col = lines[line].index("*")
        version += 1
        new = "+" if k % 2 == 0 else "*"  # flip an operator: stale, then fresh again next time
        t = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=line, character=col),
                                  end=types.Position(line=line, character=col + 1)), text=new)]))  # fmt: skip
        lines[line] = lines[line][:col] + new + lines[line][col + 1 :]
        while (uri, version) not in published:
            await asyncio.sleep(0.0005)
        change_ms.append((published[(uri, version)] - t) * 1000)
        await asyncio.sleep(0.15)  # let the background history lookup finish between edits
    rss, peak = rss_mb(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "learnings": 10_000, "anchors_in_file": FUNCTIONS, "file_lines": len(text.splitlines()),
        "spawn_to_initialize_ms": (t_answered - t_spawn) * 1000,
        "initialize_answered_to_first_diagnostics_ms": (t_first - t_answered) * 1000,
        "spawn_to_first_diagnostics_ms": (t_first - t_spawn) * 1000,
        "hover_p50_ms": statistics.median(hover_ms), "hover_p95_ms": pct(hover_ms, 95),
        "change_to_diagnostics_p50_ms": statistics.median(change_ms),
        "change_to_diagnostics_p95_ms": pct(change_ms, 95),
        "rss_mb": rss, "peak_rss_mb": peak,
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lsp")
    parser.add_argument("--quick", action="store_true", help="fewer requests (a smoke run)")
    args = parser.parse_args()
    repo, big, starts = build_repo(10_000)
    try:
        result = asyncio.run(
            measure(repo, big, starts, 50 if args.quick else 300, 10 if args.quick else 60)
        )
    finally:
        shutil.rmtree(repo.parent, ignore_errors=True)
    targets = {
        "hover_p95_ms": 10, "change_to_diagnostics_p95_ms": 50,
        "spawn_to_first_diagnostics_ms": 1000, "peak_rss_mb": 150,
    }  # fmt: skip
    print("| measure | value | target |\n|---|---|---|")
    for key, value in result.items():
        target = f"<= {targets[key]}" if key in targets else ""
        print(f"| {key} | {value:,.1f} | {target} |")
    out = Path(__file__).resolve().parents[1] / "results" / "lsp.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
