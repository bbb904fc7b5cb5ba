"""One language server for the tests of this folder that need one (module scope), through
pytest-lsp's real LSP client over the server's standard input and output."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.server.scratch import make_repository

SERVER = [sys.executable, "-m", "prefixlint", "server"]


#: A render budget of 1 s (the default is 10 s): the hostile-input test's endless loop ends soon;
#: files up to 100,000 bytes (the default is 10 MiB): its too-large document stays small.
ENVIRONMENT = {**os.environ, "PREFIXLINT_RENDER_SECONDS": "1", "PREFIXLINT_MAX_FILE_BYTES": "100000"}


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, server_env=ENVIRONMENT))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = make_repository(tmp_path_factory.mktemp("scratch"))
    lsp_client.scratch = root
    lsp_client.published = []  # every publishDiagnostics, in order (pytest-lsp keeps the last per file)
    handle = lsp_client.protocol._handle_notification

    def record(method, params):
        if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            lsp_client.published.append(params)
        handle(method, params)

    lsp_client.protocol._handle_notification = record
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="scratch")],
        initialization_options={"debounce-ms": 50}))
    yield
    await lsp_client.shutdown_session()


async def published(client: LanguageClient, uri: str, version: int | None, timeout: float = 60):
    """The diagnostics published for `uri` at `version` (None: any), waiting at most `timeout` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for params in client.published:
            if params.uri == uri and (version is None or params.version == version):
                client.published.remove(params)
                return params
        await asyncio.sleep(0.02)
    raise TimeoutError(f"no diagnostics for {uri} at version {version}")
