"""Fixtures for the language server tests (helpers live in lsp_helpers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import (
    PAY_PY,
    SERVER,
    Project,
    add_learning,
    commit_all,
    init_params,
    prepare_client,
)
from lsprotocol import types
from pytest_lsp import LanguageClient


@pytest.fixture
def project(repo: Path) -> Project:
    pay = repo / "src" / "pay.py"
    pay.parent.mkdir()
    pay.write_text(PAY_PY)
    commit_all(repo, "payments")
    ident = add_learning(
        repo, "Retries in charge must stay idempotent: the gateway double-charges on timeout.",
        "src/pay.py::PaymentClient.charge",
    )  # fmt: skip
    return Project(root=repo, pay=pay, learning_id=ident)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, project: Project) -> AsyncIterator[None]:
    prepare_client(lsp_client)
    await lsp_client.initialize_session(init_params(project.root))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def lsp_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    """A client connected to a server that the test initializes itself."""
    prepare_client(lsp_client)
    yield
    if lsp_client.capabilities is None:
        # The test failed before initializing: a server never told to exit keeps the test run
        # waiting on it, so give it a session and end that.
        await lsp_client.initialize_session(
            types.InitializeParams(capabilities=types.ClientCapabilities())
        )
        await lsp_client.shutdown_session()
