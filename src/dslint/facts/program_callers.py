"""Who calls a module-level function from the other modules of the project, and in which grad mode."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .program import norm_path

if TYPE_CHECKING:
    from .program import ProgramIndex


def callers_with_grad(program: "ProgramIndex", path: str, name: str) -> Optional[list[bool]]:
    """For each other module that calls `name` of `path` (imported by name, maybe through a package
    that re-exports it, or called through its module: `flops.count(...)`): does one of its calls run
    with autograd on? None when a module imports it without calling it (it may pass it on, and the
    calls are then unseen)."""
    target = norm_path(path)
    modes = []
    for other, exports in program.modules.items():
        if other == target:
            continue
        bound = {local for ref in exports.imports for imported, local in ref.names
                 if imported == name and program.exports_from(program.module_file(other, ref.module, ref.level), name, target)}
        through_module = {local for local in exports.called
                          if local.rpartition(".")[2] == name and local.rpartition(".")[0]
                          and program.module_of(other, local.rpartition(".")[0]) == target}
        if not bound and not through_module:
            continue
        called = (bound | through_module) & set(exports.called)
        if bound - set(exports.called):
            return None
        modes.append(bool(called & set(exports.called_with_grad)))
    return modes
