"""Document lifecycle: didOpen, didChange (incremental), didClose.

These are the only handlers that change a document's state. didOpen resolves at once (the user
just opened the file and waits for its learnings); didChange applies the edit to the parse tree
right away, in order, and re-resolves once typing pauses (the debounce), only for that document.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from lsp_server.server import TetherLanguageServer

log = logging.getLogger(__name__)

Edit = tuple[tuple[int, int, int, int] | None, str]


def edits_of(changes: list[types.TextDocumentContentChangeEvent]) -> list[Edit]:
    """LSP content changes as (start line, start char, end line, end char) + text; None = whole."""
    out: list[Edit] = []
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            r = change.range
            out.append(
                ((r.start.line, r.start.character, r.end.line, r.end.character), change.text)
            )
        else:
            out.append((None, change.text))
    return out


def register(server: TetherLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def text_document_did_open(
        ls: TetherLanguageServer, params: types.DidOpenTextDocumentParams
    ) -> None:
        doc = params.text_document
        snapshot = await ls.run(ls.state.open_sync, doc.uri, doc.text, doc.version)
        ls.publish(snapshot)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def text_document_did_change(
        ls: TetherLanguageServer, params: types.DidChangeTextDocumentParams
    ) -> None:
        uri = params.text_document.uri
        ls.state.submit(
            ls.state.change_sync,
            uri,
            params.text_document.version,
            edits_of(list(params.content_changes)),
        )
        delay = ls.state.options.debounce_ms / 1000
        ls.debouncer.schedule(uri, delay, lambda: ls.refresh(uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def text_document_did_close(
        ls: TetherLanguageServer, params: types.DidCloseTextDocumentParams
    ) -> None:
        uri = params.text_document.uri
        ls.debouncer.cancel(uri)
        ls.state.submit(ls.state.close_sync, uri)
        # Clear what was shown: the learnings belong to the open buffer, not to the project view.
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
