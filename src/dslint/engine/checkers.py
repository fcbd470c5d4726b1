"""One file: read it, parse it once, build its facts and run its per-file rules.

Any exception while checking a file becomes one DSL003 finding for that file.
"""
from __future__ import annotations

import ast
import re
import sys
import traceback
from pathlib import Path
from typing import Optional

from ..model import Applicability, Finding
from ..rules.registry import Rule, all_rules
from ..settings import Settings
from ..sources.discover import SourceFile
from ..sources.files import NotRegularFile, TooLarge, decode_text, read_regular
from ..sources.newer_syntax import newer_syntax
from ..textpos import LineIndex
from .results import (
    INTERNAL_ERROR,
    SYNTAX_ERROR,
    UNREADABLE,
    FileResult,
    engine_finding,
    internal_error_line,
    to_finding,
)
from .suppression import parse_noqa

_FRAMEWORK_WORD_LIST = ("torch", "deepspeed", "lightning", "accelerate", "transformers")
FRAMEWORK_WORDS = re.compile("|".join(_FRAMEWORK_WORD_LIST).encode())



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
        text = decode_text(data, source.kind == "python")
    except UnicodeDecodeError as error:
        row = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        return None, f"not valid UTF-8 at line {row}, column {column} (byte 0x{data[error.start]:02x})", data
    return text, None, data



_RULES_OF: dict = {}  # (kind, registered rules) -> its rules



def rules_of(kind: str, settings: Settings) -> list[Rule]:
    """Every rule of one kind, whatever the selection: the cache keeps one file's results for all
    selections, and select/ignore apply afterwards (suppression.filter_findings)."""
    rules = all_rules()
    key = (kind, tuple(map(id, rules.values())))
    found = _RULES_OF.get(key)
    if found is None:
        if len(_RULES_OF) > 64:  # rules registered anew (tests) must not grow it
            _RULES_OF.clear()
        found = _RULES_OF[key] = [r for r in rules.values() if r.kind == kind]
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
            findings.append(engine_finding(
                INTERNAL_ERROR, path,
                f"internal error in rule {rule.code} ({rule.name}): {type(error).__name__}: {error} "
                f"[{Path(where.filename).name}:{where.lineno}]; please report it"))
    return findings


def check_file(source: SourceFile, settings: Settings, overlay: Optional[dict] = None,
               data: Optional[bytes] = None, edits=False) -> FileResult:
    """Parse one file and run its per-file rules (on `data` when the caller already read it).
    With `edits` (see wants_edits), also build its fixes' edits here, where its text already is.

    Any exception becomes one DSL003 finding for this file: the other files' results stay.
    """
    try:
        return _check_one_file(source, settings, overlay, data, edits)
    except Exception as error:  # RecursionError and MemoryError included
        return FileResult(source, source.kind, [engine_finding(INTERNAL_ERROR, source.path, internal_error_line(error))])



def _check_one_file(source: SourceFile, settings: Settings, overlay: Optional[dict], data: Optional[bytes],
                    edits=False) -> FileResult:
    text, error, data = read_text(source, settings, overlay, data)
    if error is not None:
        if source.kind == "dsconfig" and not _json_worth_reporting(source.path, data):
            return FileResult(source, "skipped")
        return FileResult(source, source.kind, [engine_finding(UNREADABLE, source.path, error)])
    if source.kind == "python":
        result = check_python(source, text, settings)
    elif source.kind == "dsconfig":
        result = _check_config(source, text, settings)
    else:
        result = _check_launch(source, text, settings)
    wanted = [f for f in result.findings if wants_edits(f, settings, edits)] if edits else []
    if wanted:
        from ..fixes import attach_edits

        attach_edits(wanted, text, source.path)
    return result



def wants_edits(finding: Finding, settings: Settings, edits) -> bool:
    """Does a run that asks for `edits` (True: every fix, "safe": the safe ones) need this
    finding's edits? Only a selected rule's (the results hold every rule's findings). A candidate
    that waits for the project phase is built only for a report of every fix, so that it is
    cached too; `fix` builds the few it keeps when it applies them."""
    if finding.fix is None or not settings.is_enabled(finding.code):
        return False
    if edits == "safe":
        return finding.needs is None and finding.fix.applicability == Applicability.SAFE
    return True



def check_python(source: SourceFile, text: str, settings: Settings, prefilter: bool = True) -> FileResult:
    from ..facts.script import build_script_facts
    from ..facts.summary import summarize
    from ..rules.context import PythonContext

    if prefilter and not any(word in text for word in _FRAMEWORK_WORD_LIST):  # (FRAMEWORK_WORDS' answer, no encoding)
        return FileResult(source, PLAIN)  # summarised later if a checked module imports it
    noqa, file_noqa = parse_noqa(text)
    result = FileResult(source, "python", noqa=noqa, file_noqa=file_noqa)
    try:
        tree = ast.parse(text, filename=source.path)
    except SyntaxError as error:
        lines = LineIndex(text)
        row = max(1, min(error.lineno or 1, len(lines.line_starts)))
        column = max(1, error.offset or 1)
        newer = newer_syntax(lines.line(row))
        if newer is not None:
            version = ".".join(map(str, sys.version_info[:2]))
            return FileResult(source, "skipped", note=f"skipped {source.path}:{row}: it uses {newer}, which Python "
                                                      f"{version} cannot parse; run dslint with a newer Python")
        start = lines.offset(row, column)
        result.findings.append(engine_finding(
            SYNTAX_ERROR, source.path, f"syntax error: {error.msg}", lines.span(start, start)))
        return result
    except (ValueError, RecursionError, MemoryError) as error:
        result.findings.append(engine_finding(SYNTAX_ERROR, source.path, f"cannot parse: {error}"))
        return result
    facts = build_script_facts(source.path, text, tree)
    ctx = PythonContext(facts=facts, settings=settings)
    result.findings = _run_rules(rules_of("python", settings), ctx, source.path, facts.lines)
    if any(f.fix is not None for f in result.findings):
        from ..fixes import remember_tree

        remember_tree(text, tree)  # (the fixes' windows read this parse, not a second one)
    try:
        result.summary = summarize(facts)
    except Exception as error:  # linking loses this script, the per-file findings stay
        result.findings.append(engine_finding(INTERNAL_ERROR, source.path, f"internal error while summarising: {error!r}"))
    drop_caches(facts)
    return result



PLAIN_MODULE_MAX_CHARS = 2_000_000



PLAIN = "plain"  # a Python file without framework words: no rule reads it



def imported_plain_module(source: SourceFile, settings: Settings, overlay: Optional[dict] = None,
                          data: Optional[bytes] = None) -> FileResult:
    """A module without framework words that a checked module imports: checked in full, its rules
    and its summary (it runs in that module's program); on `data` when already read."""
    text, _, _ = read_text(source, settings, overlay, data)
    if text is None or len(text) > PLAIN_MODULE_MAX_CHARS:
        return FileResult(source, "skipped")
    try:
        result = check_python(source, text, settings, prefilter=False)
    except Exception as error:  # a crash in the facts layer: said once, the other files go on
        return FileResult(source, "skipped", [engine_finding(INTERNAL_ERROR, source.path, internal_error_line(error))])
    # (one that does not parse is not ours to report: the prefilter had skipped it)
    return result if result.summary is not None else FileResult(source, "skipped")


def drop_caches(facts) -> None:
    """Forget what rules cached on the facts (`facts._distributed`, ...).

    Those caches point back at the facts, a cycle that kept each file's whole `ast` alive until
    a cyclic GC pass found it; dropping them lets reference counting free the file at once.
    """
    fields = type(facts).__dataclass_fields__
    for name in [n for n in vars(facts) if n not in fields]:
        delattr(facts, name)



def _json_worth_reporting(path: str, data: bytes) -> bool:
    """A broken JSON file is reported only when it is evidently meant as a DeepSpeed config: named
    so, or holding a DeepSpeed key as a key (`"train_batch_size": ...`, not inside a string value:
    a data file that quotes a command line), and not JSON lines (one value per line: data)."""
    from ..sources.dsconfig import _STRONG_MARKERS

    name = Path(path).name.lower()
    if "deepspeed" in name or name.startswith("ds_"):
        return True
    if _json_lines(data):
        return False
    return any(re.search(rb'"' + m.encode() + rb'"\s*:', data) for m in _STRONG_MARKERS if m.encode() in data)


def _json_lines(data: bytes) -> bool:
    """Does the file hold one complete JSON value per line (its first two lines, at least)?"""
    import json

    lines = [line for line in data.split(b"\n", 3)[:3] if line.strip()]
    if len(lines) < 2:
        return False
    try:
        return all(isinstance(json.loads(line), (dict, list)) for line in lines[:2])
    except (ValueError, RecursionError):
        return False



def _check_config(source: SourceFile, text: str, settings: Settings) -> FileResult:
    from ..sources.dsconfig import JsonError, deepspeed_config_kind, parse_json

    try:
        doc = parse_json(source.path, text, keep=deepspeed_config_kind)
    except JsonError as error:
        if not _json_worth_reporting(source.path, text.encode("utf-8", "surrogatepass")):
            return FileResult(source, "skipped")
        lines = LineIndex(text)
        start = lines.offset(error.row, error.column)
        return FileResult(source, "dsconfig", [engine_finding(
            SYNTAX_ERROR, source.path, f"{error} (DeepSpeed cannot load this config)", lines.span(start, start))], text=text)
    except RecursionError:
        return FileResult(source, "skipped")
    if doc is None:
        return FileResult(source, "skipped")
    if deepspeed_config_kind(source.path, doc.value) == "doubtful":
        doc.doubtful = True  # checked only if a setup links it as its DeepSpeed config (linked_configs.py)
        return FileResult(source, "skipped", summary=doc, text=text)
    return check_config_doc(source, doc, text, settings)


def check_config_doc(source: SourceFile, doc, text: str, settings: Settings) -> FileResult:
    """The per-file config rules on a parsed DeepSpeed config."""
    from ..rules.context import ConfigContext

    ctx = ConfigContext(doc=doc, settings=settings)
    findings = _run_rules(rules_of("dsconfig", settings), ctx, source.path, doc.lines)
    return FileResult(source, "dsconfig", findings, summary=doc, text=text)



def _check_launch(source: SourceFile, text: str, settings: Settings) -> FileResult:
    from ..rules.context import LaunchContext

    try:
        from ..sources.launch import parse_launch_file
    except ImportError:
        return FileResult(source, "skipped")
    launch = parse_launch_file(text, source.path)
    noqa, file_noqa = parse_noqa(text)
    ctx = LaunchContext(path=source.path, text=text, launch=launch, settings=settings)
    findings = _run_rules(rules_of("launch", settings), ctx, source.path, LineIndex(text))
    return FileResult(source, "launch", findings, summary=launch, text=text, noqa=noqa, file_noqa=file_noqa)



def kind_for(path: str) -> str:
    from ..sources.discover import kind_of

    return kind_of(Path(path)) or "python"
