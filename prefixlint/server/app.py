"""The language server itself: pygls wiring of the documents, diagnostics, actions and hover.

Every check runs on the event loop's thread, the process's main thread, so that the render
time limits of `prefixlint.sandbox` (a SIGALRM timer, main thread only) apply in the editor as
in `check`. A change is checked once the typing pauses (`debounce-ms`, 200 by default); open
and save check at once. Standard output is the protocol's: anything else printed goes to
standard error.
The client sends a changed document whole (full sync): prompt files are small, and the
server's copy of the text is then exactly the client's, whatever characters its lines hold
(pygls applies incremental changes by `str.splitlines`, which also breaks lines at a form
feed or U+2028, where editors do not).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from prefixlint import __version__
from prefixlint.server.actions import FIX_ALL_KIND, code_actions
from prefixlint.server.diagnostics import diagnostics
from prefixlint.server.documents import Checked, check_text
from prefixlint.server.hover import hover
from prefixlint.server.settings import ServerSettings, from_options

NAME = "prefixlint"


class PrefixlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.settings: ServerSettings = from_options(None, None)
        self.docs_url: str | None = None
        self.checked: dict[str, Checked] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.shut_down = False
        self.root: str | None = None

    @property
    def encoding(self) -> str:
        encoding = getattr(self.workspace, "position_encoding", None)
        return str(getattr(encoding, "value", encoding) or "utf-16")

    def check(self, uri: str) -> Checked | None:
        """Check the document's current text and publish its diagnostics; None: not a file."""
        self.timers.pop(uri, None)
        document = self.open_document(uri)
        if document is None or not uri.startswith("file:") or not document.path:
            return None
        checked = check_text(document.path, document.source, self.settings.builder, document.version, self.encoding)
        self.checked[uri] = checked
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics(checked, self.docs_url), version=document.version))
        return checked

    def current(self, uri: str) -> Checked | None:
        """The check of the document's current version (checked now if a change is pending)."""
        document = self.open_document(uri)
        if document is None:
            return None
        checked = self.checked.get(uri)
        if checked is None or checked.version != document.version or uri in self.timers:
            self.cancel(uri)
            checked = self.check(uri)
        return checked

    def open_document(self, uri: str):
        """The open document (its unsaved text); None for one the client has not opened."""
        from urllib.parse import unquote

        return self.workspace.text_documents.get(unquote(uri))

    def later(self, uri: str) -> None:
        self.cancel(uri)
        loop = asyncio.get_running_loop()
        self.timers[uri] = loop.call_later(self.settings.debounce_seconds, self._checked_later, uri)

    def _checked_later(self, uri: str) -> None:
        if uri in self.timers and not self.shut_down:
            self.check(uri)

    def cancel(self, uri: str) -> None:
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()


def create() -> PrefixlintServer:
    server = PrefixlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: PrefixlintServer, params: types.InitializeParams) -> None:
        root = None
        if params.workspace_folders:
            root = _path(params.workspace_folders[0].uri)
        elif params.root_uri:
            root = _path(params.root_uri)
        ls.root = root
        options = params.initialization_options
        ls.settings = from_options(options, root)
        if isinstance(options, dict) and isinstance(options.get("rule-docs-url"), str):
            ls.docs_url = options["rule-docs-url"]

    @server.feature(types.INITIALIZED)
    def initialized(ls: PrefixlintServer, params: types.InitializedParams) -> None:
        for problem in ls.settings.problems:
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"prefixlint: {problem}"))
        _warm_up(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PrefixlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.cancel(params.text_document.uri)
        ls.check(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PrefixlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: PrefixlintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.rsplit("/", 1)[-1] in CONFIG_NAMES:
            _configuration_changed(ls)
        elif uri in ls.checked or uri in ls.timers:
            ls.cancel(uri)
            ls.check(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PrefixlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.cancel(uri)
        ls.checked.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: PrefixlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.rsplit("/", 1)[-1] in CONFIG_NAMES for change in params.changes):
            _configuration_changed(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: PrefixlintServer, params: types.DidChangeConfigurationParams) -> None:
        """New options from the client's settings: `{"prefixlint": {"initializationOptions": {...}}}`
        as the VS Code extension sends them, or the options themselves; the open files are re-checked."""
        options = params.settings
        if isinstance(options, dict) and isinstance(options.get("prefixlint"), dict):
            options = options["prefixlint"]
        if isinstance(options, dict) and isinstance(options.get("initializationOptions"), dict):
            options = options["initializationOptions"]
        if not isinstance(options, dict) or not options:
            return  # a client announcing a change without the settings (pull model): keep ours
        ls.settings = from_options(options, ls.root)
        for problem in ls.settings.problems:
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"prefixlint: {problem}"))
        _configuration_changed(ls)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    def code_action(ls: PrefixlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        checked = ls.current(uri)
        if checked is None:
            return None

        def recheck(text: str) -> Checked:
            return check_text(checked.path, text, ls.settings.builder, None, ls.encoding)

        only = [str(getattr(kind, "value", kind)) for kind in params.context.only] if params.context.only else None
        return code_actions(uri, checked, params.range, only, recheck, ls.docs_url) or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: PrefixlintServer, params: types.HoverParams) -> types.Hover | None:
        checked = ls.current(params.text_document.uri)
        if checked is None:
            return None
        return hover(checked, params.position.line, params.position.character)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PrefixlintServer, params: Any = None) -> None:
        ls.shut_down = True
        for uri in list(ls.timers):
            ls.cancel(uri)

    return server


#: Names of configuration files: saving one re-checks every open document.
CONFIG_NAMES = (".prefixlint.yaml", ".prefixlint.yml", "pyproject.toml")


def _configuration_changed(ls: PrefixlintServer) -> None:
    from prefixlint.config import clear_cache

    clear_cache()
    for uri in list(ls.checked):
        ls.cancel(uri)
        ls.check(uri)


def _warm_up(ls: PrefixlintServer) -> None:
    """Load the workspace's tokenizer and the check's stages now, once, by checking a small
    chat template held in memory: the first document opened is then as fast as the rest."""
    from pathlib import Path

    path = str(Path(ls.root or Path.cwd()) / "prefixlint-warm-up.yaml")
    try:
        check_text(path, WARM_UP, ls.settings.builder)
    except Exception:  # a bad tokenizer or configuration is reported on the documents it applies to
        pass


WARM_UP = "messages:\n  - role: system\n    content: \"Today is {{ today }}. You answer briefly.\"\n"


def _path(uri: str) -> str | None:
    from pygls.uris import to_fs_path

    return to_fs_path(uri)


def serve() -> int:
    """Serve on standard input and output until `exit`; the exit status LSP asks for (0 after
    `shutdown`, 1 without)."""
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the protocol's stream
    server = create()
    server.start_io(sys.stdin.buffer, protocol_out)
    return 0 if server.shut_down else 1
