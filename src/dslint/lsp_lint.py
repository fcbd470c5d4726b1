"""Linting for the language server: unsaved buffers through the same engine as `dslint check`.

No pygls here, so the benchmark and unit tests can drive it directly. A document is linted
together with the other files of its folder (recursively, as `dslint check FOLDER` does), so the
cross-file rules see the DeepSpeed config and the launch script next to the training script.
Open documents are linted from their buffers (the engine's `overlay`); files on disk come from
an in-memory cache keyed by content, so a keystroke re-parses only the open documents.
"""
from __future__ import annotations

import os
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pathspec

from . import engine
from .model import Finding, UsageError
from .settings import DEFAULT_EXCLUDE, Settings, load_settings
from .sources.discover import kind_of
from .sources.ignore import pattern_style
from .sources.files import read_regular

MAX_CACHE_ENTRIES = 20000  # one per file; dropped wholesale past this


class MemoryCache(engine.ResultCache):
    """The engine's per-file result cache, kept in memory only (nothing written to the workspace)."""

    def __init__(self, settings: Settings):
        super().__init__(None, settings)
        self.entries: dict = {}
        self._key_of_file: dict[str, str] = {}

    def key(self, source) -> Optional[str]:
        # The file's size and modification time instead of a hash of its content: no file is read
        # on a keystroke unless it changed (the buffers being edited never come from the cache).
        stat = _stat(source.abspath)
        return None if stat is None else f"{source.abspath}\0{source.path}\0{stat}"

    def key_and_data(self, source):
        return self.key(source), None  # (the base class reads the file to hash it)

    def get(self, key):
        return self.entries.get(key) if key else None

    def put(self, key, result) -> None:
        if not key:
            return
        abspath = key.split("\0", 1)[0]
        old = self._key_of_file.get(abspath)
        if old is not None and old != key:
            self.entries.pop(old, None)  # one entry per file: edits do not grow the cache
        if len(self.entries) >= MAX_CACHE_ENTRIES:
            self.entries.clear()
            self._key_of_file.clear()
        self._key_of_file[abspath] = key
        self.entries[key] = result

    def save(self) -> None:
        pass


@dataclass
class OpenDocument:
    """What the server knows about one open buffer at the moment a lint starts."""

    path: str  # absolute, resolved
    text: str
    version: Optional[int] = None
    language_id: str = ""


@dataclass
class LintOutcome:
    """Findings per open document (absolute path), and what went wrong, if anything."""

    findings: dict[str, list[Finding]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # display path -> text of checked configs/launch files
    tracebacks: list[str] = field(default_factory=list)  # of the lints that failed: for the debug log only


def failure_line(what: str, error: BaseException) -> str:
    """One line for the editor about a bug (the traceback goes to the debug log only)."""
    detail = " ".join(str(error).split())[:200]
    return f"internal error while {what}: {type(error).__name__}{': ' + detail if detail else ''}; please report it"


def document_kind(path: str, language_id: str = "") -> Optional[str]:
    """python | dsconfig | launch for a document, from its file name, else from the editor's language id."""
    kind = kind_of(Path(path))
    if kind is not None:
        return kind
    return {"python": "python", "json": "dsconfig", "jsonc": "dsconfig",
            "shellscript": "launch", "sh": "launch", "bash": "launch", "makefile": "launch", "make": "launch"}.get(language_id)


class WorkspaceLinter:
    """Lints open documents in-process; keeps settings and per-file results between runs."""

    def __init__(self):
        self._caches: dict[str, MemoryCache] = {}
        self.workspace_roots: tuple = ()  # the editor's workspace folders (absolute, resolved)
        self._saved: dict[str, tuple] = {}  # path -> (version, file stat, length) of buffers equal to the file

    def overlay_of(self, documents: list[OpenDocument]) -> dict[str, str]:
        """The buffers that differ from their files. A saved buffer is read from disk instead,
        so its results come from the cache: a keystroke re-lints only what was edited."""
        overlay = {}
        for doc in documents:
            stat = _stat(doc.path)
            mark = (doc.version, stat, len(doc.text))
            if stat is not None and doc.version is not None and self._saved.get(doc.path) == mark:
                continue
            if stat is not None and _file_has_text(doc.path, doc.text):
                self._saved[doc.path] = mark
                continue
            self._saved.pop(doc.path, None)
            overlay[doc.path] = doc.text
        return overlay

    def settings_for(self, folder: Path) -> Settings:
        """`[tool.dslint]` from the nearest pyproject.toml that has it (UsageError when invalid)."""
        settings, _ = load_settings(folder, {})
        return settings

    def _cache(self, settings: Settings) -> MemoryCache:
        key = settings.fingerprint()
        if key not in self._caches:
            self._caches[key] = MemoryCache(settings)
        return self._caches[key]

    def lint(self, documents: list[OpenDocument], targets: Optional[set] = None) -> LintOutcome:
        """Findings for every open document whose lint folder is among `targets` (all when None)."""
        outcome = LintOutcome()
        overlay = self.overlay_of(documents)
        groups: dict[str, list[OpenDocument]] = {}
        for doc in documents:
            if document_kind(doc.path, doc.language_id) is None:
                continue
            folder = str(Path(doc.path).parent)
            if targets is None or folder in targets:
                groups.setdefault(folder, []).append(doc)
        for folder, docs in groups.items():
            try:
                settings = self.settings_for(Path(folder))
            except Exception as error:  # invalid settings, or a bug reading them: this folder only
                if isinstance(error, UsageError):
                    outcome.errors.append(str(error))
                else:  # (a pyproject.toml with a 5,000-digit integer: tomllib's ValueError)
                    outcome.errors.append(failure_line(f"reading the settings for {folder}", error))
                    outcome.tracebacks.append(traceback.format_exc())
                for doc in docs:
                    outcome.findings[doc.path] = []
                continue
            wanted = [d for d in docs if not is_excluded(d.path, folder_root(Path(folder), self.workspace_roots), settings)]
            for doc in docs:
                outcome.findings[doc.path] = []
            if not wanted:
                continue
            try:
                result = self._check_folder(Path(folder), wanted, settings, overlay)
            except Exception as error:  # a bug: one line for this folder, the other folders are still linted
                outcome.errors.append(failure_line(f"linting {folder}", error))
                outcome.tracebacks.append(traceback.format_exc())
                continue
            outcome.texts.update(result.texts)
            outcome.errors.extend(result.errors)
            # Only this folder's documents: one in a subfolder gets its diagnostics from its own
            # folder's lint (a parent folder's walk sees it too, and would report it twice).
            mine = {d.path for d in wanted}
            for finding in result.findings:
                path = finding.path if os.path.isabs(finding.path) else os.path.join(folder, finding.path)
                if path in mine:
                    outcome.findings[path].append(finding)
        return outcome

    def _check_folder(self, folder: Path, docs: list[OpenDocument], settings: Settings, overlay: dict) -> engine.CheckResult:
        # Open documents are named explicitly as well: a script whose name the folder walk
        # skips (no .py suffix, or .gitignored) is still linted when the user opens it.
        paths = _folder_paths(folder) + [d.path for d in docs]
        return engine.check(paths, settings, root=folder, use_cache=False, overlay=overlay,
                            cache=self._cache(settings))

    def fix_all(self, document: OpenDocument, documents: list[OpenDocument]) -> Optional[str]:
        """The document's text with every safe fix applied (None when nothing changes)."""
        folder = Path(document.path).parent
        settings = self.settings_for(folder)
        if is_excluded(document.path, folder_root(folder, self.workspace_roots), settings):
            return None
        overlay = {d.path: d.text for d in documents}
        overlay[document.path] = document.text
        outcome = engine.fix([str(folder), document.path], settings, unsafe=False, root=folder,
                             write=False, overlay=overlay)
        changed = outcome.changed.get(document.path)
        return changed[1] if changed and changed[1] != document.text else None


def _folder_paths(folder: Path) -> list[str]:
    """The folder to walk, or, for a home folder or a filesystem root, only the files directly in it:
    a script opened from ~ must not make every keystroke walk the whole home directory."""
    if folder in (Path.home(), Path.home().resolve()) or folder.parent == folder:
        try:
            return [str(p) for p in sorted(folder.iterdir()) if p.is_file() and kind_of(p) is not None]
        except OSError:
            return []
    return [str(folder)]


def _stat(path: str) -> Optional[tuple]:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def _file_has_text(path: str, text: str) -> bool:
    """Is the file on disk exactly this buffer (as the engine would read it)?"""
    try:
        data = read_regular(path)  # (an open document that is a FIFO must not block the lint thread)
    except OSError:
        return False
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data == text.encode("utf-8", "surrogatepass")


def folder_root(folder: Path, workspace_roots: tuple = ()) -> Path:
    """Where exclude patterns are anchored: the nearest folder with a pyproject.toml or .git,
    or the editor's workspace folder, whichever comes first on the way up."""
    for candidate in [folder, *folder.parents]:
        if str(candidate) in workspace_roots or (candidate / "pyproject.toml").is_file() or (candidate / ".git").exists():
            return candidate
    return folder


def is_excluded(path: str, root: Path, settings: Settings) -> bool:
    """Does `exclude` (or the defaults: .venv, site-packages, ...) cover `path` or a folder above it?

    An editor opens library sources too (go to definition into site-packages); those get no
    diagnostics, as `dslint check` would not walk into them.
    """
    spec = pathspec.PathSpec.from_lines(pattern_style(), DEFAULT_EXCLUDE + settings.exclude + settings.extend_exclude)
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        parts = Path(path).parts[1:]
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth]) + ("/" if depth < len(parts) else "")
        if spec.match_file(rel):
            return True
    return False
