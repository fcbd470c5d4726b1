"""Who calls a module-level function from the other modules of the project: in which grad mode,
and whether they leave a parameter at its default."""
from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Optional

from .program import norm_path

if TYPE_CHECKING:
    from .program import ProgramIndex


def _callers(program: "ProgramIndex", path: str, name: str):
    """(module, its local names for `name` of `path`, the names it imports without calling) for each
    other module that imports `name` of `path` (maybe through a package that re-exports it) or calls it
    through its module (`flops.count(...)`)."""
    target = norm_path(path)
    for other, exports in program.modules.items():
        if other == target:
            continue
        bound = {local for ref in exports.imports for imported, local in ref.names
                 if imported == name and program.exports_from(program.module_file(other, ref.module, ref.level), name, target)}
        through_module = {local for local in exports.called
                          if local.rpartition(".")[2] == name and local.rpartition(".")[0]
                          and program.module_of(other, local.rpartition(".")[0]) == target}
        if bound or through_module:
            uncalled = bound - set(exports.called)
            if uncalled and posixpath.basename(other) == "__init__.py":
                continue  # (a package that only re-exports it: the callers import it through the package)
            yield exports, (bound | through_module) & set(exports.called), uncalled


def calls_leaving_default(program: "ProgramIndex", path: str, name: str, position: Optional[int],
                          parameter: str) -> Optional[int]:
    """How many calls of `name` of `path` from the other modules there are, when none of them binds
    `parameter` (the positional one at `position`, or by keyword); None when one may (a `**kwargs`
    included), or a module imports the function without calling it (it may pass it on)."""
    count = 0
    for exports, called, uncalled in _callers(program, path, name):
        if uncalled:
            return None
        for local in called:
            for given, keywords, star in exports.call_shapes.get(local, ((0, (), True),)):
                if star or parameter in keywords or (position is not None and given > position):
                    return None
                count += 1
    return count


def callers_with_grad(program: "ProgramIndex", path: str, name: str) -> Optional[list[bool]]:
    """For each other module that calls `name` of `path` (imported by name, maybe through a package
    that re-exports it, or called through its module: `flops.count(...)`): does one of its calls run
    with autograd on? None when a module imports it without calling it (it may pass it on, and the
    calls are then unseen)."""
    modes = []
    for exports, called, uncalled in _callers(program, path, name):
        if uncalled:
            return None
        modes.append(bool(called & set(exports.called_with_grad)))
    return modes
