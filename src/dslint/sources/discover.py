"""Finding the files to check: folders walked with .gitignore and `exclude` respected."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..settings import DEFAULT_EXCLUDE, Settings
from .files import is_regular
from .ignore import IgnoreSpec

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


def _markdown_kind(display: str, abspath: str) -> Optional[str]:
    """README*.md and docs/**/*.md are launch files when a fenced shell block starts a launcher."""
    from .launch.markdown import is_markdown_launch_path, read_if_launch

    return "launch" if is_markdown_launch_path(display) and read_if_launch(abspath) else None


def _display(path: Path, given: str) -> str:
    return str(path) if os.path.isabs(given) else os.path.normpath(str(path))


def discover(paths: list[str], settings: Settings, root: Path,
             skipped: Optional[list] = None) -> tuple[list[SourceFile], list[str]]:
    """Files to check under `paths`, and one error line for each path that does not exist.

    Only regular files are read (a FIFO would block the read forever): anything else, and a
    folder that cannot be listed, gets one "skipped PATH: why" line in `skipped`.
    """
    skipped = skipped if skipped is not None else []
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
        if not path.is_dir() and not is_regular(given):
            skipped.append(f"skipped {given}: not a regular file")
            continue
        if path.is_file():
            # a file named explicitly is checked whatever its name (Markdown: its shell blocks)
            kind = kind_of(path) or ("launch" if path.name.lower().endswith(".md") else "python")
            abspath = str(path.resolve())
            if abspath not in seen:
                seen.add(abspath)
                files.append(SourceFile(_display(path, given), abspath, kind))
            continue
        for file_path, abspath in _walk(path, excludes, str(root.resolve()), settings.respect_gitignore, skipped, given):
            if not is_regular(abspath):
                skipped.append(f"skipped {_display(file_path, given)}: not a regular file")
                continue
            kind = _kind_of_name(file_path.name) or _markdown_kind(_display(file_path, given), abspath)
            if kind is not None and abspath not in seen:
                seen.add(abspath)
                files.append(SourceFile(_display(file_path, given), abspath, kind))
    return files, errors


_DEFAULT_NAMES = frozenset(p for p in DEFAULT_EXCLUDE if "*" not in p)
_DEFAULT_SUFFIXES = tuple(p[1:] for p in DEFAULT_EXCLUDE if p.startswith("*"))


def _excluded_by_default(name: str) -> bool:
    return name in _DEFAULT_NAMES or name.endswith(_DEFAULT_SUFFIXES)


def _walk(top: Path, excludes: Optional[IgnoreSpec], root: str, use_gitignore: bool,
          skipped: Optional[list] = None, given: str = ""):
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

    def unreadable(error: OSError) -> None:
        if skipped is not None:
            where = _display(Path(error.filename), given) if error.filename else given
            skipped.append(f"skipped {where}: cannot read the folder ({error.strerror or error})")

    for dirpath, dirnames, filenames in os.walk(top, followlinks=False, onerror=unreadable):
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
            if (_kind_of_name(name) is not None or name.endswith(".md")) and not ignored(name, False):
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
