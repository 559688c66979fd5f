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


def make_repo(path: Path) -> Path:
    """A fresh repository with an identity and one commit (no `tether init`)."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    (path / "README.md").write_text("# demo\n")
    commit_all(path, "initial")
    return path


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
    """The diagnostics published for `uri` since the last call (waiting for them if need be)."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while uri not in client.diagnostics:
        if loop.time() > deadline:
            raise TimeoutError(f"no diagnostics for {uri}")
        await asyncio.sleep(0.01)
    return list(client.diagnostics.pop(uri))


def fix_code_action_structuring(client: LanguageClient) -> None:
    """lsprotocol reads any code action that has a `command` as a bare Command (its union hook
    only checks the key); a real editor reads the JSON. Teach the test client to tell them apart:
    a Command's `command` is a string, a CodeAction's is an object."""
    from typing import Any, Union

    converter = client.protocol._converter

    def hook(obj: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


def prepare_client(client: LanguageClient) -> None:
    """What every test client needs: code actions read right, code lens refreshes counted."""
    fix_code_action_structuring(client)
    client.code_lens_refreshes = 0  # type: ignore[attr-defined]

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(client: LanguageClient, params: None) -> None:
        client.code_lens_refreshes += 1  # type: ignore[attr-defined]
