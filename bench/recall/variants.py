"""Ideas for recall quality, measured side by side with what ships. `python -m bench.recall.variants`.

The corpus and questions are bench/recall's (1,100 learnings; 100 tuning, 50 held-out, 100
realistic questions) and its control (the 100 targets alone). Everything is embedded once with
the shipped model and each question's BM25 scores are taken from the shipped `lexical_scores`;
each variant then re-scores those in numpy, so a new idea costs seconds to try. The first row
reproduces `recall()` on this corpus (every learning is equally salient and none is anchored, so
the re-rank changes nothing); the others are the ideas tried and dropped, listed in
docs/benchmarks.md with what each is worth. Variants that need packages the project does not
install (other models) are not here; the docs say how they were measured.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.recall.__main__ import load, make_repo
from bench.recall.dataset import QUESTION_SETS, corpus, queries

CENTRE_SHRINK = 100  # as anchors.embeddings
LEXICAL_WEIGHT = 0.05  # as anchors.recall


@dataclass
class Question:
    text: str
    answer: int  # row of the expected learning
    vector: Any  # raw model vector
    lexical: dict[int, float]  # row -> BM25 score / the question's IDF weight


@dataclass
class Corpus:
    """One memory's learnings as the model sees them, and its questions."""

    texts: list[str]
    vectors: Any  # raw model vectors, one row per learning
    questions: dict[str, list[Question]]
    embedder: Any

    def __post_init__(self) -> None:
        n = len(self.vectors)
        self.centre = self.vectors.mean(0) * (n / (n + CENTRE_SHRINK))
        self.centred = unit(self.vectors - self.centre)

    def cosine(self, vector: Any) -> Any:
        """Centred cosine of a raw question vector to every learning (what recall does)."""
        return self.centred @ unit(vector - self.centre)

    def with_lexical(self, scores: Any, q: Question, weight: float = LEXICAL_WEIGHT) -> Any:
        out = scores.copy()
        for row, value in q.lexical.items():
            out[row] += weight * value
        return out


Variant = Callable[[Corpus, Question], Any]  # -> scores (higher first), or a ranked row list


def unit(x: Any) -> Any:
    return x / np.clip(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12, None)


def build(items: list[Any], root: Path) -> Corpus:
    """Write `items` through Memory.add, embed them, and read each question's BM25 scores."""
    from anchors.embeddings import load_embedder
    from anchors.memory import Memory
    from anchors.recall import (
        LexicalView,
        lexical_scores,
        open_vectors,
        retrieval_text,
        sync_vectors,
    )

    memory = Memory.open(make_repo(root))
    ids = load(memory, items)
    embedder = load_embedder()
    cache = open_vectors(memory)
    sync_vectors(memory, cache, embedder)
    # The cached vectors, not new ones: int8 activations are quantised per batch, so a text
    # embedded in another batch differs in the last digits.
    cached = dict(cache.db.execute("SELECT record_id, embedding FROM vectors").fetchall())
    cache.close()
    records = {r.id: r for r in memory.projection.query("store='learning'")}
    order = list(ids.values())
    row = {rid: i for i, rid in enumerate(order)}
    texts = [retrieval_text(records[rid]) for rid in order]
    vectors = np.stack([np.frombuffer(cached[rid], dtype=np.float32) for rid in order])
    asked: dict[str, list[Question]] = {}
    for name in QUESTION_SETS:
        qs = [q for q in queries(name) if q.answer in ids]
        asked[name] = []
        for q in qs:
            qvec = embedder.embed([q.text])[0]  # one at a time, as recall() does
            view = LexicalView(memory, q.text)
            mass = view.mass or 1.0
            lexical = {row[rid]: s / mass for rid, s in lexical_scores(memory, view)}
            asked[name].append(Question(q.text, row[ids[q.answer]], qvec, lexical))
    return Corpus(texts, vectors, asked, embedder)


def measure(corpus: Corpus, variant: Variant) -> dict[str, tuple[float, float]]:
    """recall@5 and MRR (top 10) per question set."""
    out = {}
    for name, qs in corpus.questions.items():
        hits = 0
        reciprocal = 0.0
        for q in qs:
            result = variant(corpus, q)
            ranked = (
                list(result)[:10]
                if isinstance(result, list)
                else list(np.argsort(-result, kind="stable")[:10])
            )
            if q.answer in ranked:
                rank = ranked.index(q.answer) + 1
                hits += rank <= 5
                reciprocal += 1 / rank
        out[name] = (hits / len(qs), reciprocal / len(qs))
    return out


# -- the variants ---------------------------------------------------------------------------------


def shipped(c: Corpus, q: Question) -> Any:
    return c.with_lexical(c.cosine(q.vector), q)


def vectors_alone(c: Corpus, q: Question) -> Any:
    return c.cosine(q.vector)


def rocchio(k: int, beta: float) -> Variant:
    """Pseudo-relevance feedback: the question plus beta x the mean of its top k, searched again."""

    def run(c: Corpus, q: Question) -> Any:
        first = shipped(c, q)
        top = np.argsort(-first)[:k]
        moved = unit(unit(q.vector - c.centre) + beta * c.centred[top].mean(0))
        return c.with_lexical(c.centred @ moved, q)

    return run


def lexical_normalised(how: str, weight: float) -> Variant:
    """BM25 normalised by the best BM25 score of the question, or by rank, instead of by the
    question's IDF weight."""

    def run(c: Corpus, q: Question) -> Any:
        out = c.cosine(q.vector)
        ranked = sorted(q.lexical.items(), key=lambda kv: -kv[1])
        best = ranked[0][1] if ranked else 1.0
        for rank, (row, value) in enumerate(ranked):
            out[row] += weight * (value / best if how == "max" else 1 / (rank + 10))
        return out

    return run


def removed_directions(k: int) -> Variant:
    """ "All but the top": also project out the memory's k main directions of variation."""
    cache: dict[int, Any] = {}

    def run(c: Corpus, q: Question) -> Any:
        key = id(c)
        if key not in cache:
            _, _, vt = np.linalg.svd(c.vectors - c.vectors.mean(0), full_matrices=False)
            top = vt[:k]
            cache[key] = (top, unit((c.vectors - c.centre) - (c.vectors - c.centre) @ top.T @ top))
        top, docs = cache[key]
        v = q.vector - c.centre
        return c.with_lexical(docs @ unit(v - v @ top.T @ top), q)

    return run


def whitened(strength: float) -> Variant:
    """Shrunk whitening: every direction of the memory's variation scaled to equal weight, the
    covariance shrunk towards its mean variance by `strength`."""
    cache: dict[int, Any] = {}

    def run(c: Corpus, q: Question) -> Any:
        key = id(c)
        if key not in cache:
            n = len(c.vectors)
            _, s, vt = np.linalg.svd(c.vectors - c.vectors.mean(0), full_matrices=False)
            var = s**2 / n
            w = vt.T @ np.diag(1 / np.sqrt(var + strength * var.mean())) @ vt
            cache[key] = (w, unit((c.vectors - c.centre) @ w))
        w, docs = cache[key]
        return c.with_lexical(docs @ unit((q.vector - c.centre) @ w), q)

    return run


_CLAUSE = re.compile(r"(?<=[;:.!?])\s+|\s+[-\u2014]+\s+")


def clause_mix(weight: float, pool: int = 50) -> Variant:
    """The best 50 re-scored with `weight` x the best cosine of any clause of the learning
    (clauses split at ; : . and dashes, of three words or more), beside the whole learning's."""
    cache: dict[int, Any] = {}

    def run(c: Corpus, q: Question) -> Any:
        key = id(c)
        if key not in cache:
            parts = [[p for p in _CLAUSE.split(t) if len(p.split()) >= 3] or [t] for t in c.texts]
            vectors = unit(c.embedder.embed([p for ps in parts for p in ps]) - c.centre)
            owner = np.repeat(np.arange(len(parts)), [len(p) for p in parts])
            cache[key] = (vectors, owner)
        vectors, owner = cache[key]
        base = shipped(c, q)
        best = np.full(len(c.texts), -1.0)
        np.maximum.at(best, owner, vectors @ unit(q.vector - c.centre))
        top = np.argsort(-base)[:pool]
        out = base - 10.0
        out[top] = base[top] + weight * best[top]
        return out

    return run


def near_duplicate_collapse(threshold: float, pool: int = 50) -> Variant:
    """Result-list diversification: a candidate whose centred cosine to a learning already listed
    exceeds `threshold` is pushed down by that similarity (greedy, MMR with lambda 0.5, over the
    best 50)."""

    def run(c: Corpus, q: Question) -> Any:
        scores = shipped(c, q)
        candidates = list(np.argsort(-scores)[:pool])
        chosen: list[int] = []
        while candidates and len(chosen) < 10:
            if chosen:
                redundancy = (c.centred[candidates] @ c.centred[chosen].T).max(1)
                redundancy = np.where(redundancy > threshold, redundancy, 0.0)
                pick = candidates[int(np.argmax(scores[candidates] - redundancy))]
            else:
                pick = candidates[0]
            chosen.append(pick)
            candidates.remove(pick)
        return chosen

    return run


def idf_pooled(alpha: float) -> Variant:
    """The question's vector pooled with token weights idf^alpha (IDF of the model's word pieces
    over the memory) instead of the plain mean; learnings as shipped."""
    cache: dict[int, Any] = {}

    def run(c: Corpus, q: Question) -> Any:
        key = id(c)
        if key not in cache:
            tokenizer = c.embedder._tokenizer
            df: dict[int, int] = {}
            for enc in tokenizer.encode_batch(c.texts):
                for t in set(enc.ids):
                    df[t] = df.get(t, 0) + 1
            n = len(c.texts)
            cache[key] = {t: float(np.log((n + 1) / (f + 0.5))) for t, f in df.items()}
        idf = cache[key]
        return c.with_lexical(c.cosine(_pooled(c.embedder, q.text, idf, alpha)), q)

    return run


def _pooled(embedder: Any, text: str, idf: dict[int, float], alpha: float) -> Any:
    enc = embedder._tokenizer.encode(text)
    ids = np.array([enc.ids])
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if "token_type_ids" in embedder._inputs:
        feeds["token_type_ids"] = np.zeros_like(ids)
    hidden = embedder._session.run(None, feeds)[0][0]
    top = max(idf.values())
    weights = np.array(
        [1.0 if t in (101, 102) else idf.get(t, top) ** alpha for t in enc.ids], dtype=np.float32
    )
    return unit((hidden * weights[:, None]).sum(0) / weights.sum())


VARIANTS: list[tuple[str, Variant]] = [
    ("shipped: centred cosine + 0.05 x BM25 / IDF weight", shipped),
    ("vectors alone", vectors_alone),
    ("pseudo-relevance feedback, top 3, beta 0.2", rocchio(3, 0.2)),
    ("pseudo-relevance feedback, top 3, beta 0.7", rocchio(3, 0.7)),
    ("BM25 / best BM25, weight 0.05", lexical_normalised("max", 0.05)),
    ("BM25 by rank 1/(r+10), weight 0.1", lexical_normalised("rank", 0.1)),
    ("remove the top 1 direction", removed_directions(1)),
    ("remove the top 3 directions", removed_directions(3)),
    ("shrunk whitening (3)", whitened(3.0)),
    ("clause views, + 0.4 x best clause cosine", clause_mix(0.4)),
    ("question pooled by IDF (alpha 1)", idf_pooled(1.0)),
    ("near-duplicate collapse above 0.6", near_duplicate_collapse(0.6)),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall.variants")
    parser.add_argument("--only", default="", help="run the variants whose name contains this")
    args = parser.parse_args(argv)
    items = corpus(1100)
    with tempfile.TemporaryDirectory() as tmp:
        memories = {
            "1,100 learnings": build(items, Path(tmp) / "main"),
            "control (100 targets)": build(
                [i for i in items if i.key.startswith("t")], Path(tmp) / "control"
            ),
        }
    for label, memory in memories.items():
        print(f"\n{label}: recall@5 / MRR")
        print(f"  {'variant':56s} " + " ".join(f"{name:>13s}" for name in QUESTION_SETS))
        for name, variant in VARIANTS:
            if args.only and args.only not in name:
                continue
            res = measure(memory, variant)
            cells = " ".join(f"{res[s][0]:.2f} / {res[s][1]:.3f}" for s in QUESTION_SETS)
            print(f"  {name:56s} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
