"""The fix loop: apply non-overlapping edits, re-check, repeat to a fixed point (bounded), then
write each file atomically, only over the bytes that were read.

The first pass is a normal cold check that also builds the fixes' edits (in the workers); a later
pass re-checks only the files it changed, reusing the others' results, and then the whole
project phase, so a fix is still judged against the whole setup."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..fixes import apply_edits, edits_or_reason, parses
from ..model import Applicability, Finding
from ..settings import Settings
from ..sources.discover import SourceFile
from ..sources.files import encode_text, read_regular, read_snapshot
from ..writes import Skipped, remove_stale_temps, replace_if_unchanged
from .checkers import kind_for, read_text
from .pipeline import check
from .results import CheckResult

MAX_FIX_PASSES = 8



@dataclass
class FixOutcome:
    changed: dict  # abspath -> (old text, new text)
    applied: int
    dropped: list[str]  # one line per fix that would have broken its file
    remaining: CheckResult  # its `errors` include the files that could not be written
    skipped: list[str] = field(default_factory=list)  # "skipped PATH: why", one line per file left alone



class _Unchanged:
    """Each file's result by content, kept through one `fix`: a later pass (and the final check)
    re-checks only the files whose text changed and reuses the others' results; the project
    phase always sees every file. Not on disk (`path` is None), so the setup phase runs anew."""

    path = None

    def __init__(self, settings: Settings):
        self.entries: dict = {}
        self._limit = settings.max_file_size_mb * 1024 * 1024

    def key(self, source: SourceFile) -> Optional[str]:
        return self.key_and_data(source)[0]

    def key_and_data(self, source: SourceFile) -> tuple[Optional[str], Optional[bytes]]:
        try:
            data = read_regular(source.abspath, self._limit)
        except OSError:
            return None, None
        return f"{source.abspath}\0{source.path}\0{hashlib.blake2b(data, digest_size=16).hexdigest()}", data

    def get(self, key):
        return self.entries.get(key) if key else None

    def put(self, key, result) -> None:
        if key:
            self.entries[key] = result

    def save(self) -> None:
        pass

    def close(self) -> None:
        pass



def _fixable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.applicability == Applicability.SAFE)



def fix(paths: list[str], settings: Settings, *, unsafe: bool = False, root: Optional[Path] = None,
        write: bool = True, overlay: Optional[dict] = None) -> FixOutcome:
    """Apply fixes, re-check, repeat to a fixed point (bounded). Writes only when `write`.

    Files are keyed by their real path: a symlink is fixed through its target only when the
    target lies inside `paths` (and then once), and a file is written only if it still holds
    the bytes that were read.
    """
    root = root or Path.cwd()
    texts: dict[str, str] = dict(overlay or {})
    originals: dict[str, str] = {}
    snapshots: dict = {}  # real path -> Snapshot of the bytes the fixes were built on
    shown: dict[str, str] = {}  # real path -> the display path that fixes it
    counts: dict[str, int] = {}
    skipped: list[str] = []
    skipped_links: set = set()
    roots = _given_roots(paths)
    applied = 0
    dropped: list[str] = []
    refused: set = set()
    unchanged = _Unchanged(settings)
    wanted = True if unsafe else "safe"
    result, settled = None, False
    for _ in range(MAX_FIX_PASSES):
        result = check(paths, settings, root=root, use_cache=False, overlay=texts or None, cache=unchanged, edits=wanted)
        by_file: dict[str, list[Finding]] = {}
        for finding in result.findings:
            if _fixable(finding, unsafe):
                by_file.setdefault(finding.path, []).append(finding)
        progress = False
        for path, findings in sorted(by_file.items(), key=lambda item: os.path.islink(item[0])):
            abspath = os.path.realpath(path)
            if shown.setdefault(abspath, path) != path:
                continue  # the same file under another name (a symlink to it): fixed once
            if not _inside(abspath, roots):
                if path not in skipped_links:
                    skipped_links.add(path)
                    skipped.append(f"skipped {path}: symlink to outside the given paths ({abspath})")
                continue
            kind = kind_for(path)
            current = texts.get(abspath)
            if current is None:
                source = SourceFile(path, abspath, kind)
                try:
                    snapshot = read_snapshot(abspath, settings.max_file_size_mb * 1024 * 1024)
                except OSError:
                    continue  # (check reported it)
                current, error, _ = read_text(source, settings, None, snapshot.data)
                if current is None:
                    continue
                if kind == "dsconfig" and not parses(kind, current):
                    continue  # hjson-style configs are reported, never rewritten
                snapshots[abspath] = snapshot
            edits = []
            for finding in findings:
                key = (abspath, finding.code, finding.span.start, finding.fix.message)
                if key in refused:
                    continue
                built, why = edits_or_reason(finding, current)  # (built with the check, on this text)
                if not built:
                    refused.add(key)
                    if why:
                        dropped.append(f"{path}:{finding.span.start.row}:{finding.span.start.column}: {finding.code} "
                                       f"fix dropped: {why}")
                    continue
                candidate, _ = apply_edits(current, built)
                if not parses(kind, candidate):
                    refused.add(key)
                    dropped.append(f"{path}:{finding.span.start.row}:{finding.span.start.column}: {finding.code} fix dropped: "
                                   f"the result would not parse")
                    continue
                edits.extend(built)
            if not edits:
                continue
            new_text, count = apply_edits(current, edits)
            if new_text == current or not parses(kind, new_text):
                continue
            originals.setdefault(abspath, current)
            texts[abspath] = new_text
            # a symlink fixed through its target: the next pass reads it under its own name too
            texts[os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))] = new_text
            applied += count
            counts[abspath] = counts.get(abspath, 0) + count
            progress = True
        if not progress:
            settled = True
            break
    changed = {p: (originals[p], texts[p]) for p in originals if originals[p] != texts[p]}
    errors: list[str] = []
    if write:
        for folder in sorted({os.path.dirname(p) for p in changed}):
            remove_stale_temps(folder)  # left by a run that was killed while writing
        for abspath, (_, new_text) in list(changed.items()):
            try:
                _write_fixed(abspath, new_text, snapshots.get(abspath))
                continue
            except Skipped as why:
                skipped.append(f"skipped {shown.get(abspath, abspath)}: {why}")
            except OSError as error:
                errors.append(f"cannot write {shown.get(abspath, abspath)}: {error.strerror or error}")
            del changed[abspath]
            applied -= counts.get(abspath, 0)
    if settled and not originals and not overlay:
        remaining = result  # no fix was applied: that check read what is on disk
    elif settled and not write:
        remaining = result  # that check saw the fixed texts
    else:
        remaining = check(paths, settings, root=root, use_cache=False, overlay=None if write else (texts or None),
                          cache=unchanged)
    remaining.errors.extend(errors)
    return FixOutcome(changed=changed, applied=applied, dropped=dropped, remaining=remaining,
                      skipped=skipped + remaining.skipped)



def _given_roots(paths: list[str]) -> list[str]:
    """Where `fix` may write: each folder given (real path), each file given as named (its
    folder's real path and its own name, so a symlink named on the command line is not its target)."""
    roots = []
    for path in paths:
        if os.path.isdir(path):
            roots.append(os.path.realpath(path))
        else:
            roots.append(os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path)))
    return roots



def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)



def _write_fixed(abspath: str, text: str, before) -> None:
    """Write the fixed text over the file if it still holds the bytes `before` (a Snapshot)
    read; keeps its BOM, mode and owner. Raises Skipped or OSError (see writes.py)."""
    if before is None:  # the text came from the caller's overlay: compare with the file as it is now
        before = read_snapshot(abspath)
    replace_if_unchanged(abspath, encode_text(text, before.data, abspath.endswith(".py")), before)



def write_atomic(abspath: str, text: str) -> None:
    """Write via a temporary file and rename, keeping the file's mode, owner and BOM."""
    _write_fixed(abspath, text, None)
