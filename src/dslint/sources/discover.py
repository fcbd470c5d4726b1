"""Finding the files to check: folders walked with .gitignore and `exclude` respected."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pathspec

from ..settings import DEFAULT_EXCLUDE, Settings

def _pattern_style() -> str:
    """pathspec >= 0.12.? renamed "gitwildmatch" to "gitignore"; accept both versions."""
    try:
        pathspec.PathSpec.from_lines("gitignore", [])
        return "gitignore"
    except (KeyError, LookupError):
        return "gitwildmatch"


_PATTERN_STYLE = _pattern_style()


class IgnoreSpec:
    """gitignore-style patterns; one combined regex when no pattern negates (`!x`), which is the
    common case and makes each match one regex call instead of one per pattern."""

    def __init__(self, lines: list[str]):
        self.spec = pathspec.PathSpec.from_lines(_PATTERN_STYLE, lines)
        self.combined = None
        patterns = [p for p in self.spec.patterns if getattr(p, "include", None) is not None]
        if all(p.include for p in patterns) and all(getattr(p, "regex", None) is not None for p in patterns):
            try:
                self.combined = re.compile("|".join(f"(?:{p.regex.pattern})" for p in patterns) or r"(?!)")
            except re.error:  # e.g. named groups repeated across patterns in some pathspec versions
                self.combined = None

    def match_file(self, path: str) -> bool:
        if self.combined is not None:
            return self.combined.match(path) is not None
        return self.spec.match_file(path)

LAUNCH_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch")
LAUNCH_NAMES = ("Makefile", "makefile", "GNUmakefile")


@dataclass(frozen=True)
class SourceFile:
    path: str  # as shown to the user: relative when the user's path was relative
    abspath: str
    kind: str  # python | dsconfig | launch


def kind_of(path: Path) -> Optional[str]:
    return _kind_of_name(path.name)


def _kind_of_name(name: str) -> Optional[str]:
    if name.endswith(".py"):
        return "python"
    if name.endswith(".json"):
        return "dsconfig"  # confirmed only after parsing: other JSON files are skipped
    if name.endswith(LAUNCH_SUFFIXES) or name in LAUNCH_NAMES or name.endswith(".mk"):
        return "launch"
    return None


def _display(path: Path, given: str) -> str:
    return str(path) if os.path.isabs(given) else os.path.normpath(str(path))


def discover(paths: list[str], settings: Settings, root: Path) -> tuple[list[SourceFile], list[str]]:
    """Files to check under `paths`, and one error line for each path that does not exist."""
    user_patterns = settings.exclude + settings.extend_exclude
    excludes = IgnoreSpec(user_patterns) if user_patterns else None
    files: list[SourceFile] = []
    errors: list[str] = []
    seen: set[str] = set()
    for given in paths:
        path = Path(given)
        if not path.exists():
            errors.append(f"{given}: no such file or directory")
            continue
        if path.is_file():
            kind = kind_of(path) or "python"  # a file named explicitly is checked whatever its name
            abspath = str(path.resolve())
            if abspath not in seen:
                seen.add(abspath)
                files.append(SourceFile(_display(path, given), abspath, kind))
            continue
        for file_path, abspath in _walk(path, excludes, str(root.resolve()), settings.respect_gitignore):
            if abspath not in seen:
                seen.add(abspath)
                files.append(SourceFile(_display(file_path, given), abspath, _kind_of_name(file_path.name)))
    return files, errors


_DEFAULT_NAMES = frozenset(p for p in DEFAULT_EXCLUDE if "*" not in p)
_DEFAULT_SUFFIXES = tuple(p[1:] for p in DEFAULT_EXCLUDE if p.startswith("*"))


def _excluded_by_default(name: str) -> bool:
    return name in _DEFAULT_NAMES or name.endswith(_DEFAULT_SUFFIXES)


def _walk(top: Path, excludes: Optional[IgnoreSpec], root: str, use_gitignore: bool):
    """os.walk, pruned by the default excludes, `exclude` and the .gitignore files on the way.

    Yields (path as walked, absolute path). A .gitignore applies to its own folder and below,
    never to sibling folders; a repository root (a folder with .git) drops the ones above it.
    """
    top_abs = str(top.resolve())
    base: list[tuple[str, IgnoreSpec]] = []
    if use_gitignore:
        for folder in reversed([Path(top_abs), *Path(top_abs).parents]):
            if (folder / ".git").exists():
                base = []
            spec = _gitignore(folder)
            if spec is not None:
                base.append((str(folder), spec))
    inherited: dict[str, list] = {top_abs: base}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        here_abs = os.path.normpath(os.path.join(top_abs, os.path.relpath(dirpath, top)))
        specs = inherited.pop(here_abs, base)
        if use_gitignore and here_abs != top_abs:
            own = _gitignore(Path(here_abs))
            if own is not None:
                specs = specs + [(here_abs, own)]

        def ignored(name: str, is_dir: bool) -> bool:
            full = here_abs + os.sep + name
            suffix = "/" if is_dir else ""
            if excludes is not None:
                rel_root = full[len(root) + 1:] if full.startswith(root + os.sep) else name
                if excludes.match_file(rel_root.replace(os.sep, "/") + suffix) or excludes.match_file(name + suffix):
                    return True
            for folder, spec in specs:
                rel = full[len(folder) + 1:].replace(os.sep, "/")
                if spec.match_file(rel + suffix):
                    return True
            return False

        kept = []
        for d in sorted(dirnames):
            if not _excluded_by_default(d) and not ignored(d, True):
                kept.append(d)
                inherited[here_abs + os.sep + d] = specs
        dirnames[:] = kept
        for name in sorted(filenames):
            # only the files dslint reads are matched against the patterns (most are not: data, images)
            if _kind_of_name(name) is not None and not ignored(name, False):
                yield Path(dirpath) / name, here_abs + os.sep + name


_GITIGNORE_CACHE: dict[Path, Optional[IgnoreSpec]] = {}


def _gitignore(folder: Path) -> Optional[IgnoreSpec]:
    if folder not in _GITIGNORE_CACHE:
        spec = None
        file = folder / ".gitignore"
        if file.is_file():
            try:
                spec = IgnoreSpec(file.read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                spec = None
        _GITIGNORE_CACHE[folder] = spec
    return _GITIGNORE_CACHE[folder]
