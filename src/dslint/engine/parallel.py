"""Many files: a fork pool of workers for large trees (chunks of files, plain data back), serial for a handful."""
from __future__ import annotations

import contextlib
import gc
import os
from typing import TYPE_CHECKING, Callable, Optional

from ..rules.registry import all_rules
from ..settings import Settings
from ..sources.discover import SourceFile
from .checkers import check_file, wants_edits
from .results import FileResult

if TYPE_CHECKING:
    from .cache import ResultCache


PARALLEL_THRESHOLD = 24  # below this many files a pool costs more than it saves



@contextlib.contextmanager
def gc_paused(freeze: bool = False):
    """No automatic cyclic GC inside the block (`freeze`: what is alive at its end is frozen, never
    traversed again, before the collector is switched back on: the CLI's whole run).

    Parsing and unpickling allocate hundreds of thousands of objects that all stay alive, and
    every automatic collection re-traverses them: CPython's GC was ~40% of a cold check and ~75%
    of loading the cache. Reference counting still frees almost everything; what cycles there
    are get collected in `_check_serially` every few files, and on leaving the block.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if freeze:
                gc.freeze()
            gc.enable()



GC_EVERY_FILES = 32  # an explicit young-generation collection this often, so memory stays flat



def _check_serially(sources: list[SourceFile], settings: Settings, overlay: Optional[dict] = None,
                    progress: Optional[Callable[[int], None]] = None, data: Optional[dict] = None,
                    edits=False) -> list[FileResult]:
    """`data`: abspath -> the bytes already read (and hashed for the cache key); `edits`: build
    the fixes' edits too (see check_file)."""
    results = []
    data = data if data is not None else _PREREAD
    with gc_paused():
        for count, source in enumerate(sources, start=1):
            results.append(check_file(source, settings, overlay, data.pop(source.abspath, None), edits))
            if progress:
                progress(1)
            if count % GC_EVERY_FILES == 0:
                gc.collect(1)
    return results



_WORKER_SETTINGS: Optional[Settings] = None
_WORKER_EDITS = False  # True, "safe" or False (see checkers.wants_edits)


# The bytes read for the cache keys, inherited by the forked workers (not pickled to them).
_PREREAD: dict = {}



def _worker_init(settings: Settings, edits=False) -> None:
    global _WORKER_SETTINGS, _WORKER_EDITS
    _WORKER_SETTINGS, _WORKER_EDITS = settings, edits



def _worker_chunk(batch: tuple[int, list[SourceFile]]) -> tuple[int, list[FileResult]]:
    number, sources = batch
    return number, _check_serially(sources, _WORKER_SETTINGS, edits=_WORKER_EDITS)



def check_files(sources: list[SourceFile], settings: Settings, *, jobs: Optional[int] = None,
                overlay: Optional[dict] = None, cache: Optional[ResultCache] = None,
                progress: Optional[Callable[[int], None]] = None, edits=False) -> list[FileResult]:
    """Each file's result, from `cache` or checked (here or in a fork pool). `edits`: the run
    reports or applies fixes, so their edits are built with the results (a cached result
    without them is checked again, and cached with them)."""
    all_rules()
    results: list[Optional[FileResult]] = [None] * len(sources)
    todo: list[int] = []
    keys: dict[int, Optional[str]] = {}
    preread: dict[str, bytes] = {}  # a miss is linted on the very bytes its key hashes
    with gc_paused():  # (each hit unpickles a file's results: see gc_paused)
        for index, source in enumerate(sources):
            if cache is not None and (overlay is None or source.abspath not in overlay):
                keys[index], data = cache.key_and_data(source)
                hit = cache.get(keys[index])
                if hit is not None and not (edits and _lacks_edits(hit, settings, edits)):
                    hit.cache_key = keys[index]
                    results[index] = hit
                    continue
                if data is not None:
                    preread[source.abspath] = data
            todo.append(index)
    if progress and len(todo) < len(sources):
        progress(len(sources) - len(todo))
    jobs = jobs or os.cpu_count() or 1
    # Python files go to the workers; launch and config files are checked here meanwhile:
    # their summaries (spans of every word and JSON value) are ~3/4 of what workers would
    # pickle back, and pickling them costs about as much CPU as parsing them again.
    remote = [i for i in todo if sources[i].kind == "python"]
    if len(remote) >= PARALLEL_THRESHOLD and jobs > 1 and overlay is None and "fork" in _start_methods():
        import multiprocessing

        _import_checkers({sources[i].kind for i in todo}, edits)
        local = [i for i in todo if sources[i].kind != "python"]
        # Small chunks, taken in any order: the last chunks keep every worker busy to the end
        # (file costs vary 100x), while each chunk still carries enough files to pay its IPC.
        chunk = max(4, len(remote) // (jobs * 16))
        batches = [remote[i:i + chunk] for i in range(0, len(remote), chunk)]
        context = multiprocessing.get_context("fork")
        _PREREAD.update(preread)  # the workers inherit it with the fork
        try:
            # The parent unpickles every worker's results: without the pause each automatic GC pass
            # re-traverses all results received so far (~3x the unpickling itself).
            with context.Pool(jobs, initializer=_worker_init, initargs=(settings, edits)) as pool, gc_paused():
                work = [(number, [sources[i] for i in batch]) for number, batch in enumerate(batches)]
                received = pool.imap_unordered(_worker_chunk, work)
                for index, result in zip(local, _check_serially([sources[i] for i in local], settings, None, progress, preread, edits)):
                    results[index] = result
                for number, batch_results in received:
                    for index, result in zip(batches[number], batch_results):
                        results[index] = result
                    if progress:
                        progress(len(batches[number]))
        finally:
            _PREREAD.clear()
    else:
        for index, result in zip(todo, _check_serially([sources[i] for i in todo], settings, overlay, progress, preread, edits)):
            results[index] = result
    if cache is not None:
        for index in todo:
            if results[index].note is not None:
                continue  # (an interpreter's limit, not the file's: checked again, its line shown every run)
            results[index].cache_key = keys.get(index)
            cache.put(keys.get(index), results[index])
    return results  # type: ignore[return-value]



def _lacks_edits(result: FileResult, settings: Settings, edits) -> bool:
    return any(f.built is None and f.path == result.source.path and wants_edits(f, settings, edits)
               for f in result.findings)



def _import_checkers(kinds: set, edits=False) -> None:
    """Import the per-kind checkers once before forking, not once in every worker.

    The parent needs them anyway: it checks the launch and config files itself.
    """
    if edits and "python" in kinds:
        try:
            import libcst.metadata  # noqa: F401  (once here, not in every worker that builds edits;
            # libcst.codemod, with libcst.matchers, only in a worker whose fix removes an import)
        except ImportError:
            pass
    if "launch" in kinds:
        try:
            from ..sources.launch import parse  # noqa: F401
        except ImportError:
            pass
    if "dsconfig" in kinds:
        try:
            from ..sources.dsconfig import _parser

            _parser()  # loads tree-sitter and its JSON grammar
        except Exception:  # the workers meet (and report) the same problem per file
            pass



def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()
