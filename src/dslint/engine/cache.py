"""Per-file results cached by content hash, settings and dslint version (`.dslint_cache/`)."""
from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import re
from pathlib import Path
from typing import Optional

from .. import __version__
from ..model import Finding
from ..settings import Settings
from ..sources.discover import SourceFile
from ..sources.files import read_regular
from ..writes import remove_stale_temps, temp_path_for
from .parallel import gc_paused
from .results import FileResult


class ResultCache:
    """Per-file results keyed by content hash, settings and dslint version, in one pickle."""

    def __init__(self, folder: Optional[Path], settings: Settings):
        self.path = None
        self.entries: dict = {}
        self._by_file: dict = {}
        self.dirty = False
        if folder is None:
            return
        self.path = folder / f"results-{__version__}-{_code_fingerprint()}-{settings.fingerprint()}.pickle"
        self._limit = settings.max_file_size_mb * 1024 * 1024
        try:
            with open(self.path, "rb") as handle, gc_paused():
                self.entries = pickle.load(handle)
        except Exception:  # a missing or corrupt cache is just a cold run
            self.entries = {}
        if not valid_entries(self.entries):  # it unpickled, but into something else: corrupt too
            self.entries = {}
        self._by_file = {k.split("\0", 1)[0]: k for k in self.entries}

    def key(self, source: SourceFile) -> Optional[str]:
        return self.key_and_data(source)[0]

    def key_and_data(self, source: SourceFile) -> tuple[Optional[str], Optional[bytes]]:
        """The key and the bytes it hashes: a miss lints exactly these bytes, so a file edited
        meanwhile cannot store one content's results under another's key."""
        try:
            data = read_regular(source.abspath, self._limit)
        except OSError:
            return None, None
        return f"{source.abspath}\0{source.path}\0{hashlib.blake2b(data, digest_size=16).hexdigest()}", data

    def get(self, key):
        return self.entries.get(key) if key else None

    def put(self, key, result: FileResult) -> None:
        if key and self.path is not None:
            abspath = key.split("\0", 1)[0]
            old = self._by_file.get(abspath)
            if old is not None and old != key:
                self.entries.pop(old, None)  # one entry per file: the cache does not grow with edits
            self._by_file[abspath] = key
            self.entries[key] = result
            self.dirty = True

    def save(self) -> None:
        if not self.dirty or self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            (self.path.parent / ".gitignore").write_text("*\n")
            remove_stale_temps(str(self.path.parent), legacy=_LEGACY_CACHE_TEMP)
            tmp = temp_path_for(str(self.path))
            try:
                with open(tmp, "xb") as handle:
                    pickle.dump(self.entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, pickle.PicklingError):
            pass  # caching is an optimisation; never fail a check because of it



_LEGACY_CACHE_TEMP = re.compile(r"^tmp[a-z0-9_]{8}$")  # tempfile's names, used by earlier versions



def valid_entries(entries) -> bool:
    """Is this what `save` writes: {key: FileResult} plus the setup phase's (findings, inputs)?"""
    if not isinstance(entries, dict):
        return False
    for key, value in entries.items():
        if not isinstance(key, str):
            return False
        if key.startswith("\0setup\0"):
            if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], list)
                    and isinstance(value[1], dict) and all(isinstance(f, Finding) for f in value[0])):
                return False
        elif not (isinstance(value, FileResult) and isinstance(value.source, SourceFile) and isinstance(value.kind, str)
                  and isinstance(value.findings, list) and all(isinstance(f, Finding) for f in value.findings)
                  and isinstance(value.noqa, dict)):
            return False
    return True



def _code_fingerprint() -> str:
    """Changes whenever dslint's own code changes (a development install keeps one version)."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=6)
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_mtime_ns}:{stat.st_size};".encode())
    return digest.hexdigest()
