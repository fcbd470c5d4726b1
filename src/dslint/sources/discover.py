"""Finding the files to check: folders walked with .gitignore and `exclude` respected."""
from __future__ import annotations

import os
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
    excludes = pathspec.PathSpec.from_lines(_PATTERN_STYLE, DEFAULT_EXCLUDE + settings.exclude + settings.extend_exclude)
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
        for file_path in _walk(path, excludes, root, settings.respect_gitignore):
            kind = kind_of(file_path)
            if kind is None:
                continue
            abspath = str(file_path.resolve())
            if abspath not in seen:
                seen.add(abspath)
                files.append(SourceFile(_display(file_path, given), abspath, kind))
    return files, errors


def _walk(top: Path, excludes: pathspec.PathSpec, root: Path, use_gitignore: bool):
    """os.walk with pruning by the exclude patterns and the .gitignore files on the way."""
    top_abs = top.resolve()
    ignores: list[tuple[Path, pathspec.PathSpec]] = []
    if use_gitignore:
        for folder in reversed([top_abs, *top_abs.parents]):
            spec = _gitignore(folder)
            if spec is not None:
                ignores.append((folder, spec))
            if (folder / ".git").exists() and folder != top_abs:
                ignores = [(f, s) for f, s in ignores if f == folder or folder in f.parents]
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        here = Path(dirpath)
        here_abs = here.resolve()
        local = list(ignores)
        if use_gitignore and here_abs != top_abs:
            spec = _gitignore(here_abs)
            if spec is not None:
                ignores.append((here_abs, spec))
                local.append((here_abs, spec))
        elif use_gitignore and here_abs == top_abs:
            pass

        def ignored(name: str, is_dir: bool) -> bool:
            rel_root = _relative(here_abs / name, root)
            candidate = rel_root + ("/" if is_dir else "")
            if excludes.match_file(candidate) or excludes.match_file(name + ("/" if is_dir else "")):
                return True
            for folder, spec in local:
                rel = _relative(here_abs / name, folder)
                if rel and spec.match_file(rel + ("/" if is_dir else "")):
                    return True
            return False

        dirnames[:] = sorted(d for d in dirnames if not ignored(d, True))
        for name in sorted(filenames):
            # only the files dslint reads are matched against the patterns (most are not: data, images)
            if _kind_of_name(name) is not None and not ignored(name, False):
                yield here / name


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.name


_GITIGNORE_CACHE: dict[Path, Optional[pathspec.PathSpec]] = {}


def _gitignore(folder: Path) -> Optional[pathspec.PathSpec]:
    if folder not in _GITIGNORE_CACHE:
        spec = None
        file = folder / ".gitignore"
        if file.is_file():
            try:
                spec = pathspec.PathSpec.from_lines(_PATTERN_STYLE, file.read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                spec = None
        _GITIGNORE_CACHE[folder] = spec
    return _GITIGNORE_CACHE[folder]
