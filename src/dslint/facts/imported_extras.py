"""A per-function fact of another module, found from the name a module imports it as (project phase).

Summary extractors (`summary.extra[key]`, a dict of top-level function name -> fact) state what a
function does; a caller knows it only by its local name (`from optim import optimizer_factory`,
`import optim` + `optim.optimizer_factory`, a package `__init__` re-exporting it). This follows the
import to the defining module without needing the function's FunctionSummary (the program layer
keeps only the summaries that state something of its own).
"""
from __future__ import annotations

from typing import Optional


def imported_extra(project, importer: str, local: str, key: str, depth: int = 0) -> Optional[tuple]:
    """(display path of the defining module, its `summary.extra[key][name]`) for the function the dotted
    `local` of `importer` names through an import, at most 3 re-exports deep; None otherwise."""
    program = project.program
    exports = program.modules.get(importer)
    if exports is None or depth > 3:
        return None
    head, _, rest = local.rpartition(".")
    for ref in exports.imports:
        if not head:
            name = next((name for name, bound in ref.names if bound == local), None)
            target = program.module_file(importer, ref.module, ref.level) if name else None
        elif not ref.names and ref.local == head.split(".")[0]:
            # `import a.b` binds a (a.b.f is a.b's f); `import a.b as c` binds c (c.f is a.b's f)
            name = rest
            target = program.module_file(importer, head if ref.local == ref.module.split(".")[0] else ref.module)
        elif "." not in head and any(bound == head for _, bound in ref.names):
            # `from pkg import optim` + `optim.f`
            module = next(name for name, bound in ref.names if bound == head)
            name = rest
            target = program.module_file(importer, f"{ref.module}.{module}" if ref.module else module, ref.level)
        else:
            continue
        if target is None:
            continue
        summary = project.scripts.get(target)
        found = (summary.extra.get(key) or {}).get(name) if summary is not None else None
        if found is not None:
            return target, found
        return imported_extra(project, target, name, key, depth + 1)
    return None
