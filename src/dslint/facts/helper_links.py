"""The DeepSpeed config a project function of another module builds for the script (project phase):
the linking half of facts/helper_setups.py, whose per-module facts (`deepspeed_args`, `returns_plugin`)
it reads from the program."""
from __future__ import annotations

from .config_dicts import NotLiteral, Param, bind_arguments
from .module_summary import NO_VALUE
from .script_setup import ConfigRef


def helper_config_ref(project, setup):
    """The ConfigRef of the DeepSpeed config a project function called by the script builds, or None:
    "argument" for the script's parse_args() namespace passed where `deepspeed.initialize` reads the config
    from it (the script's option of that dest, with its default), "plugin" for the one Accelerator a factory
    returns."""
    facts = setup.facts
    program = project.program
    engines, plugins = [], {}
    for call in facts.helper_calls:
        found = program.function_called(setup.script_path, call.local)
        if found is None:
            continue
        symbol, function = found
        if call.namespaces and function.deepspeed_args is not None and not call.skipped and symbol.function is function:
            param, dest = function.deepspeed_args
            options = tuple(o for o, (d, _) in facts.argparse_options.items() if d == dest)
            default = next((value for d, value in facts.argparse_options.values() if d == dest and value), None)
            position = function.params.index(param) if param in function.params else None
            if options and any((p is not None and p == position) or k == param for p, k in call.namespaces):
                engines.append(ConfigRef("argument", "deepspeed", f"args.{dest} ({call.local}(...) in {symbol.path} "
                                         "passes it to deepspeed.initialize)", call.span, path=default,
                                         options=options))
        if function.returns_plugin is not None and symbol.function is function:
            plugins[(symbol.path, function.returns_plugin[0])] = (call, function)
    if engines:
        return engines[0]
    if len(plugins) != 1 or facts.accelerate:
        return None
    call, function = next(iter(plugins.values()))
    if call.skipped or sum(1 for c in facts.helper_calls if c.local == call.local) != 1:
        return None
    bound = bind_arguments(function.params, function.kwonly, function.defaults, call.arguments, dict(call.keywords),
                           NO_VALUE)
    if bound is None:
        return None
    keywords = []
    for name, value, _ in function.returns_plugin[1]:
        if isinstance(value, Param):
            value = bound.get(value.name, NotLiteral(value.name))
        # (the keyword is written in the helper's module: findings point at the call in the script)
        keywords.append((name, value, call.span))
    return ConfigRef("plugin", "accelerate", f"DeepSpeedPlugin(...) that {call.local}() returns", call.span,
                     keywords=tuple(keywords))
