"""`tether recall QUERY` (hybrid search) and `tether embed` (fill the vector cache in one batch)."""

from __future__ import annotations

import argparse
from typing import Any

from anchors.cli.output import note, print_json, print_line, print_table


def _memory() -> Any:
    from anchors.memory import Memory

    return Memory.open()


def cmd_recall(args: argparse.Namespace) -> int:
    from anchors.recall import notice_once, recall

    memory = _memory()
    result = recall(
        memory,
        args.query,
        k=args.k,
        near=args.near or "",
        use_vectors=args.mode != "bm25",
        use_lexical=args.mode != "vector",
    )
    told = notice_once(memory, result.notice)
    if told:
        note(f"tether: {told}; recall uses BM25 only")
    if args.json:
        print_json(result.to_dict())
        return 0
    if not result.hits:
        print_line("no learnings match")
        return 0
    rows = [
        [h.record.id, f"{h.score:.4f}", h.record.category, h.record.status, " ".join(h.record.text.split())[:90],
         "; ".join(a.label() for a in h.record.anchors)]
        for h in result.hits
    ]  # fmt: skip
    print_table(
        f"recall ({result.mode}): {args.query[:60]}",
        ["id", "score", "category", "status", "text", "anchors"],
        rows,
    )
    return 0


def cmd_embed(args: argparse.Namespace) -> int:
    from anchors.embeddings import EmbeddingUnavailable, load_embedder
    from anchors.errors import UsageError
    from anchors.recall import open_vectors, sync_vectors

    memory = _memory()
    try:
        embedder = load_embedder()
    except EmbeddingUnavailable as exc:
        raise UsageError(str(exc)) from None
    cache = open_vectors(memory)
    try:
        from rich.progress import Progress

        with Progress(transient=True, disable=args.json) as bar:
            task = bar.add_task("embedding learnings", total=None)
            done = sync_vectors(
                memory, cache, embedder, progress=lambda n: bar.update(task, completed=n)
            )
        total = cache.count()
    finally:
        cache.close()
    if args.json:
        print_json({"embedded": done, "cached": total, "model": embedder.model_id})
    else:
        print_line(
            f"embedded {done} learning(s); {total} in the vector cache ({embedder.model_id})"
        )
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "recall", help="find the learnings that answer a question (hybrid search)"
    )
    p.add_argument("query", help="the question, in your own words")
    p.add_argument("--k", type=int, default=5, help="how many results (default 5)")
    p.add_argument("--near", metavar="PATH", help="prefer learnings anchored near this file")
    p.add_argument(
        "--mode", choices=("hybrid", "bm25", "vector"), default="hybrid", help=argparse.SUPPRESS
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_recall)
    p = subparsers.add_parser("embed", help="embed every learning missing from the vector cache")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(func=cmd_embed)
