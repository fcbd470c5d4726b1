"""Per-file results cached by content hash, the settings rules read and dslint's code (`.dslint_cache/`).

One sqlite3 row per file (stdlib, one file on disk, transactions: a run killed while saving
leaves the old rows or the new ones), read on demand for the files of this run. The key leaves
out select/ignore/per-file-ignores: every rule runs per file and the selection applies
afterwards, so another `--select` reads the same rows. Each row is one pickled FileResult (or
the setup phase's (findings, inputs)), unpickled with only dslint's and builtin types allowed
and checked for structure: anything else is a miss, never a crash. Rows not used for
`MAX_AGE_DAYS`, of files that no longer exist or of other dslint code are pruned, and the
whole is kept under `MAX_BYTES`.

A file's row also holds its small part (kind, findings, noqa; text only where it has findings)
apart from the summary, and the setup row the small parts of the results the project phase
replaced: a warm run whose rows all hit loads the small parts only (see pipeline.py).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import re
import sqlite3
import time
from pathlib import Path
from typing import Optional

from .. import __version__
from ..model import Finding
from ..settings import Settings
from ..sources.discover import SourceFile
from ..sources.files import read_regular
from ..writes import remove_stale_temps
from .results import FileResult

DB_NAME = "results.sqlite3"
MAX_AGE_DAYS = 30
MAX_BYTES = 512 * 1024 * 1024
SETUP_PREFIX = "\0setup\0"
IMPORTED_SUFFIX = "\0imported"  # the full check of a plain module a framework module imports (engine.project)
SETUP_ROWS = 16
SCHEMA_VERSION = 2  # PRAGMA user_version: a database of another layout is rebuilt
SUGGESTED = 1  # the row's DSL601 findings carry their did-you-mean (computed only while DSL601 runs)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, file TEXT NOT NULL, code TEXT NOT NULL, fp TEXT NOT NULL,
                                    used INTEGER NOT NULL, flags INTEGER NOT NULL, data BLOB NOT NULL, small BLOB);
CREATE INDEX IF NOT EXISTS entries_file ON entries (file);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


_LEGACY_CACHE_TEMP = re.compile(r"^tmp[a-z0-9_]{8}$")  # tempfile's names, used by earlier versions


class ResultCache:
    """The per-file results of earlier runs; `folder` None keeps nothing (a subclass may keep them in memory)."""

    def __init__(self, folder: Optional[Path], settings: Settings):
        self.path: Optional[Path] = None
        self.settings = settings
        self.dirty = False
        self._limit = settings.max_file_size_mb * 1024 * 1024
        self._code = f"{__version__}-{_code_fingerprint()}"
        self._facts = settings.cache_fingerprint()
        self._fingerprint = f"{self._code}-{self._facts}"
        self._suggesting = settings.is_enabled("DSL601")
        self._pending: dict = {}  # key -> (file, flags, value) to write
        self._touched: list = []  # keys read whose `used` day is older than today
        self._db: Optional[sqlite3.Connection] = None
        self.setup_row: Optional[tuple] = None  # (key, value) of the setup row read or written last
        self._unsmall: set = set()  # keys whose small part would not load: rewritten when read whole
        if folder is not None:
            self.path = folder / DB_NAME
            self._db = _open(self.path, create=False)

    def key(self, source: SourceFile) -> Optional[str]:
        return self.key_and_data(source)[0]

    def key_and_data(self, source: SourceFile) -> tuple[Optional[str], Optional[bytes]]:
        """The key and the bytes it hashes: a miss lints exactly these bytes, so a file edited
        meanwhile cannot store one content's results under another's key."""
        try:
            data = read_regular(source.abspath, self._limit)
        except OSError:
            return None, None
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        key = f"{source.abspath}\0{source.path}\0{digest}\0{self._fingerprint}"
        if not key.isascii() and not _storable(key):
            return None, data  # a name that is not valid UTF-8: sqlite cannot hold it, so it is not cached
        return key, data

    def get(self, key):
        if not key:
            return None
        if key in self._pending:
            return self._pending[key][2]
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT used, flags, data FROM entries WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:  # corrupt or locked past the timeout: a cold run
            return None
        if row is None:
            return None
        used, flags, data = row
        value = _load(data)
        if not valid_entry(key, value) or (self._suggesting and not flags & SUGGESTED):
            return None
        if used < _today():
            self._touched.append(key)
        if key.startswith(SETUP_PREFIX):
            self.setup_row = (key, value)
        elif key in self._unsmall:
            self.put(key, value)
        return value

    def get_small(self, keys: list) -> Optional[list]:
        """The small parts (kind, findings, noqa, file_noqa, text) under `keys`, in order; None
        when any of them misses (the caller then takes the normal path)."""
        if self._db is None or not keys or any(not key or key in self._pending for key in keys):
            return None
        rows: dict = {}
        try:
            for start in range(0, len(keys), 500):
                batch = keys[start:start + 500]
                rows.update((key, (used, flags, small)) for key, used, flags, small in self._db.execute(
                    f"SELECT key, used, flags, small FROM entries WHERE key IN ({','.join('?' * len(batch))})", batch))
        except sqlite3.Error:
            return None
        out, touched, today = [], [], _today()
        for key in keys:
            row = rows.get(key)
            if row is None or (self._suggesting and not row[1] & SUGGESTED):
                return None
            value = None if row[2] is None else _load(row[2])
            if not valid_small(value):
                self._unsmall.add(key)
                return None
            if row[0] < today:
                touched.append(key)
            out.append(value)
        self._touched += touched
        return out

    def put(self, key, result) -> None:
        if key and self.path is not None:
            file = "" if key.startswith(SETUP_PREFIX) else key.split("\0", 1)[0]
            if file and key.endswith(IMPORTED_SUFFIX):
                file += IMPORTED_SUFFIX  # (its own row: "one row per file" must not drop the plain one)
            if not file:
                self.setup_row = (key, result)
            # (the setup phase decides DSL601 candidates: their messages carry the did-you-mean too)
            unsuggested = not self._suggesting and (not file or isinstance(result, FileResult) and result.kind == "dsconfig")
            self._pending[key] = (file, 0 if unsuggested else SUGGESTED, result)
            self.dirty = True

    def save(self) -> None:
        """Write the new rows and mark the used ones; prune once a day. Never fails a check."""
        if self.path is None:
            return
        due = self._db is None or _meta(self._db, "pruned") < _today()
        if not (self.dirty or self._touched or due):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            (self.path.parent / ".gitignore").write_text("*\n")
            remove_stale_temps(str(self.path.parent), legacy=_LEGACY_CACHE_TEMP)
            for legacy in self.path.parent.glob("results-*.pickle"):  # the whole-cache pickles of earlier versions
                with contextlib.suppress(OSError):
                    legacy.unlink()
            db = self._db if self._db is not None and _healthy(self._db) else _recreate(self.path, self._db)
            if db is None:
                return
            self._db = db
            with db:  # one transaction: committed whole or not at all
                db.execute("BEGIN IMMEDIATE")
                self._write(db)
                prune(db, self._code, files=due)
            db.executescript("PRAGMA incremental_vacuum;")  # (as a script: a plain execute frees one page)
        except (OSError, sqlite3.Error):
            pass  # caching is an optimisation (a locked or read-only cache included)
        finally:
            self._pending.clear()
            self._touched.clear()
            self.dirty = False

    def _write(self, db: sqlite3.Connection) -> None:
        today = _today()
        rows = ((key, file, self._code, self._facts, today, flags, data, _dump(small_part(value)) if file else None)
                for key, (file, flags, value) in self._pending.items() if (data := _dump(value)) is not None)
        db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        # One row per file and settings: an edited file's old row goes.
        db.executemany("DELETE FROM entries WHERE file = ? AND fp = ? AND key <> ?",
                       ((file, self._facts, key) for key, (file, _, _) in self._pending.items() if file))
        db.executemany("UPDATE entries SET used = ? WHERE key = ?", ((today, key) for key in self._touched))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def prune(db: sqlite3.Connection, code: str, files: bool = True) -> None:
    """Drop rows of other dslint code or not used for MAX_AGE_DAYS, with `files` (once a day: a
    stat each) those of files gone, then the least recently used past MAX_BYTES."""
    today = _today()
    db.execute("DELETE FROM entries WHERE code <> ? OR used < ?", (code, today - MAX_AGE_DAYS))
    if files:
        gone = [(f,) for (f,) in db.execute("SELECT DISTINCT file FROM entries WHERE file <> ''") if not os.path.exists(f)]
        db.executemany("DELETE FROM entries WHERE file = ?", gone)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('pruned', ?)", (today,))
    # setup rows: one per set of files checked together; the most recent few serve
    db.execute("DELETE FROM entries WHERE file = '' AND rowid NOT IN "
               "(SELECT rowid FROM entries WHERE file = '' ORDER BY used DESC, rowid DESC LIMIT ?)", (SETUP_ROWS,))
    total = db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM entries").fetchone()[0]
    if total > MAX_BYTES:
        over = total - MAX_BYTES
        drop, freed = [], 0
        for key, size in db.execute("SELECT key, LENGTH(data) FROM entries ORDER BY used, key"):
            if freed >= over:
                break
            drop.append((key,))
            freed += size
        db.executemany("DELETE FROM entries WHERE key = ?", drop)


def small_part(result: FileResult) -> tuple:
    """What a warm run needs of a file's result: no summary, and its text only where it has findings
    (the reporter reads any other file it shows from disk, the same bytes as the key hashed)."""
    text = result.text if any(f.path == result.source.path for f in result.findings) else None
    return (result.kind, result.findings, result.noqa, result.file_noqa, text)


def valid_small(value) -> bool:
    return (isinstance(value, tuple) and len(value) == 5 and isinstance(value[0], str) and isinstance(value[1], list)
            and all(isinstance(f, Finding) for f in value[1]) and isinstance(value[2], dict)
            and (value[3] is True or value[3] is False or isinstance(value[3], frozenset))
            and (value[4] is None or isinstance(value[4], str)))


def _storable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def setup_key(root: Path, keys: list) -> str:
    """The setup row's key: the root and every result's key, in order (None: a file not cached)."""
    digest = hashlib.blake2b(os.fsencode(str(root)), digest_size=16)
    for key in keys:
        digest.update((key or f"uncached:{os.urandom(8).hex()}").encode("utf-8", "surrogateescape"))  # (never the same row twice)
    return f"{SETUP_PREFIX}{digest.hexdigest()}"


def valid_entry(key: str, value) -> bool:
    """Is this what `put` stores under `key`: a FileResult, or the setup phase's (findings, inputs)
    and, once the run is complete, (index -> small part of each result the project phase replaced)?"""
    if key.startswith(SETUP_PREFIX):
        return (isinstance(value, tuple) and len(value) in (2, 3) and isinstance(value[0], list)
                and isinstance(value[1], dict) and all(isinstance(f, Finding) for f in value[0])
                and (len(value) == 2 or isinstance(value[2], dict)
                     and all(isinstance(i, int) and valid_small(v) for i, v in value[2].items())))
    return (isinstance(value, FileResult) and isinstance(value.source, SourceFile) and isinstance(value.kind, str)
            and isinstance(value.findings, list) and all(isinstance(f, Finding) for f in value.findings)
            and isinstance(value.noqa, dict))


class _Unpickler(pickle.Unpickler):
    """Only dslint's own types and plain builtins: a planted or foreign pickle is a miss, not code run."""

    def find_class(self, module, name):
        if module.split(".", 1)[0] in ("dslint", "builtins", "collections", "copyreg", "pathlib", "enum", "_codecs"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the cache")


def _dump(value) -> Optional[bytes]:
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # RecursionError on a very deep summary, an unpicklable value: not cached
        return None


def _load(data):
    try:
        return _Unpickler(io.BytesIO(data)).load()
    except Exception:  # truncated, foreign or from other code: a miss
        return None


def _open(path: Path, create: bool) -> Optional[sqlite3.Connection]:
    if not create and not path.exists():
        return None
    try:
        db = sqlite3.connect(str(path), timeout=10, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # (takes effect on a new database only)
        db.execute("PRAGMA synchronous = NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:  # new (maybe being created by a concurrent run: the script is idempotent)
            db.executescript(_SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};")
        elif version != SCHEMA_VERSION:
            db.close()
            return None  # another layout: rebuilt by `_recreate` when saving
        return db
    except sqlite3.Error:  # not a database, or locked past the timeout
        with contextlib.suppress(Exception):
            db.close()
        return None


def _healthy(db: sqlite3.Connection) -> bool:
    try:
        db.execute("SELECT 1 FROM entries LIMIT 1").fetchall()
        return True
    except sqlite3.Error:
        return False


def _recreate(path: Path, old: Optional[sqlite3.Connection]) -> Optional[sqlite3.Connection]:
    """A fresh database in place of a missing or corrupt one."""
    if old is not None:
        with contextlib.suppress(sqlite3.Error):
            old.close()
    if path.exists() and (db := _open(path, create=False)) is not None:
        return db  # another run created it meanwhile
    if path.exists() and not _unusable(path):
        return None  # locked by another run past the timeout: this run does not save
    for suffix in ("", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
    return _open(path, create=True)


def _unusable(path: Path) -> bool:
    """Not a database, or one of another layout (a locked one is neither)."""
    try:
        with contextlib.closing(sqlite3.connect(str(path), timeout=10)) as db:
            return db.execute("PRAGMA user_version").fetchone()[0] not in (0, SCHEMA_VERSION)
    except sqlite3.OperationalError:
        return False
    except sqlite3.DatabaseError:
        return True


def _meta(db: sqlite3.Connection, name: str) -> int:
    try:
        row = db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
    except sqlite3.Error:
        return -1
    return row[0] if row and isinstance(row[0], int) else -1


def _today() -> int:
    return int(time.time() // 86400)


def _code_fingerprint() -> str:
    """Changes whenever dslint's own code changes (a development install keeps one version)."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.blake2b(digest_size=6)
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_mtime_ns}:{stat.st_size};".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()
