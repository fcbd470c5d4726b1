"""The options a script's own argparse parser accepts, when every one of them is in sight.

A launcher that adds words to each process's command line (`--local_rank=<i>` from `deepspeed`,
`--local-rank=<i>` from `python -m torch.distributed.launch` since PyTorch 2.0) ends the run at
argument parsing when the script's parser does not take them ("error: unrecognized arguments").
Whether it takes them is known only when the whole parser is: one `argparse.ArgumentParser()`
bound once, parsed with `parse_args()` of the process's own argv, whose every use is one of its
own methods (options with literal strings, argument groups of it) or `deepspeed.add_config_arguments`;
no `parents=`, no sub-parsers, no `parse_known_args` anywhere in the module (that one accepts
anything). Anything else (the parser handed to a project function, options built in a loop,
HfArgumentParser's dataclass fields, click, fire) is unknown: None.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..model import Span
from .bindings import semantic_model
from .script import ScriptFacts, literal

_PARSER = "argparse.ArgumentParser"
# what deepspeed/__init__.py add_config_arguments adds (a group of the parser it is given)
_ADDED_BY = {"deepspeed.add_config_arguments": ("--deepspeed", "--deepspeed_config", "--deepscale",
                                                 "--deepscale_config")}
_OWN_METHODS = frozenset({"add_argument", "parse_args", "set_defaults", "print_help", "print_usage", "error",
                          "format_help", "format_usage", "get_default", "exit", "add_argument_group",
                          "add_mutually_exclusive_group", "register"})
_GROUP_METHODS = ("add_argument_group", "add_mutually_exclusive_group")


@dataclass(frozen=True)
class ParsedOptions:
    options: tuple  # every option string the parser takes (`--local_rank`, `-b`)
    abbrev: bool  # ArgumentParser(allow_abbrev=...): a unique prefix of a long option counts
    span: Span  # the parse_args() call

    def accepts(self, word: str) -> bool:
        """Does `--local-rank=3` (the option part of `word`) parse as one of the options?"""
        name = word.partition("=")[0]
        if name in self.options:
            return True
        return self.abbrev and name.startswith("--") and sum(1 for o in self.options if o.startswith(name)) == 1


def parsed_options(facts: ScriptFacts) -> Optional[ParsedOptions]:
    if not facts.method_calls("parse_args") or facts.method_calls("parse_known_args") or \
            facts.method_calls("parse_known_intermixed_args"):
        return None
    sites = facts.method_calls("parse_args")
    if len(sites) != 1 or not isinstance(sites[0].node.func, ast.Attribute):
        return None
    model = semantic_model(facts)
    if not _own_argv(model, sites[0].node):
        return None
    parser = _parser_of(model, sites[0].node.func.value)
    if parser is None:
        return None
    bindings, made, options = parser
    keywords = {k.arg: k.value for k in made.keywords}
    if None in keywords or "parents" in keywords or "prefix_chars" in keywords or made.args[2:]:
        return None
    abbrev = literal(keywords["allow_abbrev"]) if "allow_abbrev" in keywords else True
    if not isinstance(abbrev, bool):
        return None
    holders = [h for binding in bindings for h in (binding, *_groups(model, binding))]
    for holder in holders:
        if holder is None:
            return None
        for use in model.uses_of(holder):
            added = _use(model, use)
            if added is None:
                return None
            options += added
    return ParsedOptions(tuple(dict.fromkeys(options)), abbrev, facts.lines.span_of_node(sites[0].node))


def _parser_of(model, expr: ast.AST, depth: int = 0) -> Optional[tuple]:
    """([its bindings], the `argparse.ArgumentParser(...)` call, [options added on the way]) of a name
    bound to a parser: `parser = argparse.ArgumentParser()`, then maybe `parser =
    deepspeed.add_config_arguments(parser)` (which adds its group and returns the same parser)."""
    if not isinstance(expr, ast.Name) or depth > 3:
        return None
    binding = model.binding_of(expr)
    if binding is None or binding.kind != "assignment" or binding.index or len(model.reaching(expr.id, expr)) != 1:
        return None
    made = binding.value
    if not isinstance(made, ast.Call):
        return None
    name = model.resolve(made.func)
    if name == _PARSER:
        return [binding], made, []
    if name in _ADDED_BY and len(made.args) == 1 and not made.keywords:
        inner = _parser_of(model, made.args[0], depth + 1)
        if inner is not None:
            return [*inner[0], binding], inner[1], [*inner[2], *_ADDED_BY[name]]
    return None


def _groups(model, parser) -> list:
    """The bindings of `group = parser.add_argument_group(...)` (None for a group used otherwise)."""
    out = []
    for use in model.uses_of(parser):
        call = model.parent_of(model.parent_of(use))
        attribute = model.parent_of(use)
        if isinstance(attribute, ast.Attribute) and attribute.attr in _GROUP_METHODS and isinstance(call, ast.Call):
            holder = model.parent_of(call)
            if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
                bindings = model._bindings_of_statement(holder)
                out.append(bindings[0] if len(bindings) == 1 else None)
            elif not isinstance(holder, ast.Expr):
                out.append(None)  # (a group handed on or used in place: its options are not counted)
    return out


def _use(model, use: ast.Name) -> Optional[list]:
    """The option strings one use of the parser (or a group of it) adds; None when it may add any."""
    attribute = model.parent_of(use)
    call = model.parent_of(attribute) if isinstance(attribute, ast.Attribute) else attribute
    if isinstance(attribute, ast.Attribute) and isinstance(call, ast.Call) and call.func is attribute:
        if attribute.attr not in _OWN_METHODS:
            return None
        if attribute.attr != "add_argument":
            return []
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        strings = [literal(a) for a in call.args]
        if not all(isinstance(s, str) for s in strings):
            return None
        return [s for s in strings if s.startswith("-")]
    if isinstance(attribute, ast.Call) and use in attribute.args:  # `deepspeed.add_config_arguments(parser)`
        if (model.resolve(attribute.func) or "") in _ADDED_BY:
            return list(_ADDED_BY[model.resolve(attribute.func)])
        return None
    return None  # (stored, returned, bound again: its options are out of sight)


def _own_argv(model, call: ast.Call) -> bool:
    """parse_args(), parse_args(sys.argv[1:]), or parse_args(argv) of a parameter `argv=None` (what
    `get_args()` is called with): the process's own command line."""
    if call.keywords or len(call.args) > 1:
        return False
    if not call.args:
        return True
    arg = call.args[0]
    if isinstance(arg, ast.Name):
        binding = model.binding_of(arg)
        return binding is not None and binding.kind == "parameter" and \
            isinstance(binding.default, ast.Constant) and binding.default.value is None
    return ast.unparse(arg) == "sys.argv[1:]"


def parser_function(facts: ScriptFacts) -> Optional[tuple]:
    """(the module-level function holding it, ParsedOptions) of a module whose one parser is parsed in
    one of its functions (`def get_args(): ...; return parser.parse_args()`), for another module that
    calls it (DSL705); None otherwise."""
    found = parsed_options(facts) if facts.method_calls("parse_args") else None
    if found is None:
        return None
    function = facts.method_calls("parse_args")[0].ctx.function
    if function is None or facts.functions.get(getattr(function, "name", "")) is not function:
        return None
    return function.name, found
