"""Who calls a module-level function from the other modules of the project: in which grad mode,
and whether they leave a parameter at its default."""
from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Optional

from .program import norm_path

if TYPE_CHECKING:
    from .program import ProgramIndex


def _callers(program: "ProgramIndex", path: str, name: str):
    """(module, its exports, its local names for `name` of `path`, the names it imports without calling) for each
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
            yield other, exports, (bound | through_module) & set(exports.called), uncalled


def callers_of(program: "ProgramIndex", path: str, name: str) -> list[str]:
    """The other modules that call the module-level function `name` of `path`."""
    return [other for other, _, called, _ in _callers(program, path, name) if called]


def calls_leaving_default(program: "ProgramIndex", path: str, name: str, position: Optional[int],
                          parameter: str) -> Optional[int]:
    """How many calls of `name` of `path` from the other modules there are, when none of them binds
    `parameter` (the positional one at `position`, or by keyword); None when one may (a `**kwargs`
    included), or a module imports the function without calling it (it may pass it on)."""
    count = 0
    for _, exports, called, uncalled in _callers(program, path, name):
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
    for _, exports, called, uncalled in _callers(program, path, name):
        if uncalled:
            return None
        modes.append(bool(called & set(exports.called_with_grad)))
    return modes


def callers_may_freeze(program: "ProgramIndex", path: str, name: str) -> bool:
    """May a caller of `name` of `path` in another module have frozen the model it passes: it freezes a
    model itself, or calls a project function of a module that does (`freeze(teacher)` of utils), or
    imports `name` without calling it (it may pass it on)? False when no other module calls it."""
    for other, exports, called, uncalled in _callers(program, path, name):
        if uncalled or exports.freezes_models:
            return True
        for local in exports.called:
            if any(_defined_in(program, other, ref, local) for ref in exports.imports
                   for _, bound in ref.names if bound == local.partition(".")[0]):
                return True
    return False


def _defined_in(program: "ProgramIndex", importer: str, ref, local: str) -> bool:
    """Is the project name `local` that `importer` calls (bound by the import `ref`) a name of a module that
    freezes models (`from utils.torch_utils import freeze`, `torch_utils.freeze` of an imported module)?"""
    head, _, rest = local.partition(".")
    target = program.module_of(importer, head) if rest else None  # `utils.freeze(...)`: utils is a module
    if target is None:
        target = program.module_file(importer, ref.module, ref.level) if ref.module or ref.level else None
    helper = program.modules.get(target) if target is not None else None
    return helper is not None and helper.freezes_models


def pretrained_for_every_call(program: "ProgramIndex", path: str, name: str, parameter: str,
                              position: Optional[int]) -> bool:
    """Does every call of `name` (a class or function of `path`) from the other modules bind `parameter`
    (the positional one at `position`, or by keyword) to a `from_pretrained` model the caller never trains
    (ArgumentFact.pretrained), and is there one? False when a module imports it without calling it."""
    count = 0
    for other, exports, called, uncalled in _callers(program, path, name):
        if uncalled:
            return False
        for local in called:
            shapes = exports.call_shapes.get(local, ())
            fed = [c for c in exports.calls if c.local == local and any(
                _pretrained(program, other, a) and (a.keyword == parameter or position is not None and a.position == position)
                for a in c.arguments)]
            if len(fed) != len(shapes):
                return False
            count += len(fed)
    return count > 0


def _pretrained(program: "ProgramIndex", importer: str, argument) -> bool:
    """An untouched from_pretrained model: bound so in the caller, or returned so by the project
    function it was bound to (FunctionSummary.returns_pretrained)."""
    if argument.pretrained:
        return True
    if not argument.made_by:
        return False
    symbol = program.symbol(importer, argument.made_by)
    return symbol is not None and symbol.function is not None and symbol.function.returns_pretrained


MACHINE_DEFAULT = "machine"  # instance_field_default's answer for a field defaulting to the CPU count


def instance_field_default(project, path: str, name: str, position: int, parameter: str, field: str,
                           kinds: tuple = (int,)):
    """The default of `field` of the config object every caller in the other modules passes `name` of
    `path` as `parameter` (at `position`): each call gives a fresh instance of one project class
    (`build_loader(DataConfig())`) that leaves `field` alone (instance_arguments): the class's literal
    default (of one of `kinds`), or MACHINE_DEFAULT for `field(default_factory=os.cpu_count)`; None when a
    call passes something else, the classes differ, or a module imports the function without calling it."""
    from .instance_arguments import ANY_FIELD, FACTORY_PREFIX

    program = project.program
    answers = set()
    for other, exports, called, uncalled in _callers(program, path, name):
        summary = project.scripts.get(other)
        given = summary.extra.get("instance_arguments") if summary is not None else None
        if uncalled or given is None:
            return None
        for local in called:
            calls = given.get(local, ())
            if len(calls) != len(exports.call_shapes.get(local, ())):
                return None  # (a call that passes no project instance at all)
            for arguments in calls:
                found = [(klass, fields) for slot, klass, fields in arguments if slot in (position, parameter)]
                if len(found) != 1:
                    return None
                symbol = program.symbol(other, found[0][0])
                if symbol is None or symbol.klass is None:
                    return None
                fields = set(found[0][1])
                for made_by in [f for f in fields if f.startswith(FACTORY_PREFIX)]:
                    # (`Cfg.from_args(args)`: the fields that classmethod passes to `cls(...)`)
                    set_there = symbol.klass.factory_fields.get(made_by[len(FACTORY_PREFIX):])
                    if set_there is None:
                        return None
                    fields |= set(set_there)
                if field in fields or ANY_FIELD in fields:
                    return None
                if field in symbol.klass.machine_fields:
                    answers.add(MACHINE_DEFAULT)
                else:
                    value = symbol.klass.field_defaults.get(field)
                    if not isinstance(value, kinds) or isinstance(value, bool):
                        return None
                    answers.add(value)
    return answers.pop() if len(answers) == 1 else None
