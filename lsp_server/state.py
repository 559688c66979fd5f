"""The server's state: repositories, open documents, and the immutable snapshots read requests see.

Only three things change state: the document notifications (open, change, close), a write to
memory (ours or another process's), and opening a repository's memory. All of them run on one
worker thread, in order, so the parse trees and the SQLite connection are never used from two
threads at once and an edit is always applied before the snapshot that follows it. Read requests
(hover, code lens, code actions) never wait for that thread: they read the last `DocumentSnapshot`,
a frozen value computed after the latest settled edit.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlparse

from anchors.record import Anchor, Learning
from lsp_server.options import Options
from lsp_server.resolution import FLAGGED, ParsedBuffer, Resolution

if TYPE_CHECKING:
    from anchors.memory import Memory
    from anchors.symbols import Symbol
    from lsp_server.watcher import MemoryWatcher

log = logging.getLogger(__name__)
T = TypeVar("T")

BINARY_SNIFF = 8192
HEAD_TTL = 2.0  # seconds


@dataclass(frozen=True)
class AnchorView:
    """One anchor of one learning, as it stands in the current text of a document."""

    learning: Learning
    index: int  # position of the anchor in `learning.anchors`
    anchor: Anchor
    resolution: Resolution

    @property
    def verdict(self) -> str:
        """The resolution's verdict, or `stale` for a learning someone marked stale."""
        status = self.resolution.status
        if self.learning.status == "stale" and status not in FLAGGED:
            return "stale"
        return status

    @property
    def flagged(self) -> bool:
        """Whether this anchor gets a diagnostic."""
        return self.verdict in FLAGGED

    @property
    def start(self) -> int:
        """0-based first line of the anchored code now (0 for code that was not found)."""
        return max(self.resolution.start_line - 1, 0)

    @property
    def end(self) -> int:
        """0-based last line of the anchored code now."""
        return max(self.resolution.end_line - 1, self.start)

    @property
    def located(self) -> bool:
        return self.resolution.start_line > 0


def verified_time(learning: Learning) -> str:
    """When the learning was last checked against the code (or written, if never since)."""
    return str(
        getattr(learning, "verified_at", "") or learning.updated_at or learning.recorded_at or ""
    )


@dataclass(frozen=True)
class DocumentSnapshot:
    """Everything a read request needs about one open document, frozen at one version."""

    uri: str
    version: int | None
    root: Path | None = None
    rel: str | None = None
    language: str | None = None
    note: str = ""  # why this document shows nothing (not in a repository, binary, too big...)
    line_count: int = 0
    views: tuple[AnchorView, ...] = ()
    symbols: tuple[Symbol, ...] = ()
    text: str = field(default="", repr=False)

    @cached_property
    def lines(self) -> list[str]:
        """The document's lines (split on demand: most snapshots never need them)."""
        return [line.rstrip("\r") for line in self.text.split("\n")]

    def views_at(self, line: int) -> list[AnchorView]:
        """The anchors of the innermost anchored code containing `line` (0-based)."""
        containing = [v for v in self.views if v.located and v.start <= line <= v.end]
        if not containing:
            return []
        narrowest = min(v.end - v.start for v in containing)
        inner = [v for v in containing if v.end - v.start == narrowest]
        first = min(v.start for v in inner)
        return sort_views([v for v in inner if v.start == first])

    def groups(self) -> dict[tuple[int, int], list[AnchorView]]:
        """Anchors grouped by the code they are on: one code lens per group."""
        out: dict[tuple[int, int], list[AnchorView]] = {}
        for view in self.views:
            key = (view.start, view.end) if view.located else (0, -1)
            out.setdefault(key, []).append(view)
        return out

    def find(self, learning_id: str) -> list[AnchorView]:
        return [v for v in self.views if v.learning.id == learning_id]


def sort_views(views: Iterable[AnchorView]) -> list[AnchorView]:
    """Newest verified first; ties by id (time-ordered) so the order is stable."""
    return sorted(views, key=lambda v: (verified_time(v.learning), v.learning.id), reverse=True)


@dataclass
class RepoContext:
    """One git repository the editor has files open in."""

    root: Path
    git_dir: Path
    memory: Memory | None = None
    error: str = ""  # why the memory could not be opened
    watcher: MemoryWatcher | None = None
    # (HEAD, anchored commit) -> whether HEAD contains that commit
    ancestry: dict[tuple[str, str], bool] = field(default_factory=dict)
    # (learning id, anchor index, anchored commit, HEAD) -> the anchor resolved against the
    # working tree and its history: the commit and author that changed the code, or where it went
    evidence: dict[tuple[str, int, str, str], Resolution] = field(default_factory=dict)

    head_cache: tuple[float, str] = field(default=(0.0, ""), repr=False)  # (read at, commit)

    def head(self) -> str:
        """HEAD's commit, re-read at most every HEAD_TTL seconds: a re-resolve after each pause
        in typing should not pay for a git process."""
        import time

        from anchors import git

        now = time.monotonic()
        if now - self.head_cache[0] > HEAD_TTL:
            self.head_cache = (now, git.head_commit(self.root))
        return self.head_cache[1]

    def contains(self, head: str, commit: str) -> bool:
        """Whether `commit` is HEAD or an ancestor of it (True when unknown: no pending then)."""
        key = (head, commit)
        if key not in self.ancestry:
            from anchors import git

            proc = git.run(["merge-base", "--is-ancestor", commit, head], self.root, check=False)
            self.ancestry[key] = proc.returncode != 1
        return self.ancestry[key]


@dataclass
class OpenDocument:
    uri: str
    version: int | None
    path: Path | None = None
    repo: RepoContext | None = None
    rel: str | None = None
    language: str | None = None
    note: str = ""
    buffer: ParsedBuffer | None = None
    text: str = ""
    learnings: list[Learning] = field(default_factory=list)


def path_of_uri(uri: str) -> Path | None:
    """The local path of a `file:` URI; None for `untitled:` and other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


class ServerState:
    """Repositories and documents; every method ending in `_sync` runs on the worker thread."""

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tether-state")
        self.repos: dict[Path, RepoContext] = {}
        self._repo_of_dir: dict[Path, Path | None] = {}
        self.documents: dict[str, OpenDocument] = {}
        self._snapshots: dict[str, DocumentSnapshot] = {}
        self._lock = threading.Lock()  # guards _snapshots, read from the event loop
        # Called (on the watcher's thread) when a repository's memory changed on disk.
        self.on_memory_change: Callable[[Path], None] | None = None

    # -- reading (any thread) -----------------------------------------------------------------

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The latest snapshot of an open document, or None if it is not open."""
        with self._lock:
            return self._snapshots.get(uri)

    def snapshots(self) -> list[DocumentSnapshot]:
        with self._lock:
            return list(self._snapshots.values())

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run `fn(*args)` on the worker thread, after everything submitted before it."""
        return self.worker.submit(fn, *args)

    # -- repositories ---------------------------------------------------------------------------

    def repo_for(self, path: Path) -> RepoContext | None:
        """The repository containing `path` (cached per directory); None outside any."""
        from anchors import git

        directory = path.parent
        if directory not in self._repo_of_dir:
            root: Path | None = None
            probe = directory
            while not probe.exists() and probe != probe.parent:
                probe = probe.parent  # the file (and its folder) may be deleted while open
            try:
                found = git.find_repo(probe)
                if not found.bare:
                    root = found.root
                    if root not in self.repos:
                        self.repos[root] = RepoContext(root=root, git_dir=found.git_dir)
            except (git.GitError, OSError) as exc:
                log.info("%s is not in a git repository (%s)", path, exc)
            self._repo_of_dir[directory] = root
        root = self._repo_of_dir[directory]
        return self.repos.get(root) if root is not None else None

    def memory_sync(self, repo: RepoContext) -> Memory | None:
        """The repository's memory, opened on first use; None (with `repo.error`) if it cannot be."""
        if repo.memory is None and not repo.error:
            from anchors.memory import Memory

            try:
                repo.memory = Memory.open(repo.root)
            except Exception as exc:  # a corrupt log, a read-only .git: serve without memory
                repo.error = f"cannot open the memory of {repo.root}: {exc}"
                log.warning("%s", repo.error)
                return None
            if self.options.watch:
                self._watch(repo)
        return repo.memory

    def _watch(self, repo: RepoContext) -> None:
        from lsp_server.watcher import MemoryWatcher

        def changed(root: Path) -> None:
            if self.on_memory_change is not None:
                self.on_memory_change(root)

        assert repo.memory is not None
        watcher = MemoryWatcher(repo.root, repo.memory.tether_dir, changed)
        if watcher.start():
            repo.watcher = watcher

    def warm_sync(self, path: Path) -> None:
        """Open the memory of the repository at `path` before the first document asks for it."""
        repo = self.repo_for(path / ".tether-probe")
        if repo is not None:
            self.memory_sync(repo)

    # -- documents (worker thread) --------------------------------------------------------------

    def open_sync(self, uri: str, text: str, version: int | None) -> DocumentSnapshot:
        """A document was opened: find its repository and learnings, parse it, resolve anchors."""
        from anchors.languages import language_for_path

        doc = OpenDocument(uri=uri, version=version, text=text)
        self.documents[uri] = doc
        doc.path = path_of_uri(uri)
        if doc.path is None:
            doc.note = "not a file on disk"
            log.info("%s: %s; no learnings shown", uri, doc.note)
        else:
            doc.repo = self.repo_for(doc.path)
            if doc.repo is None:
                doc.note = "not inside a git repository"
                log.info("%s: %s; no learnings shown", uri, doc.note)
            else:
                try:
                    doc.rel = doc.path.resolve().relative_to(doc.repo.root).as_posix()
                except ValueError:
                    doc.rel = doc.path.relative_to(doc.repo.root).as_posix()
                doc.language = language_for_path(doc.path)
                self._load_learnings(doc)
                self._parse(doc, text)
        return self._compute(doc)

    def _parse(self, doc: OpenDocument, text: str) -> None:
        doc.buffer = None
        if doc.language is None or doc.rel is None or not doc.learnings:
            return  # no grammar, or nothing anchored here: nothing to parse for
        if len(text) > self.options.max_file_bytes:
            doc.note = f"not parsed: {len(text):,} characters is over the size limit"
            log.info("%s: %s", doc.uri, doc.note)
            return
        if "\0" in text[:BINARY_SNIFF]:
            doc.note = "not parsed: binary content"
            log.info("%s: %s", doc.uri, doc.note)
            return
        try:
            doc.buffer = ParsedBuffer(
                doc.rel, text, doc.language, doc.repo.root if doc.repo else None
            )
        except Exception:
            doc.note = "not parsed: the parser failed"
            log.exception("parsing %s failed", doc.uri)

    def _load_learnings(self, doc: OpenDocument) -> None:
        if doc.repo is None or doc.rel is None:
            doc.learnings = []
            return
        memory = self.memory_sync(doc.repo)
        if memory is None:
            doc.note = doc.repo.error
            doc.learnings = []
            return
        try:
            doc.learnings = memory.list(path=doc.rel)
        except Exception:
            log.exception("reading the learnings of %s failed", doc.rel)
            doc.learnings = []

    def change_sync(
        self,
        uri: str,
        version: int | None,
        edits: list[tuple[tuple[int, int, int, int] | None, str]],
    ) -> None:
        """Apply content changes to the parse tree, in order; a range of None replaces the text."""
        doc = self.documents.get(uri)
        if doc is None:
            return
        doc.version = version
        buffer = doc.buffer
        if buffer is None:
            return
        for rng, new_text in edits:
            try:
                if rng is None or not buffer.incremental:
                    raise LookupError("full text")
                buffer.apply_change(*rng, new_text)
            except Exception:
                # Out-of-range positions or a full replacement: the next snapshot re-reads the
                # whole text from the client's copy of the document.
                doc.buffer = None
                return

    def refresh_sync(self, uri: str, text: str, version: int | None) -> DocumentSnapshot | None:
        """Re-resolve an edited document's anchors against `text` (the client's current text)."""
        doc = self.documents.get(uri)
        if doc is None:
            return None  # closed while the edit was waiting
        doc.version = version
        doc.text = text
        if doc.buffer is None or doc.buffer.text != text:
            self._parse(doc, text)
        return self._compute(doc)

    def close_sync(self, uri: str) -> None:
        self.documents.pop(uri, None)
        with self._lock:
            self._snapshots.pop(uri, None)

    def memory_changed_sync(self, root: Path) -> list[DocumentSnapshot]:
        """Another process wrote to memory: re-read it and recompute that repository's documents."""
        repo = self.repos.get(root)
        if repo is None or repo.memory is None:
            return []
        try:
            repo.memory.refresh()
        except Exception:
            # A partition being written while read: the next change event retries.
            log.exception("refreshing the memory of %s failed", root)
            return []
        return self.reload_sync(root)

    def reload_sync(self, root: Path) -> list[DocumentSnapshot]:
        """Re-read the learnings of every open document of one repository and recompute them."""
        out = []
        for doc in list(self.documents.values()):
            if doc.repo is not None and doc.repo.root == root:
                had = bool(doc.learnings)
                self._load_learnings(doc)
                if doc.learnings and (not had or doc.buffer is None):
                    self._parse(doc, doc.text)
                out.append(self._compute(doc))
        return out

    def _compute(self, doc: OpenDocument) -> DocumentSnapshot:
        views: list[AnchorView] = []
        head = doc.repo.head() if doc.repo is not None and doc.learnings else ""
        for learning in doc.learnings:
            for index, anchor in enumerate(learning.anchors):
                if anchor.path != doc.rel:
                    continue
                res = self._resolve(doc, anchor)
                if head and anchor.commit and doc.repo is not None:
                    if not doc.repo.contains(head, anchor.commit):
                        res = replace(
                            res,
                            status="pending",
                            detail=f"anchored at {anchor.commit[:10]}, which HEAD does not contain (another branch?)",
                        )
                    elif res.status in FLAGGED:
                        res = self._with_evidence(doc.repo, learning.id, index, anchor, head, res)
                views.append(AnchorView(learning, index, anchor, res))
        symbols: tuple[Symbol, ...] = ()
        if doc.buffer is not None:
            try:
                symbols = tuple(doc.buffer.symbols())
            except Exception:
                log.exception("listing the symbols of %s failed", doc.uri)
        snap = DocumentSnapshot(
            uri=doc.uri,
            version=doc.version,
            root=doc.repo.root if doc.repo else None,
            rel=doc.rel,
            language=doc.language,
            note=doc.note,
            line_count=doc.text.count("\n") + 1,
            views=tuple(views),
            symbols=symbols,
            text=doc.text,
        )
        with self._lock:
            if doc.uri in self.documents:
                self._snapshots[doc.uri] = snap
        return snap

    @staticmethod
    def _with_evidence(
        repo: RepoContext, ident: str, index: int, anchor: Anchor, head: str, res: Resolution
    ) -> Resolution:
        """Add what the history knows (who changed the code, where it went) to a buffer verdict."""
        found = repo.evidence.get((ident, index, anchor.commit, head))
        if found is None:
            return res
        if not res.commit and found.commit:
            res = replace(res, commit=found.commit, author=found.author)
        if res.new_home is None and found.new_home is not None:
            res = replace(res, new_home=found.new_home)
        return res

    def enrich_sync(self, uri: str) -> DocumentSnapshot | None:
        """Resolve a document's flagged anchors against the repository's history (slower than the
        buffer: git log), then recompute; None when there was nothing new to learn."""
        doc = self.documents.get(uri)
        snap = self.snapshot(uri)
        if doc is None or doc.repo is None or snap is None:
            return None
        repo = doc.repo
        head = repo.head()
        todo = [
            v for v in snap.views
            if v.resolution.status in FLAGGED
            and (v.learning.id, v.index, v.anchor.commit, head) not in repo.evidence
        ]  # fmt: skip
        if not todo:
            return None
        from anchors.resolve import resolve_anchors
        from lsp_server.resolution import from_verdict

        try:
            verdicts = resolve_anchors(repo.root, [v.anchor for v in todo])
        except Exception as exc:
            log.warning("looking up the history of %s failed: %s", doc.rel, exc)
            verdicts = []
        for view, verdict in zip(todo, verdicts, strict=False):
            key = (view.learning.id, view.index, view.anchor.commit, head)
            repo.evidence[key] = from_verdict(verdict, view.anchor)
        for view in todo[len(verdicts) :]:
            repo.evidence[(view.learning.id, view.index, view.anchor.commit, head)] = (
                view.resolution
            )
        return self._compute(doc)

    def _resolve(self, doc: OpenDocument, anchor: Anchor) -> Resolution:
        span = anchor.span if len(anchor.span) == 2 else []
        if doc.buffer is None:
            # Unparsed (no grammar, too big, binary): show the learning where it was anchored.
            start, end = (span[0], span[1]) if span else (1, 1)
            return Resolution("unknown", start, end, anchor.symbol)
        try:
            return doc.buffer.resolve(anchor)
        except Exception:
            log.exception("resolving %s in %s failed", anchor.label(), doc.uri)
            start, end = (span[0], span[1]) if span else (1, 1)
            return Resolution("unknown", start, end, anchor.symbol)

    def shutdown(self) -> None:
        for repo in self.repos.values():
            if repo.watcher is not None:
                repo.watcher.stop()
        self.worker.shutdown(wait=False, cancel_futures=True)
