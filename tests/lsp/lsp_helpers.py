"""Helpers for the language server tests: a small Python project, writing learnings, and a real
LSP client talking to `python -m lsp_server` over stdio (pytest-lsp)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

PAY_PY = '''\
class PaymentClient:
    """Talks to the gateway."""

    def charge(self, amount):
        total = amount + 1
        return total

    def refund(self, amount):
        return -amount


def helper():
    return 1
'''

CHARGE_LINE = 3  # 0-based line of `def charge`
REFUND_LINE = 7


@dataclass
class Project:
    root: Path
    pay: Path
    learning_id: str

    @property
    def pay_uri(self) -> str:
        return self.pay.as_uri()


def commit_all(root: Path, message: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada Test", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada Test", "GIT_COMMITTER_EMAIL": "ada@example.com"}  # fmt: skip
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=root, check=True, env=env)


def add_learning(root: Path, text: str, spec: str, category: str = "pattern") -> str:
    """Write a learning the way the CLI does (same Memory write path), returning its id."""
    from anchors.memory import Memory
    from anchors.specs import resolve_spec

    memory = Memory.open(root)
    anchor = resolve_spec(root, spec, cwd=root).anchor
    return memory.add(text, category=category, anchors=[anchor]).id


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "lsp_server"])


def init_params(root: Path, **options: object) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
            )
        ),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options={"debounceMs": 50, **options},
    )


def open_doc(
    client: LanguageClient, path: Path, text: str | None = None, uri: str | None = None
) -> str:
    uri = uri or path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1,
                text=path.read_text() if text is None else text,
            )
        )
    )  # fmt: skip
    return uri


async def wait_for_diagnostics(
    client: LanguageClient, uri: str, timeout: float = 10.0
) -> list[types.Diagnostic]:
    """Wait for the next publishDiagnostics for `uri`."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise TimeoutError(f"no diagnostics for {uri}")
        params = await asyncio.wait_for(
            client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining
        )
        if params.uri == uri:
            return list(params.diagnostics)
