"""What one `check` or `fix` covers: the paths given, grouped by the settings that apply to
each file (its nearest `[tool.dslint]`, as ruff looks them up), and a line for each path that
gives nothing to check. The engine then runs once per group.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .settings import Settings, SettingsResolver


@dataclass
class Plan:
    groups: list[tuple[Settings, list[str]]] = field(default_factory=list)  # settings, paths for the engine
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # walked entries that are not regular files
    discovered: dict = field(default_factory=dict)  # folder kept whole -> (files, skipped): walked once per run


def plan(paths: list[str], resolver: SettingsResolver) -> Plan:
    """Group `paths` by settings. A folder whose files all share its settings stays one path
    (the engine walks it); one that holds a project with its own table is split into files."""
    from .sources.discover import discover

    result = Plan()
    by_settings: dict[int, tuple[Settings, list[str]]] = {}

    def add(settings: Settings, path: str) -> None:
        by_settings.setdefault(id(settings), (settings, []))[1].append(path)

    for given in paths:
        path = Path(given)
        if not path.exists():
            result.errors.append(f"{given}: no such file or directory")
        elif path.is_file():
            if lintable(path):
                add(resolver.for_folder(path.resolve().parent), given)
            else:
                result.warnings.append(f"{given}: not a file dslint checks (Python, JSON, shell, Slurm or "
                                       f"Makefile); skipped")
        elif path.is_dir():
            settings = resolver.for_folder(path.resolve())
            skipped: list[str] = []
            files, _ = discover([given], settings, Path.cwd(), skipped=skipped)
            if not files:
                result.warnings.append(f"no files to check under {given}")
                continue
            folders = {os.path.dirname(f.abspath) for f in files}
            owner_of = {folder: resolver.for_folder(Path(folder)) for folder in folders}
            if all(owner is settings for owner in owner_of.values()):
                add(settings, given)  # the common case: the folder stays one path, walked here once
                result.discovered[given] = (files, skipped)
                continue
            result.skipped += skipped  # (the engine sees files only: what the walk skipped is said here)
            for source in files:
                folder = os.path.dirname(source.abspath)
                owner = owner_of[folder]
                if owner is settings or not _excluded(source.abspath, resolver.config_of(Path(folder)), owner):
                    add(owner, source.path)
        else:
            result.warnings.append(f"{given}: not a regular file or folder; skipped")
    result.groups = list(by_settings.values())
    return result


def lintable(path: Path) -> bool:
    """A file named on the command line that dslint reads: by its name (a stub `.pyi` too, as the
    pre-commit hook passes them), or a script without a suffix whose first line runs Python."""
    from .sources.discover import kind_of

    if kind_of(path) is not None or path.suffix == ".pyi":
        return True
    if path.suffix:
        return False
    try:
        with open(path, "rb") as handle:
            first = handle.readline(200)
    except OSError:
        return True  # the engine reports why it cannot be read
    return first.startswith(b"#!") and b"python" in first


def _excluded(abspath: str, config, settings: Settings) -> bool:
    """`exclude` of a nested project, matched relative to its own folder (the walk above it
    applied only the outer settings)."""
    patterns = settings.exclude + settings.extend_exclude
    if not patterns or config is None:
        return False
    from .sources.ignore import IgnoreSpec

    spec = IgnoreSpec(patterns)
    parts = os.path.relpath(abspath, os.path.dirname(str(config))).replace(os.sep, "/").split("/")
    # each folder on the way (with its slash, as gitignore matches folders) and the file; whole
    # relative paths and bare names, as the walk matches them
    for i in range(1, len(parts) + 1):
        suffix = "/" if i < len(parts) else ""
        if spec.match_file("/".join(parts[:i]) + suffix) or spec.match_file(parts[i - 1] + suffix):
            return True
    return False


def merge_checks(results: list):
    """One CheckResult from the groups' results."""
    from .engine import CheckResult
    from .model import Finding

    if len(results) == 1:
        return results[0]
    merged = CheckResult(findings=[], errors=[], files=0, project=results[0].project if results else None)
    for result in results:
        merged.findings += result.findings
        merged.errors += result.errors
        merged.skipped += result.skipped
        merged.files += result.files
        merged.internal_error = merged.internal_error or result.internal_error
        merged.texts.update(result.texts)
    merged.findings.sort(key=Finding.sort_key)
    return merged


def merge_fixes(outcomes: list):
    """One FixOutcome from the groups' outcomes."""
    from .engine import FixOutcome

    if len(outcomes) == 1:
        return outcomes[0]
    changed: dict = {}
    for outcome in outcomes:
        changed.update(outcome.changed)
    return FixOutcome(changed=changed, applied=sum(o.applied for o in outcomes),
                      dropped=[line for o in outcomes for line in o.dropped],
                      skipped=[line for o in outcomes for line in o.skipped],
                      remaining=merge_checks([o.remaining for o in outcomes]))
