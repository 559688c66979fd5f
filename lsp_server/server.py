"""The Tether language server: one typed server object, its start-up, and the document lifecycle.

Start-up is kept light: pygls and lsprotocol are the only heavy imports before `initialize` is
answered. Opening the repository's memory (and the first tree-sitter grammar) starts on the worker
thread as soon as the client says `initialized`, so it overlaps with the client sending `didOpen`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from lsp_server import __version__
from lsp_server.features import code_actions, code_lens, commands, diagnostics, documents, hover
from lsp_server.options import parse_options
from lsp_server.state import DocumentSnapshot, ServerState, path_of_uri

log = logging.getLogger(__name__)
T = TypeVar("T")

# Diagnostics are pushed (textDocument/publishDiagnostics) by the document lifecycle, so that
# module has no handler of its own to register.
FEATURES = (documents, hover, code_lens, code_actions, commands)


class TetherLanguageServer(LanguageServer):
    """The server object every handler receives as `ls`."""

    def __init__(self) -> None:
        super().__init__(
            "tether", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.state = ServerState()
        self.state.on_memory_change = self.memory_changed
        self.debouncer = diagnostics.Debouncer()
        self.loop: asyncio.AbstractEventLoop | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` on the state's worker thread and wait for it without blocking."""
        return await asyncio.wrap_future(self.state.submit(fn, *args))

    def publish(self, snapshot: DocumentSnapshot) -> None:
        """Send a snapshot's diagnostics; then, if some are flagged, look up in the background
        which commit and author changed their code, and send them again with that evidence."""
        if snapshot.uri not in self.state.documents:
            return
        diagnostics.publish(self, snapshot)
        if any(v.flagged for v in snapshot.views):
            asyncio.ensure_future(self._enrich(snapshot.uri))

    async def _enrich(self, uri: str) -> None:
        try:
            snapshot = await self.run(self.state.enrich_sync, uri)
        except Exception:
            log.exception("looking up evidence for %s failed", uri)
            return
        if snapshot is not None and snapshot.uri in self.state.documents:
            diagnostics.publish(self, snapshot)

    def show_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def refresh_code_lenses(self) -> None:
        """Ask the client to re-request code lenses, if it supports being asked."""
        caps = self.client_capabilities.workspace
        lens = getattr(caps, "code_lens", None) if caps else None
        if lens is not None and getattr(lens, "refresh_support", False):
            self.workspace_code_lens_refresh(None)

    async def refresh(self, uri: str) -> None:
        """Re-resolve one document against the client's current text and publish the result."""
        if uri not in self.workspace.text_documents:
            return
        text_doc = self.workspace.get_text_document(uri)
        snapshot = await self.run(self.state.refresh_sync, uri, text_doc.source, text_doc.version)
        if snapshot is not None:
            self.publish(snapshot)

    def memory_changed(self, root: Path) -> None:
        """Called from the watcher's thread: hop onto the event loop and refresh there."""
        if self.loop is None or self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._memory_changed(root)))

    async def _memory_changed(self, root: Path) -> None:
        snapshots = await self.run(self.state.memory_changed_sync, root)
        for snapshot in snapshots:
            self.publish(snapshot)
        if snapshots:
            self.refresh_code_lenses()


class ClientLogHandler(logging.Handler):
    """Forwards the server's warnings to the client's log (window/logMessage), from any thread."""

    LEVELS = {
        logging.ERROR: types.MessageType.Error,
        logging.WARNING: types.MessageType.Warning,
        logging.INFO: types.MessageType.Info,
    }

    def __init__(self, server: TetherLanguageServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        loop = self.server.loop
        if loop is None or loop.is_closed():
            return
        kind = self.LEVELS.get(record.levelno, types.MessageType.Log)
        params = types.LogMessageParams(type=kind, message=self.format(record))
        with contextlib.suppress(RuntimeError):  # the loop closed while shutting down
            loop.call_soon_threadsafe(self.server.window_log_message, params)


def create_server() -> TetherLanguageServer:
    """A server with every feature registered (not started)."""
    server = TetherLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: TetherLanguageServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_event_loop()
        options, problems = parse_options(params.initialization_options)
        ls.state.options = options
        for problem in problems:
            log.warning("%s", problem)

    @server.feature(types.INITIALIZED)
    def initialized(ls: TetherLanguageServer, params: types.InitializedParams) -> None:
        root = ls.workspace.root_path
        folders = [path_of_uri(f.uri) for f in (ls.workspace.folders or {}).values()]
        paths = [Path(root)] if root else []
        paths += [p for p in folders if p is not None]
        for path in dict.fromkeys(paths):
            ls.state.submit(ls.state.warm_sync, path)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TetherLanguageServer, params: None) -> None:
        ls.state.shutdown()

    for feature in FEATURES:
        feature.register(server)
    return server


def main(log_file: str | None = None, verbose: bool = False) -> int:
    """Serve over stdio until the client exits."""
    handlers: list[logging.Handler] = [logging.StreamHandler()]  # stderr: editors keep it
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
    )
    # pygls logs every message at INFO/DEBUG; only its problems interest a user.
    logging.getLogger("pygls").setLevel(logging.DEBUG if verbose else logging.WARNING)
    server = create_server()
    client_log = ClientLogHandler(server)
    client_log.setFormatter(logging.Formatter("%(message)s"))
    for name in ("lsp_server", "anchors"):
        logging.getLogger(name).addHandler(client_log)
    server.start_io()
    return 0
