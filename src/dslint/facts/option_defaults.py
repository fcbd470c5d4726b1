"""Values that are the default of a command-line option, against the launch line that starts the script.

`Trainer(num_nodes=args.nodes)` with `--nodes` defaulting to 1, `set_device(args.local_rank)` with
`--local_rank` defaulting to `int(os.environ.get("LOCAL_RANK", 0))`: what the script gets is the default
unless the launch line passes the option. The script side (`option_default`) says which options a value
takes its default from; the linker (`launched_value`) reads the launch line's arguments.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional

from .values import UNKNOWN, argparse_source, option_on_command_line, traced_constant


@dataclass(frozen=True)
class OptionDefault:
    value: Any  # the value with every option at its default
    options: tuple  # the option strings it went through (`("--nodes", "-n")`)
    direct: bool  # the value is the option itself (`args.nodes`), not computed from it (`args.nodes * 2`)


def option_default(model, expr: Optional[ast.AST]) -> Optional[OptionDefault]:
    """The OptionDefault of `expr` when it goes through command-line options with defaults dslint
    knows (argparse, click, typer, fire: values.traced_constant); None otherwise."""
    if expr is None:
        return None
    traced = traced_constant(model, expr)
    if not traced.options or traced.value is UNKNOWN:
        return None
    return OptionDefault(traced.value, traced.options, argparse_source(model, model.value_of(expr)) is not None)


def launched_int(args: list, default: Any, options: tuple, direct: bool) -> Optional[int]:
    """The int a value taken from `options` has when the script runs with `args` (the launch line's
    ShellArgs of the script): `default` when the line passes none of them, the passed value when `direct`,
    None when the line passes one otherwise or may pass one dslint cannot read (`"$@"`)."""
    given, text = option_on_command_line(args, options)
    if given is False:
        return default if isinstance(default, int) and not isinstance(default, bool) else None
    if given and direct and text is not None and text.strip().lstrip("-").isdigit():
        return int(text)
    return None


def option_passed(args: list, options: tuple) -> Optional[bool]:
    """Does the launch line pass one of `options` (None: it may, through a word dslint cannot read)?"""
    return option_on_command_line(args, options)[0]


def launcher_passes(launchers: list, options: tuple) -> bool:
    """Does the launcher of a chain (`command.launchers`) pass one of the script's `options` itself?
    torch.distributed.launch (without --use-env) and deepspeed add `--local-rank=<i>` / `--local_rank=<i>`
    to each process's argv (launchers.passed_local_rank), so an option of that name gets a per-process
    value, whatever its default. (A script that knows only the other spelling exits at argparse: not a
    default either.)"""
    from ..sources.launch.launchers import passed_local_rank

    words = {w.replace("_", "-") for w in passed_local_rank(launchers)}
    return any(o.replace("_", "-") in words for o in options)


def launches_pass_itself(project: Any, path: str, options: tuple) -> bool:
    """Does a launch line that starts a program `path` runs in have a launcher that passes one of
    `options` to the script itself (`launcher_passes`)? False when no launch line starts it."""
    from .link import link_setups
    from .program import norm_path

    if not options:
        return False
    entries = {norm_path(p) for p in project.program.programs_of(path)} or {norm_path(path)}
    return any(setup.launch_path is not None and setup.command is not None
               and norm_path(setup.script_path) in entries and launcher_passes(setup.command.launchers, options)
               for setup in link_setups(project))
