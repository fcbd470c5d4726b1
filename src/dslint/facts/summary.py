"""A script's facts as plain, picklable data, for linking it with configs and launch lines.

Per-file rules read the full `ScriptFacts` (with the `ast`), but the setup rules run after
every file is parsed, possibly in other processes, so what they need is copied out here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..model import Span
from .distributed import distributed_facts
from .module_summary import ModuleExports, summarise_module
from .script import ScriptFacts


@dataclass
class ScriptSummary:
    path: str
    multiprocess: bool = False
    multiprocess_evidence: list[str] = field(default_factory=list)
    framework_places_devices: Optional[str] = None
    framework_shards_data: Optional[str] = None
    # Extra facts that setup rules add through `summary_extractor`s: name -> plain data.
    extra: dict = field(default_factory=dict)
    # What the module offers the program (imports, function and class summaries, project calls).
    module: Optional[ModuleExports] = None
    framework: bool = True  # False: a project module that mentions no framework (no rules ran on it)


SUMMARY_EXTRACTORS: dict = {}


def summary_extractor(name: str):
    """Register `func(facts: ScriptFacts) -> plain data` stored as `summary.extra[name]`."""

    def decorator(func):
        SUMMARY_EXTRACTORS[name] = func
        return func

    return decorator


def summarize(facts: ScriptFacts) -> ScriptSummary:
    dist = distributed_facts(facts)
    summary = ScriptSummary(
        path=facts.path,
        multiprocess=dist.is_multiprocess,
        multiprocess_evidence=[e.what for e in dist.multiprocess_evidence],
        framework_places_devices=dist.framework_places_devices,
        framework_shards_data=dist.framework_shards_data,
    )
    for name, extract in SUMMARY_EXTRACTORS.items():
        summary.extra[name] = extract(facts)
    summary.module = summarise_module(facts)
    return summary


def summarize_plain_module(facts: ScriptFacts) -> ScriptSummary:
    """A module that mentions no framework: only what it offers the program (constants, classes)."""
    return ScriptSummary(path=facts.path, module=summarise_module(facts), framework=False)


def span_of(facts: ScriptFacts, node) -> Span:
    return facts.lines.span_of_node(node)
