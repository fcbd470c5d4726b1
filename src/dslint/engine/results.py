"""What the engine hands back: per-file and whole-run results, and its own findings (DSL001-003)."""
from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..facts.setup import Project
from ..model import Finding, Span
from ..rules.registry import RULES, Report, Rule
from ..sources.discover import SourceFile
from ..textpos import LineIndex


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
    note: Optional[str] = None  # "skipped PATH:ROW: why", a file not checked for a reason that is not its fault



@dataclass
class CheckResult:
    findings: list[Finding]
    errors: list[str]  # one line each: paths that could not be checked at all
    files: int
    internal_error: bool = False
    texts: dict = field(default_factory=dict)  # display path -> text, for the code frames
    project: Optional[Project] = None  # every file's facts, linked (for --show-setup)
    skipped: list[str] = field(default_factory=list)  # "skipped PATH: why": FIFOs, unreadable folders



def _whole_file() -> Span:
    from ..model import Location

    return Span(Location(1, 1), Location(1, 1), 0, 0)



def engine_finding(code: str, path: str, message: str, span: Optional[Span] = None) -> Finding:
    rule = RULES[code]
    return Finding(code=code, message=message, path=path, span=span or _whole_file(),
                   severity=rule.severity, name=rule.name)



def internal_error_line(error: BaseException) -> str:
    """One line naming the exception and where dslint raised it (never a traceback)."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" [{Path(frames[-1].filename).name}:{frames[-1].lineno}]" if frames else ""
    detail = " ".join(str(error).split())[:200]
    return f"internal error while checking this file: {type(error).__name__}: {detail}{where}; please report it"



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
