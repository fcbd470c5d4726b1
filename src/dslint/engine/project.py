"""The project phase: plain modules a checked module imports, launched scripts, the linked
project, setup rules, program checks and the deciders of contextual findings."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from ..facts.setup import Project, input_digest
from ..model import Finding, Span
from ..rules.registry import RULES
from ..settings import Settings
from ..textpos import LineIndex
from .checkers import PLAIN, PLAIN_MODULE_MAX_CHARS, check_python, imported_plain_module, read_text, rules_of
from .results import INTERNAL_ERROR, FileResult, engine_finding, to_finding

if TYPE_CHECKING:
    from .cache import ResultCache


def summarise_imported_plain_modules(results: list[FileResult], settings: Settings,
                                     cache: Optional["ResultCache"], overlay: Optional[dict] = None) -> None:
    """Replace, in `results`, the plain files that a parsed module imports by their full check
    (a few rounds: a plain module may import another), resolving each import the way the
    program layer will (facts/program.py), so a same-named module elsewhere is left alone.

    Such a module runs in the program of the framework module that imports it (`export.py`
    handed an `accelerator` it never imports): the prefilter skipped it for its words only.
    Its full result is cached under its own key, beside the file's plain row: whether it is
    checked fully depends on the other files, not on its content."""
    from ..facts.module_summary import ModuleExports
    from ..facts.program import ProgramIndex
    from .cache import IMPORTED_SUFFIX

    pending = {r.source.path: i for i, r in enumerate(results) if r.kind == PLAIN}
    if not pending:
        return
    modules = {r.source.path: (r.summary.module if r.kind in ("python", "module") and r.summary is not None
                               and r.summary.module is not None else ModuleExports())
               for r in results if r.kind in ("python", "module", PLAIN)}
    index = ProgramIndex(modules)
    todo = [path for path, exports in modules.items() if exports.imports]
    for _ in range(4):
        wanted = set()
        for path in todo:
            for ref in modules[path].imports:
                wanted.add(index.module_file(path, ref.module, ref.level))
                for name, _ in ref.names:
                    wanted.add(index.module_file(path, f"{ref.module}.{name}" if ref.module else name, ref.level))
        found = [index.display[p] for p in wanted if p is not None and index.display.get(p) in pending]
        if not found:
            return
        todo = []
        for path in found:
            i = pending.pop(path)
            r = results[i]
            cacheable = cache is not None and r.cache_key and not (overlay and r.source.abspath in overlay)
            full_key = r.cache_key + IMPORTED_SUFFIX if cacheable else None  # (see cache.put)
            cached = cache.get(full_key) if cacheable else None
            if isinstance(cached, FileResult) and cached.source.path == r.source.path:
                results[i] = cached
            else:
                # One read: the result is built on the bytes whose hash decides whether it may be cached.
                key, data = cache.key_and_data(r.source) if cacheable else (None, None)
                results[i] = imported_plain_module(r.source, settings, overlay, data)
                if cacheable and key == r.cache_key:
                    cache.put(full_key, results[i])
            results[i].cache_key = r.cache_key
            if results[i].summary is not None and results[i].summary.module is not None:
                modules[path] = results[i].summary.module
                todo.append(path)



def read_launched_plain_scripts(project: Project, results: list[FileResult], settings: Settings,
                                overlay: Optional[dict] = None, cache: Optional["ResultCache"] = None) -> None:
    """A script that a launch line starts is part of its setup even when the prefilter skipped it (no
    framework words, e.g. a `tasks/main.py` that reaches torch only through project modules): check it
    as a script and put it in `project`, in place of its plain result (not cached: the upgrade depends
    on the launch files, not on the script's content). The plain modules such a script imports are
    then checked fully too (summarise_imported_plain_modules)."""
    from ..facts.link import forget_unresolved_script_links

    if not project.launches:
        return
    if _upgrade_launched(project, results, settings, overlay):
        # (what a launched plain script imports is in its program too: the same upgrade as for the others)
        before = {id(r) for r in results}
        summarise_imported_plain_modules(results, settings, cache, overlay)
        for result in results:
            if id(result) not in before:
                _register(project, result)
        forget_unresolved_script_links(project)  # (they were resolved against the smaller table)


def _upgrade_launched(project: Project, results: list[FileResult], settings: Settings,
                      overlay: Optional[dict]) -> bool:
    """Check each launched plain script fully, in place of its plain result; whether any was."""
    from ..facts.link import launched_files

    wanted = launched_files(project)
    names = {path.name for path in wanted}
    changed = False
    for i, result in enumerate(results):
        if result.kind not in (PLAIN, "module") or os.path.basename(result.source.path) not in names \
                or Path(os.path.realpath(result.source.abspath)) not in wanted:
            continue
        text, _, _ = read_text(result.source, settings, overlay)
        if text is None or len(text) > PLAIN_MODULE_MAX_CHARS:
            continue
        full = check_python(result.source, text, settings, prefilter=False)
        if full.summary is None:
            continue
        full.cache_key = result.cache_key
        results[i] = full
        _register(project, full)
        changed = True
    return changed



def _register(project: Project, result: FileResult) -> None:
    """Put a checked Python file's summary in `project` (a script, and a module of the program)."""
    if result.kind not in ("python", "module") or result.summary is None:
        return
    if result.kind == "python":
        project.scripts[result.source.path] = result.summary
    if result.summary.module is not None:
        project.modules[result.source.path] = result.summary.module


def build_project(root: Path, results: list[FileResult], checked: Iterable[str] = ()) -> Project:
    """`checked`: the paths the run was given (their folders may hold launch files outside `root`)."""
    project = Project(root=root, checked={Path(p).resolve(): p for p in checked if os.path.isdir(p)})
    for result in results:
        path = result.source.path
        if result.kind in ("python", "module") and result.summary is not None:
            _register(project, result)
        elif result.kind == "dsconfig" and result.summary is not None:
            project.configs[path] = result.summary
            project.texts[path] = result.text
        elif result.kind == "launch" and result.summary is not None:
            project.launches[path] = result.summary
            project.texts[path] = result.text
    return project



def run_setup_rules(project: Project, settings: Settings, candidates: Iterable[Finding] = ()) -> list[Finding]:
    """The project phase: setup rules, the program checks of per-file rules, and the contextual
    findings decided against the linked program."""
    from ..rules.context import SetupContext
    from ..rules.registry import DECIDERS, PROGRAM_CHECKS

    ctx = SetupContext(project=project, settings=settings)
    findings = []
    checks = [(rule, rule.check) for rule in rules_of("setup", settings)]
    # (all of them, as per file: the cached setup findings serve every selection)
    checks += [(RULES[code], check) for code, funcs in PROGRAM_CHECKS.items() for check in funcs]
    for rule, check in checks:
        try:
            for report in check(ctx):
                path = report.path or next(iter(project.scripts), "")
                lines = None if isinstance(report.target, Span) else _lines_for(project, path)
                findings.append(to_finding(rule, report, path, lines))
        except Exception as error:
            findings.append(engine_finding(INTERNAL_ERROR, str(project.root),
                                            f"internal error in rule {rule.code} ({rule.name}): {type(error).__name__}: {error}"))
    for candidate in candidates:
        name, params = candidate.needs
        try:
            kept = DECIDERS[name](candidate, project, dict(params))
        except Exception as error:
            findings.append(engine_finding(INTERNAL_ERROR, candidate.path,
                                            f"internal error deciding {candidate.code} ({name}): {type(error).__name__}: {error}"))
            continue
        if kept is not None:
            findings.append(replace(kept, needs=None))  # (the candidate may sit in a cache)
    # (a launch walked once per branch of a `case` before it is several setups; what they agree on is said once)
    unique = {(f.code, f.path, f.span, f.message): f for f in reversed(findings)}
    return [f for f in findings if unique[(f.code, f.path, f.span, f.message)] is f]



def _lines_for(project: Project, path: str) -> Optional[LineIndex]:
    text = project.texts.get(path)
    return LineIndex(text) if text is not None else None



def setup_findings(root: Path, project: Project, results: list[FileResult], settings: Settings,
                    cache: Optional[ResultCache]) -> list[Finding]:
    """The setup rules' findings; from the cache when exactly the same files were checked."""
    key = None
    if cache is not None and cache.path is not None:
        from .cache import setup_key

        key = setup_key(root, [result.cache_key for result in results])
        cached = cache.get(key)
        # (findings, the other files the project phase read and their digests then)
        if isinstance(cached, tuple) and all(input_digest(path) == seen for path, seen in cached[1].items()):
            return cached[0]
    candidates = [f for r in results for f in r.findings if f.needs is not None]
    findings = run_setup_rules(project, settings, candidates)
    if key is not None:
        cache.put(key, (findings, dict(project.inputs)))
    return findings
