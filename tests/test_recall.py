"""Recall with the real embedding model (MiniLM int8 ONNX), BM25 fallback, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchors.embeddings import EmbeddingUnavailable, MiniLM, load_embedder, model_path
from anchors.errors import UsageError
from anchors.memory import Memory
from anchors.recall import LexicalView, path_proximity, recall
from anchors.record import Anchor

NOTES = [
    ("pattern", "Retries in PaymentClient.charge must stay idempotent: reuse the order id as the idempotency key, the gateway double-charges on timeout."),
    ("security", "Read STRIPE_SECRET_KEY from the environment and never log it."),
    ("architecture", "Search is fed by the catalog-indexer worker from the products change stream."),
    ("error", "Alembic fails with 'multiple heads' after parallel branches; run alembic merge heads."),
    ("preference", "Use Conventional Commits for every commit subject; the changelog is built from them."),
]  # fmt: skip


@pytest.fixture
def mem(repo: Path) -> Memory:
    m = Memory.open(repo)
    for category, text in NOTES:
        m.add(text, category=category)
    return m


def test_model_embeds_meaning() -> None:
    model = load_embedder()
    vectors = model.embed(
        ["charging a customer twice", "duplicate card payment after retry", "css module styling"]
    )
    assert vectors.shape == (3, 384)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2]) + 0.2


def test_paraphrase_found_by_meaning(mem: Memory) -> None:
    result = recall(mem, "how do I avoid billing someone two times?", k=3)
    assert result.mode == "hybrid"
    assert "idempotent" in result.hits[0].record.text
    assert result.hits[0].vector_rank == 1


def test_bm25_alone_needs_shared_words(mem: Memory) -> None:
    lexical = recall(mem, "alembic heads", k=3, use_vectors=False)
    assert lexical.mode == "bm25" and "alembic" in lexical.hits[0].record.text.lower()


def test_retired_learnings_leave_results_and_the_vector_cache(mem: Memory) -> None:
    target = recall(mem, "commit message format", k=1).hits[0].record
    assert "Conventional Commits" in target.text
    mem.invalidate(target.id, "we squash-merge now")
    ids = [h.record.id for h in recall(mem, "commit message format", k=5).hits]
    assert target.id not in ids
    from anchors.recall import shared_vectors

    assert target.id not in shared_vectors(mem).hashes()


def test_near_prefers_learnings_anchored_close_by(repo: Path) -> None:
    mem = Memory.open(repo)
    mem.add("Cache entries expire after ten minutes.", anchors=[Anchor(path="src/search/cache.py")])
    mem.add(
        "Cache entries for carts expire after ten minutes too.",
        anchors=[Anchor(path="src/cart/cache.py")],
    )
    far = recall(mem, "when do cached entries expire", k=2, near="src/cart/cache.py")
    assert far.hits[0].record.anchors[0].path == "src/cart/cache.py"
    near = recall(mem, "when do cached entries expire", k=2, near="src/search/cache.py")
    assert near.hits[0].record.anchors[0].path == "src/search/cache.py"
    assert path_proximity("src/cart/x.py", near.hits[1].record) > 0


@pytest.mark.parametrize(
    ("query", "k", "message"),
    [
        ("", 5, "empty"),
        ("x" * 100_000, 5, "limit is 2000"),
        ("ok", 0, "k must"),
        ("ok", 101, "k must"),
    ],
)
def test_bad_input(mem: Memory, query: str, k: int, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        recall(mem, query, k=k)


def test_fts_syntax_in_queries_is_inert(mem: Memory) -> None:
    view = LexicalView(mem, 'NEAR("a" bee) OR * ^x:yy')
    assert view.match() == '"near" OR "bee" OR "yy"'  # quoted stems only
    assert recall(mem, '"unbalanced AND ( OR *', k=2).hits is not None


def test_corrupt_model_falls_back_to_bm25(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx file")
    with pytest.raises(EmbeddingUnavailable, match="unusable"):
        MiniLM(broken)
    assert model_path().is_file()


def test_cli_json_and_fallback_said_once(mem: Memory, run_tether, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = mem.root
    out = run_tether(
        ["recall", "which env var holds the card provider secret", "--k", "2", "--json"], repo
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc) >= {"query", "results"}
    first = doc["results"][0]
    assert set(first) >= {"id", "score", "text", "category", "anchors"}
    assert "STRIPE_SECRET_KEY" in first["text"]

    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x00garbage")
    env = {"TETHER_EMBEDDING_MODEL": str(broken)}
    one = run_tether(["recall", "stripe secret key", "--json"], repo, env=env)
    assert one.returncode == 0
    assert json.loads(one.stdout)["mode"] == "bm25"
    assert "recall uses BM25 only" in one.stderr and one.stderr.count("\n") == 1
    two = run_tether(["recall", "stripe secret key"], repo, env=env)
    assert two.returncode == 0 and two.stderr == ""  # said once
    huge = run_tether(["recall", "y" * 100_000], repo)
    assert huge.returncode == 2 and huge.stderr.count("\n") == 1


def test_cli_embed_batch(mem: Memory, run_tether) -> None:  # type: ignore[no-untyped-def]
    out = run_tether(["embed", "--json"], mem.root)
    assert out.returncode == 0
    assert json.loads(out.stdout)["cached"] == len(NOTES)
    again = json.loads(run_tether(["embed", "--json"], mem.root).stdout)
    assert again["embedded"] == 0


def test_the_code_a_learning_is_anchored_to_is_part_of_what_is_embedded(repo: Path) -> None:
    mem = Memory.open(repo)
    flush = mem.add(
        "Never call this from a request handler: it blocks for seconds while it writes out.",
        anchors=[Anchor(path="billing/ledger.py", symbol="LedgerWriter.flush_pending")],
    )
    rebuild = mem.add(
        "Do not run this inside web requests; it takes the global lock for minutes.",
        anchors=[Anchor(path="search/index.py", symbol="SearchIndex.rebuild")],
    )
    from anchors.recall import retrieval_text

    assert "SearchIndex.rebuild (search index rebuild)" in retrieval_text(rebuild)
    for question, want in (
        ("is SearchIndex.rebuild safe to call while serving a request?", rebuild.id),
        ("can the ledger writer flush pending entries from a view?", flush.id),
    ):
        hits = recall(mem, question, k=2, use_lexical=False).hits
        assert hits[0].record.id == want, question
