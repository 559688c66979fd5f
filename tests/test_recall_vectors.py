"""The vector cache on its own: centred similarity, the running mean, the sign-bit index against
the exact scan, and rebuilding a cache of an older layout. Vectors are seeded random unit vectors
(the model is not needed to test storage and search; test_recall.py uses the real model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anchors import embeddings
from anchors.embeddings import CENTRE_SHRINK, DIMENSIONS, LAYOUT, VectorCache, text_hash


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def clustered(n: int, seed: int = 0, topics: int = 0) -> np.ndarray:
    """Unit vectors that all lean one way (as sentence embeddings of one project's notes do), in
    `topics` groups of near neighbours (record i is in group i % topics; default n // 10)."""
    rng = np.random.default_rng(seed)
    common = unit(rng.standard_normal(DIMENSIONS))
    centres = unit(rng.standard_normal((topics or max(n // 10, 1), DIMENSIONS)))
    noise = unit(rng.standard_normal((n, DIMENSIONS)))
    return unit(1.2 * common + centres[np.arange(n) % len(centres)] + 0.6 * noise)


def fill(cache: VectorCache, vectors: np.ndarray) -> list[str]:
    ids = [f"r{i:05d}" for i in range(len(vectors))]
    cache.put([(rid, "h") for rid in ids], vectors)
    return ids


def test_similarity_is_cosine_after_subtracting_the_shrunk_mean(tmp_path: Path) -> None:
    vectors = clustered(300)
    cache = VectorCache(tmp_path / "v.sqlite")
    ids = fill(cache, vectors)
    centre = vectors.astype(np.float64).mean(0) * 300 / (300 + CENTRE_SHRINK)
    query = vectors[7]
    expected = unit(vectors - centre) @ unit(query - centre)
    got = cache.nearest(query, 5)
    assert [n.record_id for n in got] == [ids[i] for i in np.argsort(-expected)[:5]]
    assert got[0].record_id == ids[7] and got[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert got[1].similarity == pytest.approx(float(np.sort(expected)[-2]), abs=1e-5)
    # Centring takes away what all records share: two unrelated records (groups 1 and 2) look
    # alike by raw cosine and unrelated after centring.
    assert (
        float(vectors[1] @ vectors[2]) > 0.4 > abs(cache.similarities(vectors[1], [ids[2]])[ids[2]])
    )
    some = cache.similarities(query, [ids[3], ids[4], "not-cached"])
    assert set(some) == {ids[3], ids[4]}
    assert some[ids[3]] == pytest.approx(float(expected[3]), abs=1e-5)


def test_running_mean_follows_puts_replacements_and_deletes(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    cache = VectorCache(path)
    ids = [f"r{i:05d}" for i in range(50)]
    cache.put([(rid, text_hash(rid)) for rid in ids], clustered(50, seed=1))
    # The same records again with new vectors: replaced, not counted twice.
    cache.put([(rid, text_hash(rid)) for rid in ids[:5]], clustered(5, seed=2))

    class NoModel:
        model_id = "none"
        dimensions = DIMENSIONS

        def embed(self, texts: object) -> np.ndarray:
            raise AssertionError("nothing is new, so nothing is embedded")

    # 20 records leave the memory: sync drops them (and embeds nothing: the rest are unchanged).
    assert cache.sync({rid: rid for rid in ids[:30]}, NoModel()) == 0
    rows = cache.db.execute("SELECT embedding FROM vectors").fetchall()
    actual = np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(-1, DIMENSIONS)
    assert cache.count() == len(actual) == 30
    reopened = VectorCache(path)  # the running sum is in the file, not only in this object
    assert reopened.count() == 30
    centre = reopened._current_stats()[2]
    assert np.allclose(centre, actual.mean(0) * 30 / (30 + CENTRE_SHRINK), atol=1e-5)


def test_sign_bit_index_finds_what_the_exact_scan_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embeddings, "SCAN_BELOW", 400)
    vectors = clustered(3000, seed=3)
    cache = VectorCache(tmp_path / "v.sqlite")
    for start in range(0, 3000, 500):  # grows in batches: the bits are retaken as the mean moves
        cache.put(
            [(f"r{i:05d}", "h") for i in range(start, start + 500)], vectors[start : start + 500]
        )
    bits_mean = cache._current_stats()[3]
    assert np.linalg.norm(bits_mean) > 0  # taken against the mean, not against zero
    rng = np.random.default_rng(4)
    overlap = []
    for q in range(20):  # near group q*7's members (10 of them: 3,000 records in 300 groups)
        query = unit(vectors[q * 7] + 0.6 * unit(rng.standard_normal(DIMENSIONS)))
        indexed = cache.nearest(query, 10)
        monkeypatch.setattr(embeddings, "SCAN_BELOW", 10_000)
        exact = cache.nearest(query, 10)
        monkeypatch.setattr(embeddings, "SCAN_BELOW", 400)
        assert [n.similarity for n in indexed] == sorted(
            (n.similarity for n in indexed), reverse=True
        )
        assert indexed[0] == exact[0]
        overlap.append(len({n.record_id for n in indexed} & {n.record_id for n in exact}))
    assert sum(overlap) / len(overlap) >= 9.5, overlap


def test_a_cache_of_an_older_layout_is_rebuilt_empty(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    cache = VectorCache(path)
    fill(cache, clustered(10))
    with cache.db:
        cache.db.execute("UPDATE meta SET value='all-MiniLM-L6-v2-onnx-int8/384' WHERE key='model'")
    cache.close()
    again = VectorCache(path)
    assert again.count() == 0 and again.hashes() == {}
    row = again.db.execute("SELECT value FROM meta WHERE key='model'").fetchone()
    assert row[0] == LAYOUT
    fill(again, clustered(3))
    assert again.count() == 3


def test_empty_cache_and_k_zero(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite")
    query = clustered(1)[0]
    assert cache.nearest(query, 5) == [] and cache.similarities(query, []) == {}
    fill(cache, clustered(4))
    assert cache.nearest(query, 0) == []
    assert len(cache.nearest(query, 50)) == 4


def test_two_connections_keep_one_consistent_mean(tmp_path: Path) -> None:
    """The MCP server and a CLI process share the file: each sees the other's writes, and the
    running sum stays the sum of the rows whoever wrote them."""
    path = tmp_path / "v.sqlite"
    one, two = VectorCache(path), VectorCache(path)
    vectors = clustered(30, seed=5)
    one.put([(f"a{i}", "h") for i in range(10)], vectors[:10])
    assert two.count() == 10  # another connection's commit is seen
    two.put([(f"b{i}", "h") for i in range(10)], vectors[10:20])
    one.put([(f"b{i}", "h") for i in range(5)], vectors[20:25])  # replaces two's first five
    rows = two.db.execute("SELECT embedding FROM vectors").fetchall()
    actual = np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(-1, DIMENSIONS)
    for cache in (one, two):
        _, count, centre, _ = cache._current_stats()
        assert count == len(actual) == 20
        assert np.allclose(centre, actual.mean(0) * 20 / (20 + CENTRE_SHRINK), atol=1e-5)
    assert two.nearest(vectors[22], 1)[0].record_id == "b2"
