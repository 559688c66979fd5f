"""Recall: find the learnings that answer a question, by meaning, by words and by place in the code.

Candidates come from two rankings:
- semantic: MiniLM embeddings of each learning's description and text (`anchors.embeddings`),
  computed lazily for new or changed learnings, compared by cosine after subtracting the memory's
  mean vector (what all of one project's notes share tells none of them apart);
- lexical: SQLite FTS5 BM25 over text, description and tags, with the question's content words
  OR-ed so a paraphrase that shares only some words still matches.
Each candidate scores its cosine plus a small weight times its BM25 score per unit of the
question's IDF weight: a learning that contains the question's rare words (a function, a config
key, a tool) moves up, while a question worded unlike its answer, whose BM25 hits are learnings
that share one stray word with it, barely moves anything. (Rank fusion was measured and dropped:
ranks throw away how sure each side is, and BM25's confident-looking top hits on a paraphrase are
noise; see bench/recall.) The best candidates are then re-ranked by salience (recency of use,
importance, reinforcement) and, with `near`, by how close a learning's anchors are to the file in
play.

Without the embedding model (not installed, broken, or turned off) recall is BM25 alone and says so
once. Retired learnings (superseded, invalidated, archived) are never returned; quarantined ones are,
down-weighted and labelled, so an agent can still find what bootstrap wrote.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from anchors.errors import UsageError
from anchors.record import Learning
from anchors.salience import salience

if TYPE_CHECKING:
    from anchors.embeddings import VectorCache
    from anchors.memory import Memory

MAX_QUERY_CHARS = 2000
MAX_K = 100
CANDIDATES = 50  # per ranking, before fusion
# Weight of a candidate's BM25 score, per unit of the question's IDF weight, beside its cosine.
# Chosen from a grid over all three question sets of bench/recall: the tuning set alone is flat
# from 0 to 0.05 (within one question) and the held-out and realistic sets gain up to 0.05.
LEXICAL_WEIGHT = 0.05
RERANK_POOL = 20  # the best fused candidates (at least 3 k) that salience and `near` may reorder
# A question word found in more than this share of learnings (and in more than 50) is left out of
# the BM25 query unless it is among the ALWAYS_KEEP rarest of the question: such words barely
# move BM25, yet every learning they match must be scored (the p95 of recall at 100,000).
COMMON_SHARE = 1 / 50
ALWAYS_KEEP = 3
RETRIEVABLE = ("active", "stale", "quarantined")
NOTICE_FILE = "embeddings-notice"

# Words too common in questions to say anything about the answer.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "did",
        "for",
        "from",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "up",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "any",
        "after",
        "again",
        "all",
        "also",
        "am",
        "been",
        "before",
        "being",
        "both",
        "but",
        "could",
        "each",
        "few",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "just",
        "more",
        "most",
        "no",
        "nor",
        "not",
        "now",
        "only",
        "other",
        "out",
        "over",
        "own",
        "same",
        "she",
        "some",
        "such",
        "than",
        "too",
        "under",
        "until",
        "very",
        "were",
        "while",
        "whom",
        "yet",
        "get",
        "use",
        "used",
        "using",
        "need",
        "needs",
        "make",
        "made",
        "way",
        "ok",
        # Question scaffolding: how people ask, not what they ask about.
        "happens",
        "happen",
        "allowed",
        "supposed",
        "exactly",
        "fine",
        "something",
        "anything",
        "everything",
        "thing",
        "things",
        "like",
        "want",
        "know",
        "tell",
        "really",
        "actually",
        "still",
        "much",
        "many",
        "okay",
        "whether",
        "go",
        "goes",
        "put",
        "must",
        "may",
        "might",
        "ever",
        "instead",
        "etc",
    ]
)
_TOKEN = re.compile(r"[A-Za-z0-9_]+")


@dataclass
class Hit:
    record: Learning
    score: float
    lexical_rank: int | None = None
    vector_rank: int | None = None

    def to_dict(self) -> dict[str, Any]:
        r = self.record
        return {
            "id": r.id,
            "score": round(self.score, 6),
            "text": r.text,
            "description": r.description,
            "category": r.category,
            "status": r.status,
            "layer": r.layer,
            "anchors": [a.label() for a in r.anchors],
            "author": r.author,
            "source": r.source,
        }


@dataclass
class RecallResult:
    query: str
    hits: list[Hit]
    mode: str  # "hybrid" | "bm25" | "vector"
    notice: str = ""  # why vectors were not used, when they were not
    embedded: int = 0  # learnings embedded during this call
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "results": [h.to_dict() for h in self.hits],
        }
        if self.notice:
            out["notice"] = self.notice
        return out


def retrieval_text(record: Learning) -> str:
    """What gets embedded: the one-line description (the retrieval key), the prose, and the names
    of the code it is anchored to and its tags, identifiers also split into words (a question
    often names the function or file it is about, and "PaymentClient.charge" means little to the
    model until it reads "payment client charge")."""
    text = record.text.strip()
    desc = record.description.strip().rstrip("…")
    out = f"{desc}\n{text}" if desc and not text.startswith(desc) else text
    names = []
    for anchor in record.anchors:
        for name in (anchor.symbol or "", anchor.path):
            words = " ".join(split_identifier(name))
            if name and name not in names:
                names.append(f"{name} ({words})" if words and words != name.lower() else name)
    if names:
        out += "\nCode: " + ", ".join(names)
    if record.tags:
        out += "\nTags: " + ", ".join(record.tags)
    return out


_IDENTIFIER_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def split_identifier(name: str) -> list[str]:
    """The words of a code name: camelCase, PascalCase, snake_case, dotted and path parts,
    lower-cased, file extensions dropped ("src/payments/PaymentClient.py::charge_card" ->
    src payments payment client charge card)."""
    name = re.sub(r"\.(py|pyi|js|jsx|ts|tsx|go|rs|java|c|h|cc|cpp|hpp|rb|kt|swift|cs)\b", "", name)
    return [part.lower() for part in _IDENTIFIER_PART.findall(name)]


def check_query(query: str, k: int) -> str:
    if not isinstance(query, str) or not query.strip():
        raise UsageError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(
            f"the query is {len(query)} characters; the limit is {MAX_QUERY_CHARS} (ask a question, not a document)"
        )
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise UsageError(f"k must be between 1 and {MAX_K}")
    return query.strip()


class LexicalView:
    """One question's words as FTS5 sees them: porter stems, document frequencies, IDF weights.

    Stemming is FTS5's own (a scratch FTS5 table in the connection's temp schema), so what is
    counted here is exactly what MATCH matches. Built once per question and shared by the
    ranking and its confidence.
    """

    def __init__(self, memory: Memory, query: str) -> None:
        self.db = memory.projection.db
        _scratch(self.db)
        self.words = query_terms(query)
        self.stems = self._stems({0: " ".join(self.words)}).get(0, [])
        self.total = _record_count(memory)
        marks = ",".join("?" * len(self.stems))
        found: dict[Any, Any] = {}
        if self.stems:
            sql = f"SELECT term, doc FROM temp.tether_vocab WHERE term IN ({marks})"
            found = {r[0]: r[1] for r in self.db.execute(sql, tuple(self.stems))}
        self.df = {stem: int(found.get(stem, 0)) for stem in self.stems}
        self.idf = {
            stem: math.log(1.0 + (self.total - df + 0.5) / (df + 0.5))
            for stem, df in self.df.items()
        }

    def _stems(self, texts: dict[int, str]) -> dict[int, list[str]]:
        with self.db:
            self.db.execute("DELETE FROM temp.tether_stem")
            self.db.executemany(
                "INSERT INTO temp.tether_stem(rowid, x) VALUES (?, ?)", list(texts.items())
            )
        out: dict[int, list[str]] = {}
        for term, doc in self.db.execute(
            "SELECT term, doc FROM temp.tether_stem_terms ORDER BY doc, offset"
        ):
            out.setdefault(int(doc), []).append(str(term))
        return out

    def match(self) -> str:
        """The MATCH expression: the question's words OR-ed, less the common ones (see
        COMMON_SHARE)."""
        # MATCH gets the words, not the stems: FTS5 stems them itself, and Porter applied twice
        # is not always the same as once.
        stem_of = (
            dict(zip(self.words, self.stems, strict=True))
            if len(self.words) == len(self.stems)
            else {}
        )
        df = {w: self.df.get(stem_of.get(w, ""), 0) for w in self.words}
        rarest = set(sorted(self.words, key=lambda w: df[w])[:ALWAYS_KEEP])
        common = max(self.total * COMMON_SHARE, 50)
        kept = [w for w in self.words if not stem_of or w in rarest or df[w] <= common]
        return " OR ".join(f'"{w}"' for w in kept)

    @property
    def mass(self) -> float:
        """The question's total IDF weight (what a BM25 score is measured against)."""
        return sum(self.idf.values())


_COUNTS: dict[int, tuple[str, int]] = {}


def _record_count(memory: Memory) -> int:
    """How many records the projection holds, counted again only after it changed (a count over
    100,000 rows costs about a millisecond)."""
    db = memory.projection.db
    version = projection_version(memory)
    cached = _COUNTS.get(id(db))
    if cached is None or cached[0] != version:
        row = db.execute("SELECT count(*) FROM records").fetchone()
        cached = (version, int(row[0]) if row else 0)
        _COUNTS[id(db)] = cached
    return cached[1]


def _scratch(db: Any) -> None:
    """The temp-schema tables LexicalView uses (created once per connection)."""
    if db.execute("SELECT 1 FROM temp.sqlite_master WHERE name='tether_stem'").fetchone():
        return
    db.execute("CREATE VIRTUAL TABLE temp.tether_stem USING fts5(x, tokenize='porter unicode61')")
    db.execute(
        "CREATE VIRTUAL TABLE temp.tether_stem_terms USING fts5vocab(temp, tether_stem, 'instance')"
    )
    db.execute("CREATE VIRTUAL TABLE temp.tether_vocab USING fts5vocab(main, records_fts, 'row')")


def lexical_scores(
    memory: Memory, view: LexicalView, limit: int = CANDIDATES
) -> list[tuple[str, float]]:
    """(record id, BM25 score, higher is better), best first, retrievable learnings only."""
    match = view.match()
    if not match:
        return []
    db = memory.projection.db
    # Rank inside FTS5 alone, then filter: joining every match to `records` before the sort
    # costs several times the ranking itself in a large memory. Over-fetch for retired rows.
    ranked = [
        (int(r[0]), -float(r[1]))
        for r in db.execute(
            "SELECT rowid, bm25(records_fts, 1.0, 1.5, 0.5) FROM records_fts "
            "WHERE records_fts MATCH ? ORDER BY 2 LIMIT ?",
            (match, limit * 3),
        )
    ]
    if not ranked:
        return []
    # The unary + keeps SQLite on the rowid lookup: the (status, category) index would have it
    # walk every retrievable record instead.
    live = {
        int(r[0]): str(r[1])
        for r in db.execute(
            f"SELECT rowid, id FROM records WHERE rowid IN ({','.join(str(r) for r, _ in ranked)}) "
            "AND +store='learning' AND +status IN ('active','stale','quarantined')"
        )
    }
    return [(live[r], score) for r, score in ranked if r in live][:limit]


def query_terms(query: str) -> list[str]:
    words = [w.lower() for w in _TOKEN.findall(query)]
    kept = [w for w in dict.fromkeys(words) if w not in STOPWORDS and len(w) > 1]
    return (kept or list(dict.fromkeys(words)))[:32]


def open_vectors(memory: Memory) -> VectorCache:
    from anchors.embeddings import VECTORS_FILE, VectorCache

    return VectorCache(memory.tether_dir / VECTORS_FILE)


_SHARED: dict[str, VectorCache] = {}


def shared_vectors(memory: Memory) -> VectorCache:
    """One open cache per repository for the life of the process (the MCP server asks often)."""
    key = str(memory.tether_dir)
    if key not in _SHARED:
        _SHARED[key] = open_vectors(memory)
    return _SHARED[key]


def projection_version(memory: Memory) -> str:
    """Changes whenever an op is applied: the vector cache syncs only when it moved."""
    row = memory.projection.db.execute("SELECT value FROM meta WHERE key='max_key'").fetchone()
    parts = memory.projection.db.execute("SELECT value FROM meta WHERE key='parts'").fetchone()
    return f"{row[0] if row else ''}|{parts[0] if parts else ''}"


def sync_vectors(memory: Memory, cache: VectorCache, embedder: Any, progress: Any = None) -> int:
    """Embed retrievable learnings that are new or changed; drop retired ones. Returns the count
    embedded. Cheap when the projection has not changed since the last sync."""
    version = projection_version(memory)
    row = cache.db.execute("SELECT value FROM meta WHERE key='synced'").fetchone()
    if row is not None and row[0] == version:
        return 0
    wanted = {
        r.id: retrieval_text(r)
        for r in memory.projection.query(
            "store='learning' AND status IN ('active','stale','quarantined')"
        )
    }
    done = cache.sync(wanted, embedder, progress=progress)
    with cache.db:
        cache.db.execute("INSERT OR REPLACE INTO meta VALUES('synced', ?)", (version,))
    return done


def _load_embedder_or_reason() -> tuple[Any, str]:
    from anchors.embeddings import EmbeddingUnavailable, load_embedder

    try:
        return load_embedder(), ""
    except EmbeddingUnavailable as exc:
        return None, str(exc)


def path_proximity(near: str, record: Learning) -> float:
    """1.0 for an anchor on the file itself, less for the same directory, 0 for unrelated paths."""
    if not near or not record.anchors:
        return 0.0
    target = PurePosixPath(near.strip("/"))
    best = 0.0
    for anchor in record.anchors:
        path = PurePosixPath(anchor.path.strip("/"))
        if path == target:
            return 1.0
        shared = 0
        for a, b in zip(path.parts, target.parts, strict=False):
            if a != b:
                break
            shared += 1
        if shared:
            depth = max(len(path.parts), len(target.parts))
            best = max(best, 0.6 * shared / depth)
    return best


def rerank_weight(record: Learning, now: datetime, near: str) -> float:
    """Salience, dampened so it breaks ties between relevant results rather than outranking
    relevance, times a boost for anchors near the file in play."""
    sal = min(max(salience(record, now), 0.05), 20.0)
    return math.pow(sal, 0.15) * (1.0 + 0.5 * path_proximity(near, record))


def recall(
    memory: Memory,
    query: str,
    k: int = 5,
    near: str = "",
    *,
    use_vectors: bool = True,
    use_lexical: bool = True,
    progress: Any = None,
) -> RecallResult:
    """The k learnings that best answer `query` (see the module docstring)."""
    query = check_query(query, k)
    near = _relative(memory, near)
    lexical: list[tuple[str, float]] = []
    similarity: dict[str, float] = {}
    vector: list[str] = []
    notice = ""
    embedded = 0
    mass = 0.0
    qvec: Any = None
    cache: VectorCache | None = None
    if use_vectors:
        embedder, notice = _load_embedder_or_reason()
        if embedder is not None:
            cache = shared_vectors(memory)
            embedded = sync_vectors(memory, cache, embedder, progress=progress)
            qvec = embedder.embed([query])[0]
    if use_lexical:
        view = LexicalView(memory, query)
        lexical = lexical_scores(memory, view)
        mass = view.mass or 1.0
    if qvec is not None and cache is not None:
        neighbours = cache.nearest(qvec, CANDIDATES)
        vector = [n.record_id for n in neighbours]
        similarity = {n.record_id: n.similarity for n in neighbours}
        # BM25's candidates get their true cosine too, not a guess.
        missing = [rid for rid, _ in lexical if rid not in similarity]
        similarity.update(cache.similarities(qvec, missing))
    if not use_vectors:
        notice = ""
    mode = "hybrid" if use_lexical and vector else ("vector" if vector else "bm25")
    words = {rid: score / mass for rid, score in lexical}
    if vector:
        floor = min(similarity.values())  # a candidate without a vector (none after a sync)
        weight = LEXICAL_WEIGHT if use_lexical else 0.0
        base = {
            rid: similarity.get(rid, floor) + weight * words.get(rid, 0.0)
            for rid in dict.fromkeys([*vector, *words])
        }
    else:
        base = words
    lex_rank = {rid: i for i, (rid, _) in enumerate(lexical, start=1)}
    vec_rank = {rid: i for i, rid in enumerate(vector, start=1)}
    now = datetime.now(timezone.utc)
    hits = [
        Hit(record, _reweigh(base[record.id], rerank_weight(record, now, near)),
            lex_rank.get(record.id), vec_rank.get(record.id))
        for record in _pool(memory, base, max(RERANK_POOL, 3 * k))
    ]  # fmt: skip
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return RecallResult(query, hits[:k], mode, notice, embedded)


def _pool(memory: Memory, base: dict[str, float], size: int) -> list[Learning]:
    """The `size` best retrievable candidates by base score, read in one query (reading every
    candidate one by one costs more than the ranking in a large memory)."""
    ranked = sorted(base, key=lambda rid: (-base[rid], rid))
    out: list[Learning] = []
    for start in range(0, len(ranked), size):
        chunk = ranked[start : start + size]
        marks = ",".join("?" * len(chunk))
        out += [
            r
            for r in memory.projection.query(f"id IN ({marks})", chunk)
            if r.status in RETRIEVABLE and r.store == "learning"
        ]
        if len(out) >= size:
            break
    return out


def _reweigh(base: float, weight: float) -> float:
    """The base score moved by a re-rank weight in the direction that helps a weight above 1."""
    return base * weight if base >= 0 else base / weight


def _relative(memory: Memory, near: str) -> str:
    """`near` as a repository-relative POSIX path (absolute paths inside the repo are accepted)."""
    if not near:
        return ""
    path = Path(near)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(memory.root)
        except ValueError:
            raise UsageError(f"--near {near} is outside the repository") from None
    rel = path.as_posix().strip("/")
    if rel.startswith("../") or rel == "..":
        raise UsageError(f"--near {near} is outside the repository")
    return rel


def notice_once(memory: Memory, notice: str) -> str:
    """The notice if this repository has not been told it yet (remembered in .git/tether), else ""."""
    if not notice:
        return ""
    path = memory.tether_dir / NOTICE_FILE
    try:
        if path.read_text(encoding="utf-8").strip() == notice:
            return ""
    except OSError:
        pass
    with contextlib.suppress(OSError):
        path.write_text(notice + "\n", encoding="utf-8")
    return notice
