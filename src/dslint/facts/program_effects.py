"""What a function does that the program around it asks about: it starts or joins a world of several
processes, it selects the process's GPU, it sets torch's thread count.

Computed in the per-file phase for every function and method of a module, and carried through the
module's own calls (`main()` calling `_init_dist()` of the same module does what `_init_dist()`
does; a method calling `self._setup()` what `_setup` does; `Trainer(...)` what `Trainer.__init__`
does). Calls into other modules are the program's to join (`program.py`, through the imports).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..sources.names import dotted
from .cuda import selects_device, set_device_sites
from .distributed import evidence_by_function
from .script import CallSite, ScriptFacts, literal

SET_NUM_THREADS = "torch.set_num_threads"


@dataclass
class Effects:
    multiprocess: Optional[tuple] = None  # (what, Span): evidence that it runs in several processes
    set_device_row: int = 0  # row of a set_device(<not a literal>) it reaches; 0: none
    selects_device: bool = False  # any call that selects the GPU (set_device, a framework that does)
    sets_num_threads: bool = False

    def merge(self, other: "Effects") -> bool:
        """Take what a callee does; True when something changed."""
        before = (self.multiprocess, self.set_device_row, self.selects_device, self.sets_num_threads)
        self.multiprocess = self.multiprocess or other.multiprocess
        self.set_device_row = self.set_device_row or other.set_device_row
        self.selects_device = self.selects_device or other.selects_device
        self.sets_num_threads = self.sets_num_threads or other.sets_num_threads
        return before != (self.multiprocess, self.set_device_row, self.selects_device, self.sets_num_threads)


def local_callee(facts: ScriptFacts, site: CallSite) -> Optional[ast.AST]:
    """The function of this module a call runs: `helper()`, `self.method()` inside the class,
    `Klass(...)` (its `__init__`); None for anything else."""
    func = site.node.func
    if isinstance(func, ast.Name):
        name = func.id
        if name in facts.functions:
            return facts.functions[name]
        if name in facts.classes:
            return facts.functions.get(f"{name}.__init__")
        return None
    if site.receiver == "self" and site.ctx.class_ is not None:
        return facts.functions.get(f"{site.ctx.class_.name}.{site.attr}")
    return None


def function_effects(facts: ScriptFacts) -> dict:
    """id(function node) -> Effects, for every function of the module that does one of these things
    (directly or through the module's own functions); built once per module."""
    return facts.derived("function_effects", _build)


def _build(facts: ScriptFacts) -> dict:
    effects: dict = {}

    def of(function) -> Effects:
        found = effects.get(id(function))
        if found is None:
            found = effects[id(function)] = Effects()
        return found

    set_device = {id(site.node) for site in set_device_sites(facts)}
    callees: dict = {}
    for site in facts.calls:
        function = site.ctx.function
        if function is None or isinstance(function, ast.Lambda):
            continue
        if selects_device(site):
            of(function).selects_device = True
            if id(site.node) in set_device and _not_a_literal(site.argument(0, "device")):
                of(function).set_device_row = of(function).set_device_row or site.node.lineno
        if site.qualname == SET_NUM_THREADS:
            of(function).sets_num_threads = True
        callee = local_callee(facts, site)
        if callee is not None and callee is not function:
            callees.setdefault(id(function), (function, []))[1].append(callee)
    functions = {id(f) for f in facts.functions.values()}
    for key, evidence in evidence_by_function(facts).items():
        if key in functions:
            effects.setdefault(key, Effects()).multiprocess = (evidence.what, facts.lines.span_of_node(evidence.node))
    for _ in range(8):  # helpers of helpers; a call chain in one module is short
        changed = False
        for function, called in callees.values():
            for callee in called:
                found = effects.get(id(callee))
                if found is not None and of(function).merge(found):
                    changed = True
        if not changed:
            break
    return {key: value for key, value in effects.items() if value != Effects()}


def _not_a_literal(arg: Optional[ast.AST]) -> bool:
    return arg is not None and literal(arg) is None


@dataclass(frozen=True)
class DeviceSelection:
    """A call after which the calling process's GPU is chosen (or may be: `kind` "imported").

    kind: "set_device" (a set_device(<not a literal>)), "literal" (set_device(0): DSL101's), "local" (a
    function of this module that reaches a set_device(<not a literal>)), "framework" (anything else that
    selects the GPU: deepspeed.initialize, Accelerator(), a local helper calling one), "imported" (a
    project function of another module: the program decides).
    """

    site: CallSite
    kind: str
    local: str = ""  # the name called (`init_distributed_mode`, `utils.setup`)
    row: int = 0  # "local": the row of the set_device it reaches


def device_selections(facts: ScriptFacts) -> dict:
    """id(function) (None: import time) -> the DeviceSelections of its own body, in source order."""
    return facts.derived("device_selections", _selections)


def _selections(facts: ScriptFacts) -> dict:
    effects = function_effects(facts)
    set_device = {id(site.node) for site in set_device_sites(facts)}
    out: dict = {}
    for site in facts.calls:
        function = site.ctx.function
        key = id(function) if function is not None else None
        found = None
        if id(site.node) in set_device:
            found = DeviceSelection(site, "set_device" if _not_a_literal(site.argument(0, "device")) else "literal")
        elif selects_device(site):
            found = DeviceSelection(site, "framework")
        else:
            callee = local_callee(facts, site)
            done = effects.get(id(callee)) if callee is not None and callee is not function else None
            if done is not None and done.set_device_row:
                found = DeviceSelection(site, "local", dotted(site.node.func) or site.attr, done.set_device_row)
            elif done is not None and done.selects_device:
                found = DeviceSelection(site, "framework", dotted(site.node.func) or site.attr)
            elif callee is None and _project_call(facts, site):
                found = DeviceSelection(site, "imported", f"{site.receiver}.{site.attr}" if site.receiver else site.attr)
        if found is not None:
            out.setdefault(key, []).append(found)
    for sites in out.values():
        sites.sort(key=lambda s: (s.site.node.lineno, s.site.node.col_offset))
    return out


def _project_call(facts: ScriptFacts, site: CallSite) -> bool:
    """A call of a name an import binds, not rooted in the standard library or a known framework
    (`from dist_utils import setup; setup()`, `utils.init()`): maybe a project function."""
    import sys

    from .module_summary import LIBRARIES

    head = site.receiver.split(".", 1)[0] if site.receiver else site.attr
    if site.receiver is None and not isinstance(site.node.func, ast.Name):
        return False
    names = facts.imports.names
    if head not in names:
        return False
    if head in facts.imports.relative:
        return True
    root = names[head].lstrip(".").split(".", 1)[0]
    return root not in LIBRARIES and root not in sys.stdlib_module_names
