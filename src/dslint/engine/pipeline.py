"""discover -> parse -> facts -> rules -> link -> setup rules -> filter: one `check` of some paths."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from ..facts.setup import input_digest
from ..model import Finding
from ..rules.registry import all_rules
from ..settings import Settings
from ..sources.discover import SourceFile, discover
from .checkers import PLAIN, kind_for
from .linked_configs import check_linked_doubtful_configs
from .parallel import _lacks_edits, check_files, gc_paused
from .project import build_project, read_launched_plain_scripts, setup_findings, summarise_imported_plain_modules
from .results import INTERNAL_ERROR, CheckResult, FileResult
from .suppression import filter_findings

if TYPE_CHECKING:
    from .cache import ResultCache


def check(paths: list[str], settings: Settings, *, root: Optional[Path] = None, use_cache: bool = True,
          overlay: Optional[dict] = None, jobs: Optional[int] = None,
          progress_factory: Optional[Callable[[int], Callable[[int], None]]] = None,
          cache: Optional[ResultCache] = None, edits=False, with_project: bool = True,
          discovered: Optional[dict] = None) -> CheckResult:
    """Check `paths` and return the findings that survive select/ignore/noqa, sorted.

    `cache` replaces the on-disk cache with one the caller keeps (the language server keeps
    one in memory); the caller then owns saving it. `edits` (True, or "safe" for the safe
    fixes only): build the fixes' edits with the results, in the workers (JSON output, --show-fixes, `fix`).
    `with_project` False: the caller does not read `project`, so a warm run may leave it None.
    `discovered`: path -> (files, skipped lines) of folders the caller already walked with these
    settings and root (the CLI's settings plan), so a folder is walked once per run.
    """
    root = root or Path.cwd()
    # A path named explicitly that exists only in the overlay (an editor's unsaved new file) is checked too.
    unsaved = [p for p in paths if overlay and p in overlay and not os.path.exists(p)]
    skipped: list[str] = []
    sources, errors = _sources(paths, unsaved, settings, root, skipped, discovered or {})
    sources += [SourceFile(p, p, kind_for(p)) for p in unsaved]
    owned = cache is None
    if owned and use_cache:
        from .cache import ResultCache  # (sqlite3 and pickle: nothing a --no-cache run needs)

        cache = ResultCache(root / ".dslint_cache", settings)
    progress = progress_factory(len(sources)) if progress_factory else None
    warm = None
    if owned and cache is not None and overlay is None and not with_project:
        warm = warm_results(root, sources, settings, cache, edits)
    if warm is not None:
        results, setup, project = warm[0], warm[1], None
        if progress:
            progress(len(sources))
    else:
        results = check_files(sources, settings, jobs=jobs, overlay=overlay, cache=cache, progress=progress, edits=edits)
        checked = list(results)
        summarise_imported_plain_modules(results, settings, cache, overlay)
        project = build_project(root, results, paths)
        read_launched_plain_scripts(project, results, settings, overlay, cache)
        check_linked_doubtful_configs(project, results, settings, edits)
        setup = setup_findings(root, project, results, settings, cache if overlay is None else None)
        if owned and cache is not None and overlay is None:
            remember_run(root, cache, checked, results)
    findings = [f for r in results for f in r.findings if f.needs is None] + setup
    skipped += [r.note for r in results if r.note is not None]
    if cache is not None and owned:
        cache.save()
        cache.close()
    kept = filter_findings(findings, results, settings, overlay)  # select/ignore, per-file-ignores, noqa; DSL004
    kept.sort(key=Finding.sort_key)
    texts = {r.source.path: r.text for r in results if r.text is not None}
    internal = any(f.code == INTERNAL_ERROR for f in kept)
    return CheckResult(findings=kept, errors=errors, files=sum(1 for r in results if r.kind not in ("skipped", "module", PLAIN)),
                       internal_error=internal, texts=texts, project=project, skipped=skipped)



def warm_results(root: Path, sources: list[SourceFile], settings: Settings, cache: ResultCache,
                 edits=False) -> Optional[tuple[list[FileResult], list[Finding]]]:
    """The run-level fast path: when every file's row and this set of files' run row hit (the
    project phase's inputs unchanged), the results as the normal path would leave them, without
    summaries, and the setup findings; None on any miss."""
    from .cache import setup_key

    all_rules()  # (filter_findings and DSL004 read the registry)
    keys = [cache.key(source) for source in sources]
    if not sources or any(key is None for key in keys):
        return None
    run = cache.get(setup_key(root, keys))
    if run is None or len(run) < 3 or any(input_digest(path) != seen for path, seen in run[1].items()):
        return None
    with gc_paused():
        small = cache.get_small(keys)
        if small is None:
            return None
        results = []
        for index, (source, key) in enumerate(zip(sources, keys)):
            kind, findings, noqa, file_noqa, text = run[2].get(index, small[index])
            results.append(FileResult(source, kind, findings, None, text, noqa, file_noqa, key))
    if edits and any(_lacks_edits(result, settings, edits) for result in results):
        return None
    return results, run[0]


def remember_run(root: Path, cache: ResultCache, checked: list[FileResult], results: list[FileResult]) -> None:
    """Complete the setup row with the small parts of the results the project phase replaced (a
    launched plain script checked as a script, an imported plain module summarised)."""
    from .cache import setup_key, small_part

    if cache.setup_row is None or any(r.cache_key is None for r in results):
        return
    key, (findings, inputs, *done) = cache.setup_row
    replaced = {i: small_part(r) for i, (before, r) in enumerate(zip(checked, results)) if r is not before}
    if key == setup_key(root, [r.cache_key for r in results]) and not (done and done[0].keys() == replaced.keys()):
        cache.put(key, (findings, inputs, replaced))


def _sources(paths, unsaved, settings, root, skipped, discovered):
    """discover(paths), taking the folders the caller already walked from `discovered`."""
    if not any(p in discovered for p in paths):
        return discover([p for p in paths if p not in unsaved], settings, root, skipped=skipped)
    sources, errors, seen = [], [], set()
    for path in paths:
        if path in unsaved:
            continue
        if path in discovered:
            found, lines = discovered[path]
            skipped.extend(lines)
        else:
            found, more = discover([path], settings, root, skipped=skipped)
            errors += more
        for source in found:
            if source.abspath not in seen:  # (two given paths may overlap, as discover's own walk allows)
                seen.add(source.abspath)
                sources.append(source)
    return sources, errors
