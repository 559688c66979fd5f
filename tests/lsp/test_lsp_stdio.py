"""The server over stdio with a real client (pytest-lsp): the whole flow a person sees."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsp_helpers import (
    CHARGE_LINE,
    REFUND_LINE,
    Project,
    init_params,
    open_doc,
    wait_for_diagnostics,
)
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient


def hover_params(uri: str, line: int, character: int = 8) -> types.HoverParams:
    return types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character),
    )


async def test_hover_shows_the_learning_on_the_symbol(
    client: LanguageClient, project: Project
) -> None:
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


def change(
    uri: str, version: int, line: int, start: int, end: int, text: str
) -> types.DidChangeTextDocumentParams:
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=line, character=start),
                    end=types.Position(line=line, character=end),
                ),
                text=text,
            )
        ],
    )


async def test_code_lens_counts_learnings_and_resolves_to_a_command(
    client: LanguageClient, project: Project
) -> None:
    uri = open_doc(client, project.pay)
    await wait_for_diagnostics(client, uri)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses is not None and len(lenses) == 1
    assert lenses[0].range.start.line == CHARGE_LINE
    assert lenses[0].command is None  # filled in by resolve
    resolved = await client.code_lens_resolve_async(lenses[0])
    assert resolved.command is not None
    assert resolved.command.title == "1 learning"
    assert resolved.command.command == "tether.showLearnings"
    shown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=resolved.command.command, arguments=resolved.command.arguments
        )
    )
    assert "idempotent" in shown["markdown"]


async def test_editing_the_body_flags_it_and_still_valid_clears_it(
    client: LanguageClient, project: Project
) -> None:
    uri = open_doc(client, project.pay)
    assert await wait_for_diagnostics(client, uri) == []
    # `total = amount + 1` -> `total = amount + 2`, inside charge's body (not saved).
    line = project.pay.read_text().splitlines()[CHARGE_LINE + 1]
    col = line.index("1")
    client.text_document_did_change(change(uri, 2, CHARGE_LINE + 1, col, col + 1, "2"))
    diagnostics = await wait_for_diagnostics(client, uri)
    assert len(diagnostics) == 1
    stale = diagnostics[0]
    assert stale.source == "tether" and stale.code == "stale"
    assert stale.severity == types.DiagnosticSeverity.Warning
    assert stale.range.start.line == CHARGE_LINE
    assert "idempotent" in stale.message

    lens = (await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    ))[0]  # fmt: skip
    assert (await client.code_lens_resolve_async(lens)).command.title == "1 learning · 1 stale"

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=stale.range,
            context=types.CodeActionContext(diagnostics=[stale]),
        )
    )
    titles = [a.title for a in actions]
    assert titles[0].startswith("Still valid")
    assert any(t.startswith("Invalidate…") for t in titles)
    assert any(t.startswith("Show history") for t in titles)
    still_valid = actions[0]
    assert isinstance(still_valid, types.CodeAction) and still_valid.command is not None
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=still_valid.command.command, arguments=still_valid.command.arguments
        )
    )
    assert await wait_for_diagnostics(client, uri) == []
    # The confirmation is in the learning's history, written by the language server.
    history = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="tether.showHistory", arguments=[project.learning_id])
    )
    assert [op["type"] for op in history["ops"]][-1] == "confirm"


async def test_a_learning_added_by_the_cli_appears_without_a_restart(
    client: LanguageClient, project: Project, run_tether
) -> None:
    uri = open_doc(client, project.pay)
    await wait_for_diagnostics(client, uri)
    assert await client.text_document_hover_async(hover_params(uri, REFUND_LINE + 1)) is None
    proc = run_tether(
        ["add", "Refunds are negative charges; never call the gateway twice.", "--category", "error",
         "--anchor", "src/pay.py::PaymentClient.refund"],
        project.root,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for _ in range(100):
        result = await client.text_document_hover_async(hover_params(uri, REFUND_LINE + 1))
        if result is not None:
            break
        await asyncio.sleep(0.05)
    assert result is not None and "never call the gateway twice" in result.contents.value
    assert client.code_lens_refreshes >= 1  # type: ignore[attr-defined]


async def test_a_committed_change_names_its_commit_and_author(
    client: LanguageClient, project: Project
) -> None:
    import subprocess

    project.pay.write_text(project.pay.read_text().replace("amount + 1", "amount * 2"))
    env = {"GIT_AUTHOR_NAME": "Bob Builder", "GIT_AUTHOR_EMAIL": "bob@example.com",
           "GIT_COMMITTER_NAME": "Bob Builder", "GIT_COMMITTER_EMAIL": "bob@example.com"}  # fmt: skip
    import os

    subprocess.run(
        ["git", "commit", "-qam", "double the fee"],
        cwd=project.root,
        check=True,
        env={**os.environ, **env},
    )
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=project.root, capture_output=True, text=True
    ).stdout.strip()
    uri = open_doc(client, project.pay)
    diagnostics = await wait_for_diagnostics(client, uri)
    assert [d.code for d in diagnostics] == ["stale"]
    # The history lookup runs after the first publish and sends the diagnostics again.
    for _ in range(200):
        related = diagnostics[0].related_information or []
        if any(sha[:10] in r.message for r in related):
            break
        diagnostics = await wait_for_diagnostics(client, uri)
    messages = [r.message for r in diagnostics[0].related_information or []]
    assert any(sha[:10] in m and "Bob Builder" in m for m in messages), messages


async def test_an_anchor_on_another_branch_is_pending(
    client: LanguageClient, project: Project
) -> None:
    import subprocess

    from lsp_helpers import add_learning, commit_all

    subprocess.run(["git", "checkout", "-qb", "feature"], cwd=project.root, check=True)
    project.pay.write_text(project.pay.read_text() + "\n\ndef feature():\n    return 2\n")
    commit_all(project.root, "feature")
    add_learning(project.root, "The feature flag defaults off.", "src/pay.py#L1-L2")
    subprocess.run(["git", "checkout", "-q", "main"], cwd=project.root, check=True)
    uri = open_doc(client, project.pay)
    diagnostics = await wait_for_diagnostics(client, uri)
    assert [d.code for d in diagnostics] == ["pending"]
    assert diagnostics[0].severity == types.DiagnosticSeverity.Information


TETHER_LSP = ClientServerConfig(
    server_command=[str(Path(sys.executable).parent / "tether"), "lsp", "--stdio"]
)


@pytest_lsp.fixture(config=TETHER_LSP)
async def cli_client(lsp_client: LanguageClient, project: Project) -> AsyncIterator[None]:
    await lsp_client.initialize_session(init_params(project.root))
    yield
    await lsp_client.shutdown_session()


async def test_the_tether_lsp_command_serves_the_same(
    cli_client: LanguageClient, project: Project
) -> None:
    """What editors run: `tether lsp --stdio` (vscode-languageclient appends --stdio)."""
    uri = open_doc(cli_client, project.pay)
    await wait_for_diagnostics(cli_client, uri)
    result = await cli_client.text_document_hover_async(hover_params(uri, CHARGE_LINE + 1))
    assert result is not None and "idempotent" in result.contents.value


async def test_code_moved_to_another_file_offers_re_anchor(
    client: LanguageClient, project: Project
) -> None:
    from lsp_helpers import commit_all

    text = project.pay.read_text()
    start = text.index("    def charge")
    end = text.index("    def refund")
    moved = "class PaymentClient:\n" + text[start:end]
    (project.root / "src" / "billing.py").write_text(moved)
    project.pay.write_text(text[:start] + text[end:])
    commit_all(project.root, "move charge to billing")
    uri = open_doc(client, project.pay)
    diagnostics = await wait_for_diagnostics(client, uri)
    assert [d.code for d in diagnostics] == ["orphaned"]
    titles: list[str] = []
    for _ in range(100):  # the history lookup that finds the new home runs after the first publish
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=diagnostics[0].range,
                context=types.CodeActionContext(diagnostics=diagnostics),
            )
        )
        titles = [a.title for a in actions or []]
        if any(t.startswith("Re-anchor") for t in titles):
            break
        await asyncio.sleep(0.05)
    assert "Re-anchor to src/billing.py::PaymentClient.charge" in titles
    reanchor = next(a for a in actions if a.title.startswith("Re-anchor"))
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command=reanchor.command.command, arguments=reanchor.command.arguments
        )
    )
    for _ in range(100):
        latest = client.diagnostics.get(uri)
        if latest is not None and list(latest) == []:
            break
        await asyncio.sleep(0.05)
    assert list(client.diagnostics.get(uri, [None])) == []
    billing = open_doc(client, project.root / "src" / "billing.py")
    await wait_for_diagnostics(client, billing)
    hover = await client.text_document_hover_async(hover_params(billing, 2))
    assert hover is not None and "idempotent" in hover.contents.value
