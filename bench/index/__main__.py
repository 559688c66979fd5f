"""Symbol indexing against raw tree-sitter parsing, on a real repository.

    .venv/bin/python -m bench.index [PATH] [--runs 5]

PATH (or $TETHER_BENCH_SUBJECT, default /work/subjects/mypy) is a checkout of any repository;
it is used as a subject only. Every tracked file with a grammar, under the size cap, is read
into memory once; then each run times, file by file in one loop:
- `parse`: `parser.parse(source)` for every file (the floor: tree-sitter's own work);
- `index`: what `extract_symbols` does, the same parse plus the symbol walk (names, kinds,
  spans, signatures);
- `index + fingerprints`: the index plus every symbol's signature and body fingerprint (these
  are computed on demand, once per file, when resolution compares a symbol: not on indexing).
Medians of --runs; the ratio index / parse is the figure the target (<= 1.3x) is about. A second
table gives the parse time and the ratio per language.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import time
from collections import Counter
from pathlib import Path

from anchors.languages import language_for_path, parser_for
from anchors.symbols import load_source, symbols_from_tree


def collect(root: Path) -> list[tuple[str, str, bytes]]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    files = []
    for rel in out.stdout.decode("utf-8", "surrogateescape").split("\0"):
        language = language_for_path(rel) if rel else None
        if language is None or not (root / rel).is_file():
            continue
        source, _ = load_source(root / rel)
        if source is not None:
            files.append((rel, language, source))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index")
    parser.add_argument(
        "path", nargs="?", default=os.environ.get("TETHER_BENCH_SUBJECT", "/work/subjects/mypy")
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    root = Path(args.path)
    files = collect(root)
    lines = sum(s.count(b"\n") for _, _, s in files)
    languages = Counter(lang for _, lang, _ in files)
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    print(
        f"subject: {root} @ {head}: {len(files)} files, {lines:,} lines, {sum(len(s) for *_, s in files) / 1e6:.1f} MB ({dict(languages)})"
    )
    parsers = {lang: parser_for(lang) for lang in languages}
    clock = time.perf_counter
    parse_t, symbols_t, fp_t, ratios = [], [], [], []
    # Per language: parse and walk of each run, to say where the ratio comes from.
    by_language: dict[str, list[list[float]]] = {lang: [[], []] for lang in languages}
    symbols = 0
    for _ in range(args.runs):
        gc.collect()
        parse = walk = prints = 0.0
        symbols = 0
        per: dict[str, list[float]] = {lang: [0.0, 0.0] for lang in languages}
        for _, lang, source in files:
            # Parse and symbol walk timed file by file in one loop, so that the machine's noise
            # falls on both alike; fingerprints are timed after, on the same trees.
            t0 = clock()
            tree = parsers[lang].parse(source)
            t1 = clock()
            found = symbols_from_tree(tree, source, lang)
            t2 = clock()
            for s in found:
                s.signature_fp, s.body_fp  # noqa: B018 - computing them is the point
            t3 = clock()
            parse += t1 - t0
            walk += t2 - t1
            prints += t3 - t2
            symbols += len(found)
            per[lang][0] += t1 - t0
            per[lang][1] += t2 - t1
        for lang, (lp, lw) in per.items():
            by_language[lang][0].append(lp)
            by_language[lang][1].append((lp + lw) / lp if lp else 1.0)
        parse_t.append(parse)
        symbols_t.append(walk)
        fp_t.append(prints)
        ratios.append((parse + walk) / parse)
    p, w, f = (statistics.median(x) for x in (parse_t, symbols_t, fp_t))
    print(f"{symbols:,} symbols; medians of {args.runs} runs")
    print("| step | time | ratio to parse |")
    print("|---|---:|---:|")
    print(f"| parse (the floor) | {p * 1000:.0f} ms | 1.00x |")
    print(
        f"| index: parse + symbols | {(p + w) * 1000:.0f} ms | {statistics.median(ratios):.2f}x |"
    )
    print(
        f"| index + every symbol's fingerprints | {(p + w + f) * 1000:.0f} ms | {(p + w + f) / p:.2f}x |"
    )
    print("\n| language | files | parse | index / parse |")
    print("|---|---:|---:|---:|")
    for lang, (lp, lr) in sorted(by_language.items(), key=lambda item: -languages[item[0]]):
        print(
            f"| {lang} | {languages[lang]:,} | {statistics.median(lp) * 1000:.0f} ms |"
            f" {statistics.median(lr):.2f}x |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
