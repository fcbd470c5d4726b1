"""The rule catalogue: every rule registers itself here with its metadata.

A rule is a small function over shared facts (pyupgrade/TorchFix style). It yields `Report`s;
the engine turns them into `Finding`s with the rule's code, name, severity and the path.

    @python_rule("DSL102", "torch-load-without-map-location", fix=Applicability.SAFE)
    def torch_load_without_map_location(ctx: PythonContext) -> Iterator[Report]:
        ...

Kinds of rule, by what they read:
- python:   one script's facts (`PythonContext`), run where the file is parsed (maybe a worker)
- dsconfig: one DeepSpeed config (`ConfigContext`)
- launch:   one launch script (`LaunchContext`)
- setup:    the linked training setup across files (`SetupContext`), run once per check
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional, Union

from ..model import Applicability, Fix, Severity, Span
from ..messages import file_label, short  # noqa: F401  (re-exported: the rules name user values with them)

FAMILIES = {
    "0": "dslint",
    "1": "device-placement",
    "2": "host-threads-offload",
    "3": "distributed-setup",
    "4": "memory",
    "5": "collectives-hangs",
    "6": "deepspeed-config",
    "7": "launch",
    "9": "probe",
}


@dataclass
class Report:
    """What a rule found: where (an ast node or a Span), what, and how to fix it."""

    target: Union[ast.AST, Span]
    message: str
    fix: Optional[Fix] = None
    path: Optional[str] = None  # only setup rules, which may report in any file of the setup
    related: list = field(default_factory=list)  # (path, Span, note)
    code: Optional[str] = None  # a rule that owns several codes may name one
    # A contextual finding: kept only if the project phase's decider agrees, once every module
    # is known. (decider name, ((key, value), ...)); see `decider`.
    needs: Optional[tuple] = None


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    kind: str  # python | dsconfig | launch | setup
    check: Callable[..., Iterable[Report]]
    severity: Severity = Severity.WARNING
    fix: Optional[Applicability] = None

    @property
    def family(self) -> str:
        return FAMILIES.get(self.code[3], "other")

    @property
    def url(self) -> str:
        return f"https://github.com/dslint/dslint/blob/main/rules/{self.code}.md"


RULES: dict[str, Rule] = {}


def _register(kind: str, code: str, name: str, severity: Severity, fix: Optional[Applicability]):
    def decorator(func):
        if code in RULES:
            raise ValueError(f"rule code {code} registered twice")
        RULES[code] = Rule(code=code, name=name, kind=kind, check=func, severity=severity, fix=fix)
        return func

    return decorator


def python_rule(code: str, name: str, *, severity: Severity = Severity.WARNING, fix: Optional[Applicability] = None):
    return _register("python", code, name, severity, fix)


def config_rule(code: str, name: str, *, severity: Severity = Severity.WARNING, fix: Optional[Applicability] = None):
    return _register("dsconfig", code, name, severity, fix)


def launch_rule(code: str, name: str, *, severity: Severity = Severity.WARNING, fix: Optional[Applicability] = None):
    return _register("launch", code, name, severity, fix)


def setup_rule(code: str, name: str, *, severity: Severity = Severity.WARNING, fix: Optional[Applicability] = None):
    return _register("setup", code, name, severity, fix)


# Project-phase parts of per-file rules: they read the linked program (`SetupContext`).
PROGRAM_CHECKS: dict[str, list] = {}
DECIDERS: dict[str, Callable] = {}


def program_check(code: str):
    """Register `func(ctx: SetupContext) -> Iterable[Report]` as the cross-module part of the
    already registered rule `code` (reports name their path)."""
    def decorator(func):
        PROGRAM_CHECKS.setdefault(code, []).append(func)
        return func

    return decorator


def decider(name: str):
    """Register `func(finding, project, params: dict) -> Optional[Finding]` deciding the contextual
    findings whose `needs` names it: the finding (maybe reworded) to keep it, None to drop it."""
    def decorator(func):
        if name in DECIDERS:
            raise ValueError(f"decider {name} registered twice")
        DECIDERS[name] = func
        return func

    return decorator


def decide_then(finding, project, then: Optional[tuple]):
    """The decision a finding needs besides the one a decider just made (`("then", needs)` of its params): that
    decider's answer, or the finding itself when nothing else is needed."""
    return DECIDERS[then[0]](finding, project, dict(then[1])) if then else finding


def declare(code: str, name: str, *, kind: str = "engine", severity: Severity = Severity.ERROR,
            fix: Optional[Applicability] = None) -> None:
    """A code emitted by the engine itself (syntax errors, unreadable files, rule crashes, unused noqa)."""
    RULES[code] = Rule(code=code, name=name, kind=kind, check=lambda ctx: (), severity=severity, fix=fix)


def all_rules() -> dict[str, Rule]:
    from . import load_all

    load_all()
    return RULES
