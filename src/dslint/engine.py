"""discover → parse → facts → rules → link → setup rules → filter; and the fix loop.

One parse per file, shared by all rules. Files are checked in parallel (a fork pool, chunks
of files, plain data back) for large trees and serially for a handful. Per-file results are
cached by content hash, settings and dslint version.
"""
from __future__ import annotations

import ast
import contextlib
import gc
import hashlib
import os
import pickle
import re
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Optional

from . import __version__
from .facts.setup import Project, input_digest
from .fixes import apply_edits, build_edits_or_reason, parses
from .model import Applicability, Finding, Severity, Span
from .rules.registry import RULES, Report, Rule, all_rules
from .settings import Settings
from .sources.discover import SourceFile, discover
from .suppression import filter_findings, parse_noqa
from .sources.files import NotRegularFile, TooLarge, read_regular, read_snapshot
from .writes import Skipped, remove_stale_temps, replace_if_unchanged, temp_path_for
from .textpos import LineIndex

FRAMEWORK_WORDS = re.compile(rb"torch|deepspeed|lightning|accelerate|transformers")
PARALLEL_THRESHOLD = 24  # below this many files a pool costs more than it saves
MAX_FIX_PASSES = 8

SYNTAX_ERROR, UNREADABLE, INTERNAL_ERROR = "DSL001", "DSL002", "DSL003"


@dataclass
class FileResult:
    source: SourceFile
    kind: str  # python | dsconfig | launch | skipped
    findings: list[Finding] = field(default_factory=list)
    summary: object = None  # ScriptSummary | JsonDoc | LaunchFile
    text: Optional[str] = None  # kept for launch and config files (setup rules report in them)
    noqa: dict = field(default_factory=dict)  # row -> set of codes
    file_noqa: object = False  # True: every code; a frozenset: those codes
    cache_key: Optional[str] = None  # content-based key, set when the result went through the cache


@dataclass
class CheckResult:
    findings: list[Finding]
    errors: list[str]  # one line each: paths that could not be checked at all
    files: int
    internal_error: bool = False
    texts: dict = field(default_factory=dict)  # display path -> text, for the code frames
    project: Optional[Project] = None  # every file's facts, linked (for --show-setup)
    skipped: list[str] = field(default_factory=list)  # "skipped PATH: why": FIFOs, unreadable folders


# -- reading ---------------------------------------------------------------------------------

def _whole_file() -> Span:
    from .model import Location

    return Span(Location(1, 1), Location(1, 1), 0, 0)


def _engine_finding(code: str, path: str, message: str, span: Optional[Span] = None) -> Finding:
    rule = RULES[code]
    return Finding(code=code, message=message, path=path, span=span or _whole_file(),
                   severity=rule.severity, name=rule.name)


def read_text(source: SourceFile, settings: Settings, overlay: Optional[dict],
              data: Optional[bytes] = None) -> tuple[Optional[str], Optional[str], bytes]:
    """(text, error, bytes) for a file: a clear reason instead of an exception for unreadable input.

    `data`: the file's bytes when the caller already read them (the cache key is their hash).
    """
    if overlay is not None and source.abspath in overlay:
        text = overlay[source.abspath]
        return text, None, text.encode("utf-8", "surrogatepass")
    limit = settings.max_file_size_mb * 1024 * 1024
    try:
        if data is None:
            data = read_regular(source.abspath, limit)
        elif len(data) > limit:
            raise TooLarge(source.abspath, len(data))
    except TooLarge as error:
        return None, (f"file is too large to check ({error.size / 1024 / 1024:.1f} MB; the limit is "
                      f"{settings.max_file_size_mb:g} MB, set max-file-size-mb in [tool.dslint])"), b""
    except NotRegularFile:
        return None, "not a regular file", b""
    except OSError as error:
        return None, f"cannot read file: {error.strerror or error}", b""
    if b"\0" in data[:8192]:
        return None, "binary file (contains NUL bytes); not a text file", data
    try:
        text = data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as error:
        row = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        return None, f"not valid UTF-8 at line {row}, column {column} (byte 0x{data[error.start]:02x})", data
    return text, None, data


# -- one file ----------------------------------------------------------------------------------

_RULES_OF: dict = {}  # (kind, registered rules, selection) -> enabled rules


def _rules_of(kind: str, settings: Settings) -> list[Rule]:
    """The enabled rules of one kind; memoised, as every file asks (~60 `is_enabled` calls each)."""
    rules = all_rules()
    key = (kind, tuple(map(id, rules.values())), tuple(settings.select), tuple(settings.extend_select),
           tuple(settings.ignore))
    found = _RULES_OF.get(key)
    if found is None:
        if len(_RULES_OF) > 64:  # settings that keep changing (an editor session) must not grow it
            _RULES_OF.clear()
        found = _RULES_OF[key] = [r for r in rules.values() if r.kind == kind and settings.is_enabled(r.code)]
    return list(found)


def _run_rules(rules: list[Rule], ctx, path: str, lines: Optional[LineIndex]) -> list[Finding]:
    """Run each rule; a crash becomes an internal-error finding naming the rule."""
    findings = []
    for rule in rules:
        try:
            for report in rule.check(ctx):
                findings.append(to_finding(rule, report, path, lines))
        except Exception as error:  # contain the crash: the other rules' results stay
            where = traceback.extract_tb(error.__traceback__)[-1]
            findings.append(_engine_finding(
                INTERNAL_ERROR, path,
                f"internal error in rule {rule.code} ({rule.name}): {type(error).__name__}: {error} "
                f"[{Path(where.filename).name}:{where.lineno}]; please report it"))
    return findings


def to_finding(rule: Rule, report: Report, path: str, lines: Optional[LineIndex]) -> Finding:
    target = report.target
    span = target if isinstance(target, Span) else lines.span_of_node(target)
    code = report.code or rule.code
    registered = RULES.get(code, rule)
    where = report.path or path
    fix = None if where.lower().endswith(".md") else report.fix  # Markdown is never rewritten (a README block)
    return Finding(code=code, message=report.message, path=where, span=span,
                   severity=registered.severity, name=registered.name, fix=fix, related=list(report.related),
                   needs=report.needs)


def _noqa(text: str) -> tuple[dict, object]:
    """(row -> DSL codes of its `# noqa:`, file level: False, True or a frozenset of codes)."""
    return parse_noqa(text)


def check_file(source: SourceFile, settings: Settings, overlay: Optional[dict] = None,
               data: Optional[bytes] = None) -> FileResult:
    """Parse one file and run its per-file rules (on `data` when the caller already read it).

    Any exception becomes one DSL003 finding for this file: the other files' results stay.
    """
    try:
        return _check_one_file(source, settings, overlay, data)
    except Exception as error:  # RecursionError and MemoryError included
        return FileResult(source, source.kind, [_engine_finding(INTERNAL_ERROR, source.path, _internal_error_line(error))])


def _internal_error_line(error: BaseException) -> str:
    """One line naming the exception and where dslint raised it (never a traceback)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" [{Path(frames[-1].filename).name}:{frames[-1].lineno}]" if frames else ""
    detail = " ".join(str(error).split())[:200]
    return f"internal error while checking this file: {type(error).__name__}: {detail}{where}; please report it"


def _check_one_file(source: SourceFile, settings: Settings, overlay: Optional[dict], data: Optional[bytes]) -> FileResult:
    text, error, data = read_text(source, settings, overlay, data)
    if error is not None:
        if source.kind == "dsconfig" and not _json_worth_reporting(source.path, data):
            return FileResult(source, "skipped")
        return FileResult(source, source.kind, [_engine_finding(UNREADABLE, source.path, error)])
    if source.kind == "python":
        return _check_python(source, text, settings)
    if source.kind == "dsconfig":
        return _check_config(source, text, settings)
    return _check_launch(source, text, settings)


def _check_python(source: SourceFile, text: str, settings: Settings, prefilter: bool = True) -> FileResult:
    from .facts.script import build_script_facts
    from .facts.summary import summarize
    from .rules.context import PythonContext

    if prefilter and not FRAMEWORK_WORDS.search(text.encode("utf-8", "surrogatepass")):
        return FileResult(source, PLAIN)  # summarised later if a checked module imports it
    noqa, file_noqa = _noqa(text)
    result = FileResult(source, "python", noqa=noqa, file_noqa=file_noqa)
    try:
        tree = ast.parse(text, filename=source.path)
    except SyntaxError as error:
        lines = LineIndex(text)
        row = max(1, min(error.lineno or 1, len(lines.line_starts)))
        column = max(1, error.offset or 1)
        start = lines.offset(row, column)
        result.findings.append(_engine_finding(
            SYNTAX_ERROR, source.path, f"syntax error: {error.msg}", lines.span(start, start)))
        return result
    except (ValueError, RecursionError, MemoryError) as error:
        result.findings.append(_engine_finding(SYNTAX_ERROR, source.path, f"cannot parse: {error}"))
        return result
    facts = build_script_facts(source.path, text, tree)
    ctx = PythonContext(facts=facts, settings=settings)
    result.findings = _run_rules(_rules_of("python", settings), ctx, source.path, facts.lines)
    try:
        result.summary = summarize(facts)
    except Exception as error:  # linking loses this script, the per-file findings stay
        result.findings.append(_engine_finding(INTERNAL_ERROR, source.path, f"internal error while summarising: {error!r}"))
    _drop_caches(facts)
    return result


PLAIN_MODULE_MAX_CHARS = 2_000_000
PLAIN = "plain"  # a Python file without framework words: no rule reads it


def _plain_module(source: SourceFile, settings: Settings, overlay: Optional[dict] = None) -> FileResult:
    """A project module without framework words that a checked module imports: only its summary,
    for the program layer (a trainer class, a package's re-exports)."""
    from .facts.script import build_script_facts
    from .facts.summary import summarize_plain_module

    text, error, _ = read_text(source, settings, overlay)
    if text is None or len(text) > PLAIN_MODULE_MAX_CHARS:
        return FileResult(source, "skipped")
    try:
        tree = ast.parse(text, filename=source.path)
        summary = summarize_plain_module(build_script_facts(source.path, text, tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return FileResult(source, "skipped")  # not ours to report: no rule reads this file
    except Exception as error:  # a crash in the facts layer: said once, the other files go on
        return FileResult(source, "skipped", [_engine_finding(INTERNAL_ERROR, source.path, _internal_error_line(error))])
    return FileResult(source, "module", summary=summary)


def summarise_imported_plain_modules(results: list[FileResult], settings: Settings,
                                     cache: Optional["ResultCache"], overlay: Optional[dict] = None) -> None:
    """Replace, in `results`, the plain files that a parsed module imports by their summaries
    (a few rounds: a plain module may import another), resolving each import the way the
    program layer will (facts/program.py), so a same-named module elsewhere is left alone."""
    from .facts.module_summary import ModuleExports
    from .facts.program import ProgramIndex

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
            results[i] = _plain_module(r.source, settings, overlay)
            results[i].cache_key = r.cache_key
            # (cached only if the file still hashes to the key: it was read again after the key)
            if (cache is not None and r.cache_key and not (overlay and r.source.abspath in overlay)
                    and cache.key(r.source) == r.cache_key):
                cache.put(r.cache_key, results[i])
            if results[i].summary is not None and results[i].summary.module is not None:
                modules[path] = results[i].summary.module
                todo.append(path)


def read_launched_plain_scripts(project: Project, results: list[FileResult], settings: Settings,
                                overlay: Optional[dict] = None) -> None:
    """A script that a launch line starts is part of its setup even when the prefilter skipped it (no
    framework words, e.g. a `tasks/main.py` that reaches torch only through project modules): check it
    as a script and put it in `project`, in place of its plain result (not cached: the upgrade depends
    on the launch files, not on the script's content)."""
    from .facts.link import launched_files

    if not project.launches:
        return
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
        full = _check_python(result.source, text, settings, prefilter=False)
        if full.summary is None:
            continue
        full.cache_key = result.cache_key
        results[i] = full
        project.scripts[result.source.path] = full.summary
        if full.summary.module is not None:
            project.modules[result.source.path] = full.summary.module
        changed = True
    if changed:
        project.__dict__.pop("_script_links", None)  # (they were resolved against the smaller table)


def _drop_caches(facts) -> None:
    """Forget what rules cached on the facts (`facts._distributed`, ...).

    Those caches point back at the facts, a cycle that kept each file's whole `ast` alive until
    a cyclic GC pass found it; dropping them lets reference counting free the file at once.
    """
    fields = type(facts).__dataclass_fields__
    for name in [n for n in vars(facts) if n not in fields]:
        delattr(facts, name)


def _json_worth_reporting(path: str, data: bytes) -> bool:
    """A broken JSON file is reported only when it is evidently meant as a DeepSpeed config."""
    from .sources.dsconfig import _STRONG_MARKERS

    name = Path(path).name.lower()
    return any(m.encode() in data for m in _STRONG_MARKERS) or "deepspeed" in name or name.startswith("ds_")


def _check_config(source: SourceFile, text: str, settings: Settings) -> FileResult:
    from .rules.context import ConfigContext
    from .sources.dsconfig import JsonError, looks_like_deepspeed_config, parse_json

    try:
        doc = parse_json(source.path, text, keep=looks_like_deepspeed_config)
    except JsonError as error:
        if not _json_worth_reporting(source.path, text.encode("utf-8", "surrogatepass")):
            return FileResult(source, "skipped")
        lines = LineIndex(text)
        start = lines.offset(error.row, error.column)
        return FileResult(source, "dsconfig", [_engine_finding(
            SYNTAX_ERROR, source.path, f"{error} (DeepSpeed cannot load this config)", lines.span(start, start))], text=text)
    except RecursionError:
        return FileResult(source, "skipped")
    if doc is None:
        return FileResult(source, "skipped")
    ctx = ConfigContext(doc=doc, settings=settings)
    findings = _run_rules(_rules_of("dsconfig", settings), ctx, source.path, doc.lines)
    return FileResult(source, "dsconfig", findings, summary=doc, text=text)


def _check_launch(source: SourceFile, text: str, settings: Settings) -> FileResult:
    from .rules.context import LaunchContext

    try:
        from .sources.launch import parse_launch_file
    except ImportError:
        return FileResult(source, "skipped")
    launch = parse_launch_file(text, source.path)
    noqa, file_noqa = _noqa(text)
    ctx = LaunchContext(path=source.path, text=text, launch=launch, settings=settings)
    findings = _run_rules(_rules_of("launch", settings), ctx, source.path, LineIndex(text))
    return FileResult(source, "launch", findings, summary=launch, text=text, noqa=noqa, file_noqa=file_noqa)


# -- many files ----------------------------------------------------------------------------------

class ResultCache:
    """Per-file results keyed by content hash, settings and dslint version, in one pickle."""

    def __init__(self, folder: Optional[Path], settings: Settings):
        self.path = None
        self.entries: dict = {}
        self._by_file: dict = {}
        self.dirty = False
        if folder is None:
            return
        self.path = folder / f"results-{__version__}-{_code_fingerprint()}-{settings.fingerprint()}.pickle"
        self._limit = settings.max_file_size_mb * 1024 * 1024
        try:
            with open(self.path, "rb") as handle, gc_paused():
                self.entries = pickle.load(handle)
        except Exception:  # a missing or corrupt cache is just a cold run
            self.entries = {}
        if not _valid_entries(self.entries):  # it unpickled, but into something else: corrupt too
            self.entries = {}
        self._by_file = {k.split("\0", 1)[0]: k for k in self.entries}

    def key(self, source: SourceFile) -> Optional[str]:
        return self.key_and_data(source)[0]

    def key_and_data(self, source: SourceFile) -> tuple[Optional[str], Optional[bytes]]:
        """The key and the bytes it hashes: a miss lints exactly these bytes, so a file edited
        meanwhile cannot store one content's results under another's key."""
        try:
            data = read_regular(source.abspath, self._limit)
        except OSError:
            return None, None
        return f"{source.abspath}\0{source.path}\0{hashlib.blake2b(data, digest_size=16).hexdigest()}", data

    def get(self, key):
        return self.entries.get(key) if key else None

    def put(self, key, result: FileResult) -> None:
        if key and self.path is not None:
            abspath = key.split("\0", 1)[0]
            old = self._by_file.get(abspath)
            if old is not None and old != key:
                self.entries.pop(old, None)  # one entry per file: the cache does not grow with edits
            self._by_file[abspath] = key
            self.entries[key] = result
            self.dirty = True

    def save(self) -> None:
        if not self.dirty or self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            (self.path.parent / ".gitignore").write_text("*\n")
            remove_stale_temps(str(self.path.parent), legacy=_LEGACY_CACHE_TEMP)
            tmp = temp_path_for(str(self.path))
            try:
                with open(tmp, "xb") as handle:
                    pickle.dump(self.entries, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, pickle.PicklingError):
            pass  # caching is an optimisation; never fail a check because of it


_LEGACY_CACHE_TEMP = re.compile(r"^tmp[a-z0-9_]{8}$")  # tempfile's names, used by earlier versions


def _valid_entries(entries) -> bool:
    """Is this what `save` writes: {key: FileResult} plus the setup phase's (findings, inputs)?"""
    if not isinstance(entries, dict):
        return False
    for key, value in entries.items():
        if not isinstance(key, str):
            return False
        if key.startswith("\0setup\0"):
            if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], list)
                    and isinstance(value[1], dict) and all(isinstance(f, Finding) for f in value[0])):
                return False
        elif not (isinstance(value, FileResult) and isinstance(value.source, SourceFile) and isinstance(value.kind, str)
                  and isinstance(value.findings, list) and all(isinstance(f, Finding) for f in value.findings)
                  and isinstance(value.noqa, dict)):
            return False
    return True


def _code_fingerprint() -> str:
    """Changes whenever dslint's own code changes (a development install keeps one version)."""
    package = Path(__file__).resolve().parent
    digest = hashlib.blake2b(digest_size=6)
    for path in sorted(package.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_mtime_ns}:{stat.st_size};".encode())
    return digest.hexdigest()


@contextlib.contextmanager
def gc_paused():
    """No automatic cyclic GC inside the block.

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
            gc.enable()


GC_EVERY_FILES = 32  # an explicit young-generation collection this often, so memory stays flat


def _check_serially(sources: list[SourceFile], settings: Settings, overlay: Optional[dict] = None,
                    progress: Optional[Callable[[int], None]] = None, data: Optional[dict] = None) -> list[FileResult]:
    """`data`: abspath -> the bytes already read (and hashed for the cache key)."""
    results = []
    data = data if data is not None else _PREREAD
    with gc_paused():
        for count, source in enumerate(sources, start=1):
            results.append(check_file(source, settings, overlay, data.pop(source.abspath, None)))
            if progress:
                progress(1)
            if count % GC_EVERY_FILES == 0:
                gc.collect(1)
    return results


_WORKER_SETTINGS: Optional[Settings] = None
# The bytes read for the cache keys, inherited by the forked workers (not pickled to them).
_PREREAD: dict = {}


def _worker_init(settings: Settings) -> None:
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings


def _worker_chunk(batch: tuple[int, list[SourceFile]]) -> tuple[int, list[FileResult]]:
    number, sources = batch
    return number, _check_serially(sources, _WORKER_SETTINGS)


def check_files(sources: list[SourceFile], settings: Settings, *, jobs: Optional[int] = None,
                overlay: Optional[dict] = None, cache: Optional[ResultCache] = None,
                progress: Optional[Callable[[int], None]] = None) -> list[FileResult]:
    all_rules()
    results: list[Optional[FileResult]] = [None] * len(sources)
    todo: list[int] = []
    keys: dict[int, Optional[str]] = {}
    preread: dict[str, bytes] = {}  # a miss is linted on the very bytes its key hashes
    for index, source in enumerate(sources):
        if cache is not None and (overlay is None or source.abspath not in overlay):
            keys[index], data = cache.key_and_data(source)
            hit = cache.get(keys[index])
            if hit is not None:
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

        _import_checkers({sources[i].kind for i in todo})
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
            with context.Pool(jobs, initializer=_worker_init, initargs=(settings,)) as pool, gc_paused():
                work = [(number, [sources[i] for i in batch]) for number, batch in enumerate(batches)]
                received = pool.imap_unordered(_worker_chunk, work)
                for index, result in zip(local, _check_serially([sources[i] for i in local], settings, None, progress, preread)):
                    results[index] = result
                for number, batch_results in received:
                    for index, result in zip(batches[number], batch_results):
                        results[index] = result
                    if progress:
                        progress(len(batches[number]))
        finally:
            _PREREAD.clear()
    else:
        for index, result in zip(todo, _check_serially([sources[i] for i in todo], settings, overlay, progress, preread)):
            results[index] = result
    if cache is not None:
        for index in todo:
            results[index].cache_key = keys.get(index)
            cache.put(keys.get(index), results[index])
    return results  # type: ignore[return-value]


def _import_checkers(kinds: set) -> None:
    """Import the per-kind checkers once before forking, not once in every worker.

    The parent needs them anyway: it checks the launch and config files itself.
    """
    if "launch" in kinds:
        try:
            from .sources import launch  # noqa: F401
        except ImportError:
            pass
    if "dsconfig" in kinds:
        try:
            from .sources.dsconfig import _parser

            _parser()  # loads tree-sitter and its JSON grammar
        except Exception:  # the workers meet (and report) the same problem per file
            pass


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def build_project(root: Path, results: list[FileResult]) -> Project:
    project = Project(root=root)
    for result in results:
        path = result.source.path
        if result.kind in ("python", "module") and result.summary is not None:
            if result.kind == "python":
                project.scripts[path] = result.summary
            if result.summary.module is not None:
                project.modules[path] = result.summary.module
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
    from .rules.context import SetupContext
    from .rules.registry import DECIDERS, PROGRAM_CHECKS

    ctx = SetupContext(project=project, settings=settings)
    findings = []
    checks = [(rule, rule.check) for rule in _rules_of("setup", settings)]
    checks += [(RULES[code], check) for code, funcs in PROGRAM_CHECKS.items() if settings.is_enabled(code)
               for check in funcs]
    for rule, check in checks:
        try:
            for report in check(ctx):
                path = report.path or next(iter(project.scripts), "")
                lines = None if isinstance(report.target, Span) else _lines_for(project, path)
                findings.append(to_finding(rule, report, path, lines))
        except Exception as error:
            findings.append(_engine_finding(INTERNAL_ERROR, str(project.root),
                                            f"internal error in rule {rule.code} ({rule.name}): {type(error).__name__}: {error}"))
    for candidate in candidates:
        name, params = candidate.needs
        try:
            kept = DECIDERS[name](candidate, project, dict(params))
        except Exception as error:
            findings.append(_engine_finding(INTERNAL_ERROR, candidate.path,
                                            f"internal error deciding {candidate.code} ({name}): {type(error).__name__}: {error}"))
            continue
        if kept is not None:
            findings.append(replace(kept, needs=None))  # (the candidate may sit in a cache)
    return findings


def _lines_for(project: Project, path: str) -> Optional[LineIndex]:
    text = project.texts.get(path)
    return LineIndex(text) if text is not None else None


def _setup_findings(root: Path, project: Project, results: list[FileResult], settings: Settings,
                    cache: Optional[ResultCache]) -> list[Finding]:
    """The setup rules' findings; from the cache when exactly the same files were checked."""
    key = None
    if cache is not None and cache.path is not None:
        digest = hashlib.blake2b(str(root).encode(), digest_size=16)
        for result in results:
            digest.update((result.cache_key or f"uncached:{result.source.abspath}:{id(result)}").encode())
        key = f"\0setup\0{digest.hexdigest()}"
        cached = cache.get(key)
        # (findings, the other files the project phase read and their digests then)
        if isinstance(cached, tuple) and all(input_digest(path) == seen for path, seen in cached[1].items()):
            return cached[0]
    candidates = [f for r in results for f in r.findings if f.needs is not None]
    findings = run_setup_rules(project, settings, candidates)
    if key is not None:
        cache.put(key, (findings, dict(project.inputs)))
    return findings


def check(paths: list[str], settings: Settings, *, root: Optional[Path] = None, use_cache: bool = True,
          overlay: Optional[dict] = None, jobs: Optional[int] = None,
          progress_factory: Optional[Callable[[int], Callable[[int], None]]] = None,
          cache: Optional[ResultCache] = None) -> CheckResult:
    """Check `paths` and return the findings that survive select/ignore/noqa, sorted.

    `cache` replaces the on-disk cache with one the caller keeps (the language server keeps
    one in memory); the caller then owns saving it.
    """
    root = root or Path.cwd()
    # A path named explicitly that exists only in the overlay (an editor's unsaved new file) is checked too.
    unsaved = [p for p in paths if overlay and p in overlay and not os.path.exists(p)]
    skipped: list[str] = []
    sources, errors = discover([p for p in paths if p not in unsaved], settings, root, skipped=skipped)
    sources += [SourceFile(p, p, _kind_for(p)) for p in unsaved]
    owned = cache is None
    if owned:
        cache = ResultCache(root / ".dslint_cache", settings) if use_cache else None
    progress = progress_factory(len(sources)) if progress_factory else None
    results = check_files(sources, settings, jobs=jobs, overlay=overlay, cache=cache, progress=progress)
    summarise_imported_plain_modules(results, settings, cache, overlay)
    project = build_project(root, results)
    read_launched_plain_scripts(project, results, settings, overlay)
    findings = [f for r in results for f in r.findings if f.needs is None]
    findings += _setup_findings(root, project, results, settings, cache if overlay is None else None)
    if cache is not None and owned:
        cache.save()
    kept = filter_findings(findings, results, settings, overlay)  # select/ignore, per-file-ignores, noqa; DSL004
    kept.sort(key=Finding.sort_key)
    texts = {r.source.path: r.text for r in results if r.text is not None}
    internal = any(f.code == INTERNAL_ERROR for f in kept)
    return CheckResult(findings=kept, errors=errors, files=sum(1 for r in results if r.kind not in ("skipped", "module", PLAIN)),
                       internal_error=internal, texts=texts, project=project, skipped=skipped)


# -- fixing ----------------------------------------------------------------------------------

@dataclass
class FixOutcome:
    changed: dict  # abspath -> (old text, new text)
    applied: int
    dropped: list[str]  # one line per fix that would have broken its file
    remaining: CheckResult  # its `errors` include the files that could not be written
    skipped: list[str] = field(default_factory=list)  # "skipped PATH: why", one line per file left alone


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
    for _ in range(MAX_FIX_PASSES):
        result = check(paths, settings, root=root, use_cache=False, overlay=texts or None)
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
            kind = _kind_for(path)
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
                built, why = build_edits_or_reason(finding.fix, current)
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
    remaining = check(paths, settings, root=root, use_cache=False, overlay=None if write else (texts or None))
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
    bom = b"\xef\xbb\xbf" if before.data.startswith(b"\xef\xbb\xbf") else b""
    replace_if_unchanged(abspath, bom + text.encode("utf-8", "surrogatepass"), before)


def _kind_for(path: str) -> str:
    from .sources.discover import kind_of

    return kind_of(Path(path)) or "python"


def write_atomic(abspath: str, text: str) -> None:
    """Write via a temporary file and rename, keeping the file's mode, owner and BOM."""
    _write_fixed(abspath, text, None)
