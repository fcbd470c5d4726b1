"""discover -> parse -> facts -> rules -> link -> setup rules -> filter: one `check` of some paths."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from ..model import Finding
from ..settings import Settings
from ..sources.discover import SourceFile, discover
from .checkers import PLAIN, kind_for
from .parallel import check_files
from .project import build_project, read_launched_plain_scripts, setup_findings, summarise_imported_plain_modules
from .results import INTERNAL_ERROR, CheckResult
from .suppression import filter_findings

if TYPE_CHECKING:
    from .cache import ResultCache


def check(paths: list[str], settings: Settings, *, root: Optional[Path] = None, use_cache: bool = True,
          overlay: Optional[dict] = None, jobs: Optional[int] = None,
          progress_factory: Optional[Callable[[int], Callable[[int], None]]] = None,
          cache: Optional[ResultCache] = None, edits=False) -> CheckResult:
    """Check `paths` and return the findings that survive select/ignore/noqa, sorted.

    `cache` replaces the on-disk cache with one the caller keeps (the language server keeps
    one in memory); the caller then owns saving it. `edits` (True, or "safe" for the safe
    fixes only): build the fixes' edits with the results, in the workers (JSON output, --show-fixes, `fix`).
    """
    root = root or Path.cwd()
    # A path named explicitly that exists only in the overlay (an editor's unsaved new file) is checked too.
    unsaved = [p for p in paths if overlay and p in overlay and not os.path.exists(p)]
    skipped: list[str] = []
    sources, errors = discover([p for p in paths if p not in unsaved], settings, root, skipped=skipped)
    sources += [SourceFile(p, p, kind_for(p)) for p in unsaved]
    owned = cache is None
    if owned and use_cache:
        from .cache import ResultCache  # (sqlite3 and pickle: nothing a --no-cache run needs)

        cache = ResultCache(root / ".dslint_cache", settings)
    progress = progress_factory(len(sources)) if progress_factory else None
    results = check_files(sources, settings, jobs=jobs, overlay=overlay, cache=cache, progress=progress, edits=edits)
    summarise_imported_plain_modules(results, settings, cache, overlay)
    project = build_project(root, results)
    read_launched_plain_scripts(project, results, settings, overlay)
    findings = [f for r in results for f in r.findings if f.needs is None]
    findings += setup_findings(root, project, results, settings, cache if overlay is None else None)
    if cache is not None and owned:
        cache.save()
        cache.close()
    kept = filter_findings(findings, results, settings, overlay)  # select/ignore, per-file-ignores, noqa; DSL004
    kept.sort(key=Finding.sort_key)
    texts = {r.source.path: r.text for r in results if r.text is not None}
    internal = any(f.code == INTERNAL_ERROR for f in kept)
    return CheckResult(findings=kept, errors=errors, files=sum(1 for r in results if r.kind not in ("skipped", "module", PLAIN)),
                       internal_error=internal, texts=texts, project=project, skipped=skipped)
