"""The server over stdio with a real client (pytest-lsp): the whole flow a person sees."""

from __future__ import annotations

import asyncio

from lsp_helpers import CHARGE_LINE, REFUND_LINE, Project, open_doc, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient


def hover_params(uri: str, line: int, character: int = 8) -> types.HoverParams:
    return types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character),
    )


async def test_hover_shows_the_learning_on_the_symbol(client: LanguageClient, project: Project) -> None:
    uri = open_doc(client, project.pay)
    diagnostics = await wait_for_diagnostics(client, uri)
    assert diagnostics == []  # fresh: nothing to flag
    result = await client.text_document_hover_async(hover_params(uri, CHARGE_LINE + 1))
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    assert "idempotent" in result.contents.value
    assert "**pattern**" in result.contents.value
    assert "unchanged since verified" in result.contents.value
    # A method with no learning shows nothing.
    assert await client.text_document_hover_async(hover_params(uri, REFUND_LINE + 1)) is None
