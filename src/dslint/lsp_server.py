"""`dslint lsp`: a pygls language server over the in-process engine.

Diagnostics are pushed on open, save and (debounced) change, for every open document whose
lint folder the changed file belongs to: a change to a DeepSpeed config re-lints the scripts
next to it. Linting runs on one worker thread, so the connection stays responsive and lints
never overlap; a lint that finishes after its document changed again is not published.
"""
from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from . import __version__, engine
from .fixes import apply_edits, build_edits, diff_to_edit, parses
from .lsp_convert import (FIX_ALL_KIND, SOURCE, fix_from_data, to_diagnostic, to_range, to_text_edits)
from .lsp_lint import OpenDocument, WorkspaceLinter, document_kind, failure_line
from .lsp_noqa import noqa_edit
from .lsp_protocol import DslintProtocol, FrameReader, log_line, log_to_stderr_in_one_line, report_server_error
from .model import Applicability, UsageError
from .textpos import LineIndex

LOG = logging.getLogger(__name__)  # tracebacks at debug level; the editor gets one line
DEBOUNCE_SECONDS = 0.025  # after the last keystroke: coalesces a burst of typing; lints never overlap anyway
ENGINE_CODES = {engine.SYNTAX_ERROR, engine.UNREADABLE, engine.INTERNAL_ERROR}  # noqa does not apply to them
# Fix edits come from libcst, which costs 5-50 s per MB of Python here (less where the fix can be
# built on a window of the file): above this a quick fix or fix-all would hold the lint worker for
# many seconds, so a larger document gets diagnostics and "ignore" actions but no fix edits.
MAX_FIX_CHARS = 500_000


class DslintLanguageServer(LanguageServer):
    """The server with its linter, its debounce timer and what it last published."""

    def __init__(self):
        super().__init__("dslint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=DslintProtocol)
        self.linter = WorkspaceLinter()
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dslint-lint")
        self.published: dict[str, tuple] = {}  # uri -> (version, diagnostics) last sent
        self.shown_errors: set[str] = set()
        self._timer: Optional[asyncio.TimerHandle] = None
        self._dirty: Optional[set] = set()  # lint folders to redo; None = all
        self._running = False
        self._again = False
        self.too_large_said: dict[str, Optional[int]] = {}  # uri -> the version told it is too large to fix
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    def report_server_error(self, error: Exception, source) -> None:
        report_server_error(self, error, source)

    def fixable_size(self, uri: str, doc: OpenDocument) -> bool:
        """Is the document small enough to build fix edits for? (Said once per version when not.)"""
        if len(doc.text) <= MAX_FIX_CHARS:
            return True
        if uri not in self.too_large_said or self.too_large_said[uri] != doc.version:
            self.too_large_said[uri] = doc.version
            self.say(f"{doc.path} is too large for fix edits in the editor ({len(doc.text)} characters, "
                           f"the limit is {MAX_FIX_CHARS}): run `dslint fix` on it", types.MessageType.Warning)
        return False

    async def on_worker(self, func, *args):
        """`func(*args)` on the lint worker (a fix parses the document: it must not stall the connection)."""
        self._loop = asyncio.get_running_loop()
        return await self._loop.run_in_executor(self.executor, func, *args)

    def say(self, text: str, kind: types.MessageType = types.MessageType.Error) -> None:
        """One log line, also from the worker: sent from the event loop, so frames never interleave on stdout."""
        if self._loop is None or threading.current_thread() is threading.main_thread():
            log_line(self, text, kind)
        else:
            self._loop.call_soon_threadsafe(log_line, self, text, kind)

    # -- documents -------------------------------------------------------------------------

    def refresh_roots(self) -> None:
        roots = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if self.workspace.root_path:
            roots.append(self.workspace.root_path)
        self.linter.workspace_roots = tuple(os.path.realpath(r) for r in roots if r)

    def open_documents(self) -> dict[str, OpenDocument]:
        """uri -> snapshot of each open file: document dslint can lint."""
        docs = {}
        for uri, doc in list(self.workspace.text_documents.items()):
            if not uri.startswith("file:"):
                continue
            path = to_fs_path(uri)
            if not path:
                continue
            path = os.path.realpath(path)
            if document_kind(path, doc.language_id or "") is None:
                continue
            docs[uri] = OpenDocument(path=path, text=doc.source, version=doc.version, language_id=doc.language_id or "")
        return docs

    @property
    def encoding(self) -> str:
        return self.workspace.position_encoding or types.PositionEncodingKind.Utf16

    # -- scheduling ------------------------------------------------------------------------

    def request_lint(self, changed_path: Optional[str], delay: float) -> None:
        """Re-lint, after `delay`, every open document whose lint folder holds `changed_path` (all if None)."""
        if changed_path is None or self._dirty is None:
            self._dirty = None
        else:
            self._dirty.update(str(p) for p in Path(os.path.realpath(changed_path)).parents)
        loop = asyncio.get_running_loop()
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(delay, lambda: asyncio.ensure_future(self._lint_loop()))

    async def _lint_loop(self) -> None:
        if self._running:
            self._again = True
            return
        self._running = True
        try:
            while True:
                self._again = False
                targets, self._dirty = self._dirty, set()
                await self._lint_once(targets)
                if not self._again:
                    break
        finally:
            self._running = False

    async def _lint_once(self, targets: Optional[set]) -> None:
        docs = self.open_documents()
        self.refresh_roots()
        if not docs or targets == set():
            return
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        try:
            outcome = await loop.run_in_executor(self.executor, self.linter.lint, list(docs.values()), targets)
        except Exception as error:  # the server outlives any bug in a rule or the engine
            self.window_log_message(types.LogMessageParams(
                type=types.MessageType.Error, message=f"dslint: {failure_line('linting', error)}"))
            LOG.debug("lint failed", exc_info=True)
            return
        for trace in outcome.tracebacks:
            LOG.debug("lint failed:\n%s", trace)
        for message in outcome.errors:
            if message not in self.shown_errors:
                self.shown_errors.add(message)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"dslint: {message}"))
        by_path = {doc.path: (uri, doc) for uri, doc in docs.items()}
        for path, findings in outcome.findings.items():
            uri, doc = by_path[path]
            current = self.workspace.text_documents.get(uri)
            if current is None or current.version != doc.version:
                continue  # stale: the buffer changed while we linted; the next lint publishes
            lines = LineIndex(doc.text)
            diagnostics = [to_diagnostic(f, lines, self.encoding, doc.version, self._related(f, outcome.texts, docs))
                           for f in findings]
            self.publish(uri, doc.version, diagnostics)
        self.window_log_message(types.LogMessageParams(
            type=types.MessageType.Log,
            message=f"dslint: linted {len(outcome.findings)} open document(s) in {(time.perf_counter() - started) * 1000:.0f} ms"))

    def _related(self, finding, texts: dict, docs: dict) -> list:
        out = []
        by_path = {d.path: d.text for d in docs.values()}
        for path, span, note in finding.related:
            text = by_path.get(os.path.realpath(path)) or texts.get(path)
            if text is None:
                continue
            location = types.Location(uri=Path(os.path.realpath(path)).as_uri(),
                                      range=to_range(LineIndex(text), span.start, span.end, self.encoding))
            out.append(types.DiagnosticRelatedInformation(location=location, message=note))
        return out

    def publish(self, uri: str, version: Optional[int], diagnostics: list) -> None:
        self.published[uri] = (version, diagnostics)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diagnostics))

    # -- code actions ----------------------------------------------------------------------

    def quick_fixes_for(self, uri: str, doc: OpenDocument, diagnostics: list) -> list[types.CodeAction]:
        actions = []
        for diagnostic in diagnostics:
            try:
                actions.extend(self.quick_fixes(uri, doc, diagnostic))
            except Exception as error:  # a bug, or positions that fit no document: no action, the rest stay
                self.say(failure_line(f"building the quick fixes for {diagnostic.code}", error))
                LOG.debug("quick fix failed", exc_info=True)
        return actions

    def quick_fixes(self, uri: str, doc: OpenDocument, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
        data = diagnostic.data if isinstance(diagnostic.data, dict) else self._published_data(uri, diagnostic)
        fix = fix_from_data(data.get("fix"))
        kind = document_kind(doc.path, doc.language_id)
        lines = LineIndex(doc.text)
        actions = []
        if fix is not None and self.fixable_size(uri, doc):
            edits = build_edits(fix, doc.text)
            if edits:
                new_text, _ = apply_edits(doc.text, edits)
                if new_text != doc.text and parses(kind, new_text):
                    unsafe = fix.applicability == Applicability.UNSAFE
                    actions.append(types.CodeAction(
                        title=f"dslint ({diagnostic.code}): {fix.message}" + (" (unsafe fix)" if unsafe else ""),
                        kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], is_preferred=not unsafe,
                        edit=types.WorkspaceEdit(changes={uri: to_text_edits(edits, lines, self.encoding)})))
        if kind in ("python", "launch") and diagnostic.code not in ENGINE_CODES:
            rows = [diagnostic.range.start.line + 1, diagnostic.range.end.line + 1]
            edit = noqa_edit(doc.text, list(dict.fromkeys(rows)), str(diagnostic.code), kind)
            if edit is not None:
                actions.append(types.CodeAction(
                    title=f"dslint: ignore {diagnostic.code} on this line", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic], edit=types.WorkspaceEdit(changes={uri: to_text_edits([edit], lines, self.encoding)})))
        return actions

    def _published_data(self, uri: str, diagnostic: types.Diagnostic) -> dict:
        """`data` of the diagnostic we sent, for clients that do not send it back."""
        for sent in (self.published.get(uri) or (None, []))[1]:
            if sent.code == diagnostic.code and sent.range == diagnostic.range and isinstance(sent.data, dict):
                return sent.data
        return {}

    def fix_all_edit(self, uri: str) -> Optional[types.WorkspaceEdit]:
        docs = self.open_documents()
        doc = docs.get(uri)
        if doc is None or not self.fixable_size(uri, doc):
            return None
        try:
            new_text = self.linter.fix_all(doc, list(docs.values()))
        except UsageError:  # invalid settings: already shown to the user when the document was linted
            return None
        except Exception as error:  # a bug: no edit, and the server lives on
            self.say(failure_line("fixing all", error))
            LOG.debug("fix all failed", exc_info=True)
            return None
        if new_text is None:
            return None
        edits = diff_to_edit(doc.text, new_text) or []
        return types.WorkspaceEdit(changes={uri: to_text_edits(edits, LineIndex(doc.text), self.encoding)})


server = DslintLanguageServer()


def _path(uri: str) -> Optional[str]:
    return to_fs_path(uri) if uri.startswith("file:") else None


@server.feature(types.INITIALIZED)
async def initialized(ls: DslintLanguageServer, params: types.InitializedParams) -> None:
    """Ask to hear about files changed outside the editor (git checkout, a regenerated config)."""
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities else None
    if not (watched and watched.dynamic_registration):
        return
    watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in
                ("**/*.py", "**/*.json", "**/*.sh", "**/*.bash", "**/*.slurm", "**/*.sbatch", "**/pyproject.toml")]
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id="dslint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))
    except Exception as error:  # a client that refuses still gets diagnostics on open/change/save
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Log,
                                                     message=f"dslint: no file watching: {error!r}"))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: DslintLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.request_lint(_path(params.text_document.uri), 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: DslintLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.request_lint(_path(params.text_document.uri), DEBOUNCE_SECONDS)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: DslintLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path and Path(path).name == "pyproject.toml":
        ls.shown_errors.clear()  # settings may be fixed now: show a new error again
        ls.request_lint(None, 0)
    else:
        ls.request_lint(path, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: DslintLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.published.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    ls.request_lint(_path(uri), 0)  # the neighbours now see the file as it is on disk


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: DslintLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.shown_errors.clear()
    ls.request_lint(None, 0)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL_KIND],
    resolve_provider=True))
async def code_action(ls: DslintLanguageServer, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
    uri = params.text_document.uri
    doc = ls.open_documents().get(uri)
    if doc is None:
        return None
    only = params.context.only

    def wanted(kind: str) -> bool:
        return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)

    actions: list[types.CodeAction] = []
    ours = [d for d in params.context.diagnostics if d.source == SOURCE]
    if wanted(types.CodeActionKind.QuickFix) and ours:
        actions.extend(await ls.on_worker(ls.quick_fixes_for, uri, doc, ours))
    if wanted(FIX_ALL_KIND):
        title = "dslint: fix all auto-fixable problems"
        if only:  # asked for explicitly (e.g. on save): build the edit now
            edit = await ls.on_worker(ls.fix_all_edit, uri)
            if edit is not None:
                actions.append(types.CodeAction(title=title, kind=FIX_ALL_KIND, edit=edit))
        elif _has_safe_fix(ls.published.get(uri)) and len(doc.text) <= MAX_FIX_CHARS:  # the edit on resolve
            actions.append(types.CodeAction(title=title, kind=FIX_ALL_KIND, data={"uri": uri}))
    return actions


@server.feature(types.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: DslintLanguageServer, action: types.CodeAction) -> types.CodeAction:
    if action.kind == FIX_ALL_KIND and isinstance(action.data, dict) and action.edit is None:
        action.edit = await ls.on_worker(ls.fix_all_edit, action.data.get("uri", ""))
        if action.edit is None:
            action.edit = types.WorkspaceEdit(changes={})
    return action


def _has_safe_fix(published: Optional[tuple]) -> bool:
    if not published:
        return False
    for diagnostic in published[1]:
        fix = diagnostic.data.get("fix") if isinstance(diagnostic.data, dict) else None
        if fix and fix.get("applicability") == Applicability.SAFE.value:
            return True
    return False


def serve() -> None:
    """Serve on stdin/stdout until the client says exit (or closes stdin)."""
    log_to_stderr_in_one_line()
    server.start_io(stdin=FrameReader(sys.stdin.buffer))
