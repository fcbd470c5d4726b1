"""What values are: literals, constants through bindings, environment reads and writes, argparse
and dataclass defaults, and which expressions are a process rank.

One copy of each piece of value knowledge, built on the bindings model (facts/bindings.py), so
that every rule agrees on what `f"cuda:{local_rank}"`, `args.device` or `os.environ["RANK"]` is.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Optional

from ..sources.names import dotted, root_name
from .bindings import Binding, SemanticModel
from .objects import arguments_for
from .script import literal

__all__ = [
    "UNKNOWN", "EnvAccess", "literal", "constant", "env_accesses", "env_read_key", "env_reads", "env_writes", "argparse_defaults",
    "argparse_source", "class_field_default", "is_rank_expression", "TracedValue", "traced_constant",
    "option_on_command_line", "constructor_fields", "imported_constructor_fields",
]


class _Unknown:
    """The value of an expression dslint cannot tell (unlike None, which is a value)."""

    _instance: Optional["_Unknown"] = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __reduce__(self):
        return (_Unknown, ())


UNKNOWN: Any = _Unknown()
_NOT_MINE = object()  # "this rule of evaluation does not apply": try the next one

_MAX_DEPTH = 40  # nested expressions evaluated; deeper ones are UNKNOWN (never a RecursionError)
_MAX_TEXT = 10_000  # longest string or sequence a computed constant may have
_BUILTIN_CONVERSIONS = {"int": int, "float": float, "str": str, "bool": bool}
_PARSERS = ("argparse.ArgumentParser", "transformers.HfArgumentParser")
_PARSER_RETURNING = ("deepspeed.add_config_arguments",)  # take a parser, add to it, return it
_SUBPARSER_METHODS = ("add_argument_group", "add_mutually_exclusive_group", "add_subparsers", "add_parser")
_FIELD_FUNCTIONS = ("dataclasses.field", "pydantic.Field", "pydantic.fields.Field")


# -- constants ----------------------------------------------------------------------------------
def constant(model: SemanticModel, expr: Optional[ast.AST], *, assume_env_unset: bool = False, hops: int = 4) -> Any:
    """The Python constant `expr` evaluates to, or UNKNOWN.

    Through bindings (a name assigned once, `self.x` set once in `__init__`), `int()`/`str()`/
    `float()`/`bool()`, arithmetic and string concatenation, `%` and `.format()`, f-strings whose
    every part is known, subscripts of known containers, argparse defaults (`args.device` with
    `args = parser.parse_args()`: the default of `--device`, which a launch line may override) and
    dataclass or class attribute defaults (`cfg.device` with `cfg = TrainConfig()`).
    `os.environ.get("K", d)` and `os.getenv("K", d)` give `d` only with `assume_env_unset=True`.
    """
    if expr is None:
        return UNKNOWN
    return _Evaluator(model, assume_env_unset, hops).value(expr, 0)


@dataclass(frozen=True)
class TracedValue:
    """A constant and how it was reached: `options` are the command-line options whose default it
    took (`("--device",)` for `args.device`: a launch line that passes one gives another value);
    `followed` the expressions it went through by bindings (`"cuda:0"` of `DEVICE = "cuda:0"`)."""

    value: Any
    options: tuple = ()
    followed: tuple = ()
    defaults: tuple = ()  # the command-line defaults it took, as written (`os.cpu_count()` of `--workers`)


def traced_constant(model: SemanticModel, expr: Optional[ast.AST], *, hops: int = 4) -> TracedValue:
    """`constant(model, expr)`, with the command-line options and the bindings it went through."""
    if expr is None:
        return TracedValue(UNKNOWN)
    evaluator = _Evaluator(model, False, hops)
    value = evaluator.value(expr, 0)
    return TracedValue(value, tuple(dict.fromkeys(evaluator.options)), tuple(evaluator.followed),
                       tuple(evaluator.defaults))


def imported_name(model: SemanticModel, expr: Optional[ast.AST], *, hops: int = 4) -> Optional[tuple]:
    """(the from-import binding, the assigned values on the way) when `expr` stands for a name
    imported from another module, through names bound once (`device = DEVICE`) and a
    `torch.device(DEVICE)` of it: the value is that module's (ProgramIndex.exported_constant
    reads it in the project phase); None otherwise."""
    node, trail = expr, []
    for _ in range(hops):
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and \
                (model.resolve(node.func) or "") == "torch.device":
            node = node.args[0]
        if not isinstance(node, ast.Name):
            return None
        binding = model.binding_of(node)
        if binding is None:
            return None
        if binding.kind == "from-import":
            return binding, tuple(trail)
        following = model.assigned_value(node) if binding.kind == "assignment" and not binding.index else None
        if following is None:
            return None
        trail.append(following)
        node = following
    return None


class _Evaluator:
    __slots__ = ("model", "env_unset", "hops", "seen", "options", "followed", "defaults")

    def __init__(self, model: SemanticModel, env_unset: bool, hops: int):
        self.model = model
        self.env_unset = env_unset
        self.hops = hops
        self.seen: set[int] = set()  # values being evaluated through bindings, against cycles
        self.options: list = []  # command-line options whose defaults were taken
        self.followed: list = []  # values reached through bindings
        self.defaults: list = []  # command-line defaults taken

    def value(self, expr: ast.AST, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            return UNKNOWN
        kind = type(expr)
        if kind is ast.Constant:
            return expr.value
        if kind is ast.Name or kind is ast.Attribute:
            return self._named(expr, depth)
        if kind is ast.JoinedStr:
            return self._fstring(expr, depth)
        if kind is ast.Call:
            return self._call(expr, depth)
        if kind is ast.BinOp:
            left = self.value(expr.left, depth + 1)
            if left is UNKNOWN:
                return UNKNOWN
            right = self.value(expr.right, depth + 1)
            if right is UNKNOWN:
                return UNKNOWN
            return _binop(expr.op, left, right)
        if kind is ast.UnaryOp:
            operand = self.value(expr.operand, depth + 1)
            if operand is UNKNOWN:
                return UNKNOWN
            try:
                if isinstance(expr.op, ast.USub):
                    return -operand
                if isinstance(expr.op, ast.UAdd):
                    return +operand
                if isinstance(expr.op, ast.Not):
                    return not operand
                return ~operand
            except Exception:
                return UNKNOWN
        if kind is ast.Tuple or kind is ast.List:
            items = []
            for element in expr.elts:
                if isinstance(element, ast.Starred):
                    return UNKNOWN
                item = self.value(element, depth + 1)
                if item is UNKNOWN:
                    return UNKNOWN
                items.append(item)
            return tuple(items) if kind is ast.Tuple else items
        if kind is ast.Subscript:
            return self._subscript(expr, depth)
        if kind is ast.IfExp:
            test = self.value(expr.test, depth + 1)
            if test is not UNKNOWN:
                return self.value(expr.body if test else expr.orelse, depth + 1)
            body = self.value(expr.body, depth + 1)
            if body is not UNKNOWN and _same(body, self.value(expr.orelse, depth + 1)):
                return body
            return UNKNOWN
        if kind is ast.BoolOp:
            result: Any = UNKNOWN
            for operand in expr.values:
                result = self.value(operand, depth + 1)
                if result is UNKNOWN:
                    return UNKNOWN
                if isinstance(expr.op, ast.Or) == bool(result):
                    return result
            return result
        found = literal(expr)
        return UNKNOWN if found is None and not _is_none(expr) else found

    def _follow(self, expr: ast.AST, depth: int) -> Any:
        """The constant of the value a Name/`self.x` was bound to (one hop), or UNKNOWN."""
        if self.hops <= 0:
            return UNKNOWN
        value = self.model.assigned_value(expr)
        if value is None or id(value) in self.seen:
            return UNKNOWN
        self.seen.add(id(value))
        self.followed.append(value)
        self.hops -= 1
        try:
            return self.value(value, depth + 1)
        finally:
            self.hops += 1
            self.seen.discard(id(value))

    def _named(self, expr: ast.AST, depth: int) -> Any:
        if isinstance(expr, ast.Name):
            found = self._click_default(expr, depth)
            if found is _NOT_MINE:
                found = self._fire_default(expr, depth)
            if found is _NOT_MINE:
                found = self._typer_default(expr, depth)
            if found is _NOT_MINE:
                found = self._jsonargparse_default(expr, depth)
            if found is not _NOT_MINE:
                return found
        if isinstance(expr, ast.Attribute):
            found = self._cli_default(expr, depth)
            if found is not _NOT_MINE:
                return found
            found = self._instance_field(expr, depth)
            if found is not _NOT_MINE:
                return found
        return self._follow(expr, depth)

    def _fstring(self, expr: ast.JoinedStr, depth: int) -> Any:
        parts = []
        for part in expr.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
                continue
            if not isinstance(part, ast.FormattedValue):
                return UNKNOWN
            value = self.value(part.value, depth + 1)
            if value is UNKNOWN:
                return UNKNOWN
            spec = ""
            if part.format_spec is not None:
                spec = self.value(part.format_spec, depth + 1)
                if not isinstance(spec, str):
                    return UNKNOWN
            try:
                if part.conversion == ord("r"):
                    value = repr(value)
                elif part.conversion == ord("s"):
                    value = str(value)
                elif part.conversion == ord("a"):
                    value = ascii(value)
                parts.append(format(value, spec))
            except Exception:
                return UNKNOWN
        return "".join(parts)

    def _call(self, call: ast.Call, depth: int) -> Any:
        func = call.func
        model = self.model
        if isinstance(func, ast.Name) and func.id in _BUILTIN_CONVERSIONS and not model.reaching(func.id, func):
            if call.keywords or len(call.args) > 1 or any(isinstance(a, ast.Starred) for a in call.args):
                return UNKNOWN
            if not call.args:
                return _BUILTIN_CONVERSIONS[func.id]()
            value = self.value(call.args[0], depth + 1)
            if value is UNKNOWN:
                return UNKNOWN
            try:
                return _BUILTIN_CONVERSIONS[func.id](value)
            except Exception:
                return UNKNOWN
        if isinstance(func, ast.Attribute) and func.attr == "format" and not call.keywords:
            template = self.value(func.value, depth + 1)
            if not isinstance(template, str):
                return UNKNOWN
            args = []
            for arg in call.args:
                if isinstance(arg, ast.Starred):
                    return UNKNOWN
                value = self.value(arg, depth + 1)
                if value is UNKNOWN:
                    return UNKNOWN
                args.append(value)
            try:
                return _bounded(template.format(*args))
            except Exception:
                return UNKNOWN
        if _env_method(model, call) in ("get", "getenv"):
            if not self.env_unset:
                return UNKNOWN
            default = _argument(call, 1, "default")
            return None if default is None else self.value(default, depth + 1)
        return UNKNOWN

    def _subscript(self, expr: ast.Subscript, depth: int) -> Any:
        if _is_environ(self.model, expr.value) or _mutated_container(self.model, expr.value):
            return UNKNOWN
        container = self.value(expr.value, depth + 1)
        if container is UNKNOWN or isinstance(expr.slice, ast.Slice):
            return UNKNOWN
        key = self.value(expr.slice, depth + 1)
        if key is UNKNOWN:
            return UNKNOWN
        try:
            return container[key]
        except Exception:
            return UNKNOWN

    def _cli_default(self, expr: ast.Attribute, depth: int) -> Any:
        source = argparse_source(self.model, expr)
        if source is None:
            return _NOT_MINE
        spec = _argparse(self.model).specs.get(source[0])
        if spec is not None and (spec.required or spec.suppressed):
            return UNKNOWN
        options = argparse_options(self.model, source[0])
        if spec is not None and not options:
            return UNKNOWN  # an optional positional argument: any word of the launch line may set it
        self.options += options
        default = source[1]
        if default is not None:
            self.defaults.append(default)
        if default is None:
            action = spec.action if spec is not None else None
            return {"store_true": False, "store_false": True}.get(action)
        value = self.value(default, depth + 1)
        convert = spec.type_name if spec is not None else None
        if isinstance(value, str) and convert is not None:
            if convert not in ("int", "float", "str"):
                return UNKNOWN
            try:
                return _BUILTIN_CONVERSIONS[convert](value)  # argparse converts string defaults
            except ValueError:
                return UNKNOWN
        return value

    def _click_default(self, expr: ast.Name, depth: int) -> Any:
        """A parameter of a click command (`@click.option("--device", default="cuda:0")`): the
        option's default, which a launch line may override; UNKNOWN when required, a flag, read
        from an environment variable or without a default."""
        binding = self.model.binding_of(expr)
        if binding is None or binding.kind != "parameter":
            return _NOT_MINE
        function = binding.scope.node
        for decorator in getattr(function, "decorator_list", ()):
            if not isinstance(decorator, ast.Call) or self.model.resolve(decorator.func) != "click.option":
                continue
            declared = [literal(a) for a in decorator.args]
            if not all(isinstance(d, str) for d in declared) or _click_name(declared) != binding.name:
                continue
            keywords = {k.arg: k.value for k in decorator.keywords}
            if None in keywords or any(k in keywords for k in ("envvar", "is_flag", "required", "prompt", "callback")) \
                    or "default" not in keywords:
                return UNKNOWN
            self.options += [d for d in declared if d.startswith("-")]
            self.defaults.append(keywords["default"])
            return self.value(keywords["default"], depth + 1)
        return _NOT_MINE

    def _fire_default(self, expr: ast.Name, depth: int) -> Any:
        """A parameter of a top-level function that the module runs as `fire.Fire(fn)` and calls nowhere
        else: its default, which the launch line may override (`--name`, `--name=v`, `-name`, `--noname`,
        `-n`, or any positional word: fire binds those to the parameters in order); UNKNOWN without one."""
        found = self._cli_parameter(expr, ("fire.Fire",), "component")
        if not isinstance(found, tuple):
            return found
        binding, function, _ = found
        if binding.node not in function.args.args + function.args.kwonlyargs + getattr(function.args, "posonlyargs", []):
            return UNKNOWN  # `*args`/`**kwargs`
        if binding.default is None:
            return UNKNOWN  # fire requires it on the command line
        self.options += [f"--{binding.name}", FIRE_WORDS]
        self.defaults.append(binding.default)
        return self.value(binding.default, depth + 1)

    def _cli_parameter(self, expr: ast.Name, runners: tuple, argument: str) -> Any:
        """(parameter binding, its function, the runner's call) when `expr` is a parameter of a top-level
        function that the module hands to one of `runners` (`fire.Fire(fn)`, jsonargparse's `CLI(fn)`) as
        its first argument or keyword `argument`, and names nowhere else; _NOT_MINE when it is none;
        UNKNOWN when the function is named elsewhere too (called with other values)."""
        binding = self.model.binding_of(expr)
        if binding is None or binding.kind != "parameter":
            return _NOT_MINE
        sites = self.model.facts.calls_to(*runners)
        function = binding.scope.node
        if not sites or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or not any(stmt is function for stmt in self.model.tree.body):
            return _NOT_MINE
        for site in sites:
            component = _argument(site.node, 0, argument)
            defined = self.model.binding_of(component) if isinstance(component, ast.Name) else None
            if defined is None or defined.kind != "def" or defined.node is not function:
                continue
            if self.model.uses_of(defined) != [component]:
                return UNKNOWN
            return binding, function, site
        return _NOT_MINE

    def _typer_default(self, expr: ast.Name, depth: int) -> Any:
        """A parameter of a top-level function that typer runs (`typer.run(fn)`, or `@app.command()` with
        `app = typer.Typer()`) and the module calls nowhere else: typer makes a parameter with a default an
        option `--name` (`_` as `-`; typer/main.py _get_param), so its default holds unless the launch line
        passes that option; UNKNOWN for a positional argument, `typer.Option(...)`/`typer.Argument(...)`
        defaults and `Annotated` parameters (not modelled)."""
        binding = self.model.binding_of(expr)
        if binding is None or binding.kind != "parameter":
            return _NOT_MINE
        function = binding.scope.node
        runs = self.model.facts.calls_to("typer.run")
        decorated = isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "command"
            and _made_by(self.model, d.func.value, ("typer.Typer",)) for d in function.decorator_list)
        if not (runs or decorated) or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or not any(stmt is function for stmt in self.model.tree.body):
            return _NOT_MINE
        run_args = [site.node.args[0] for site in runs if site.node.args and isinstance(site.node.args[0], ast.Name)]
        run_arg = next((a for a in run_args if getattr(self.model.binding_of(a), "node", None) is function), None)
        if run_arg is None and not decorated:
            return _NOT_MINE
        definition = next((b for b in self.model.own_scope(self.model.tree).bindings.get(function.name, ())
                           if b.kind == "def" and b.node is function), None)
        if definition is None or self.model.uses_of(definition) != ([run_arg] if run_arg is not None else []):
            return UNKNOWN  # called elsewhere too
        default = binding.default
        if default is None or isinstance(default, ast.Call) or binding.node not in function.args.args + \
                function.args.kwonlyargs or (binding.annotation is not None and "Annotated" in ast.unparse(binding.annotation)):
            return UNKNOWN
        flag = binding.name.replace("_", "-")
        self.options += [f"--{flag}", f"--no-{flag}"] if isinstance(default, ast.Constant) and \
            isinstance(default.value, bool) else [f"--{flag}"]
        self.defaults.append(default)
        return self.value(default, depth + 1)

    def _jsonargparse_default(self, expr: ast.Name, depth: int) -> Any:
        """A parameter of a top-level function that the module runs as jsonargparse's `CLI(fn)` /
        `auto_cli(fn)` and calls nowhere else: jsonargparse makes a parameter with a default the option
        `--name`, name as written (_signatures.py _add_signature_parameter), beside `--config FILE`
        (_cli.py auto_cli), so its default holds unless the launch line passes one of those; UNKNOWN
        for a required (positional) parameter, `*args`/`**kwargs`, or a CLI call with other defaults
        (`set_defaults=`, `default_config_files=`, `default_env=`, `args=`)."""
        found = self._cli_parameter(expr, _JSONARGPARSE_CLI, "components")
        if not isinstance(found, tuple):
            return found
        binding, function, site = found
        if len(site.node.args) > 1 or any(k.arg not in _JSONARGPARSE_PLAIN for k in site.node.keywords):
            return UNKNOWN
        if binding.default is None or binding.node not in function.args.args + function.args.kwonlyargs:
            return UNKNOWN
        self.options += [f"--{binding.name}", "--config"]
        self.defaults.append(binding.default)
        return self.value(binding.default, depth + 1)

    def _instance_field(self, expr: ast.Attribute, depth: int) -> Any:
        model = self.model
        receiver = model.value_of(expr.value)
        if not isinstance(receiver, ast.Call):
            return _NOT_MINE
        cls = _module_class(model, receiver.func)
        if cls is None:
            return _NOT_MINE
        name = expr.attr
        if overridden_attribute(model, expr) or _set_in_methods(model, cls, name):
            return UNKNOWN
        for keyword in receiver.keywords:
            if keyword.arg is None:
                return UNKNOWN  # `TrainConfig(**overrides)`
            if keyword.arg == name:
                return self.value(keyword.value, depth + 1)
        if receiver.args:
            fields = _dataclass_fields(model, cls)
            if fields is None or any(isinstance(a, ast.Starred) for a in receiver.args):
                return UNKNOWN
            if name in fields and fields.index(name) < len(receiver.args):
                return self.value(receiver.args[fields.index(name)], depth + 1)
        default = class_field_default(model, cls.name, name)
        return UNKNOWN if default is None else self.value(default, depth + 1)


_READING_METHODS = frozenset(("get", "items", "keys", "values", "copy", "index", "count"))


def _mutated_container(model: SemanticModel, expr: ast.AST) -> bool:
    """May the container `expr` names (`CONFIG`, `self.cfg`) change after it is built? Yes when
    the module stores into it (`CONFIG["device"] = ...`, `del`), calls a method on it other than a
    reading one (`.update`, `.setdefault`), or lets it go anywhere but a subscript (passed to a
    function, aliased): matched by spelling, so conservative on purpose."""
    name = dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if name is None:
        return False
    escaping = model.memo.get("escaping_containers")
    if escaping is None:  # one walk of the module for every container asked about
        found: set = set()
        stack: list = [(model.facts.tree, None)]
        while stack:
            node, parent = stack.pop()
            if isinstance(node, (ast.Name, ast.Attribute)) and _escapes(node, parent):
                spelled = dotted(node)
                if spelled is not None:
                    found.add(spelled)
            stack.extend((child, node) for child in ast.iter_child_nodes(node))
        escaping = model.memo["escaping_containers"] = frozenset(found)
    return name in escaping


def _escapes(node: ast.AST, parent: Optional[ast.AST]) -> bool:
    ctx = getattr(node, "ctx", None)
    if not isinstance(ctx, ast.Load):
        return isinstance(ctx, ast.Del)
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return not isinstance(parent.ctx, ast.Load)  # CONFIG["k"] = v, del CONFIG["k"]
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return parent.attr not in _READING_METHODS
    return parent is not None and not isinstance(parent, ast.Compare)


_JSONARGPARSE_CLI = ("jsonargparse.CLI", "jsonargparse.auto_cli")
# auto_cli keywords that leave the parameters' defaults and options as the signature makes them
_JSONARGPARSE_PLAIN = frozenset(("components", "description", "prog", "version", "fail_untyped", "as_positional",
                                 "config_help", "return_instance"))

# An entry of `options` (TracedValue, option_on_command_line) for a parameter of a `fire.Fire(fn)` function:
# fire's flag forms of the other options count, and any positional word of the script's arguments may set it.
FIRE_WORDS = "fire"  # (a message shows it: "the default of --device / fire")


def _fire_given(args: list, options: tuple) -> tuple[Optional[bool], Optional[str]]:
    """option_on_command_line for fire (fire/core.py _ParseKeywordArgs): leading dashes stripped, `-` read
    as `_`, `--noname`, a one-letter shortcut; a word that is no flag nor a flag's value is positional."""
    names = {o.lstrip("-").replace("-", "_") for o in options if o.startswith("-")}
    given: Optional[bool] = False
    value: Optional[str] = None
    skip = False
    for k, arg in enumerate(args):
        if skip:
            skip = False
            continue
        word = arg.value
        if word is None:
            given = None if given is False else given
            continue
        if word == "--":
            break  # what follows are fire's own flags (--help, --trace)
        if not (word.startswith("--") or (len(word) > 1 and word[0] == "-" and word[1].isalpha())):
            return True, None  # a positional word: bound to a parameter in order
        key, eq, attached = word.lstrip("-").partition("=")
        key = key.replace("-", "_")
        nxt = args[k + 1] if k + 1 < len(args) else None
        skip = not eq and nxt is not None and nxt.value is not None and not nxt.value.startswith("-")
        if key in names or (key.startswith("no") and key[2:] in names) or (len(key) == 1 and any(
                n.startswith(key) for n in names)):
            given, value = True, attached if eq else (nxt.value if skip else None)
    return given, value


def _click_name(declared: list) -> Optional[str]:
    """The parameter name click gives an option's declarations: a bare identifier among them, else
    the first long option (else the first one) without its dashes, `-` as `_`, lowercased."""
    bare = [d for d in declared if d.isidentifier()]
    if bare:
        return bare[0]
    options = [d for d in declared if d.startswith("-") and "/" not in d]
    longs = [o for o in options if o.startswith("--")]
    chosen = (longs or options or [None])[0]
    return chosen.lstrip("-").replace("-", "_").lower() if chosen else None


def _binop(op: ast.operator, left: Any, right: Any) -> Any:
    try:
        if isinstance(op, ast.Add):
            return _bounded(left + right)
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            if isinstance(left, (str, bytes, list, tuple)) or isinstance(right, (str, bytes, list, tuple)):
                count = right if isinstance(left, (str, bytes, list, tuple)) else left
                if not isinstance(count, int) or count > _MAX_TEXT:
                    return UNKNOWN
            return _bounded(left * right)
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.FloorDiv):
            return left // right
        if isinstance(op, ast.Mod):
            return _bounded(left % right)
        if isinstance(op, ast.Pow):
            if isinstance(right, int) and abs(right) > 64:
                return UNKNOWN
            return left ** right
    except Exception:
        return UNKNOWN
    return UNKNOWN


def _bounded(value: Any) -> Any:
    if isinstance(value, (str, bytes, list, tuple)) and len(value) > _MAX_TEXT:
        return UNKNOWN
    return value


def _same(a: Any, b: Any) -> bool:
    return b is not UNKNOWN and type(a) is type(b) and a == b


def _is_none(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _default_group(model: SemanticModel, expr: ast.AST) -> bool:
    """`group = dist.init_process_group(...)`: it returns None, so `get_rank(group)` is the default group's."""
    value = model.value_of(expr)
    return isinstance(value, ast.Call) and model.resolve(value.func) == "torch.distributed.init_process_group"


def _argument(call: ast.Call, position: Optional[int], name: str) -> Optional[ast.expr]:
    """The argument given at `position` or as keyword `name` (None when absent or behind a *args)."""
    if position is not None and len(call.args) > position and not any(
            isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


# -- the environment ----------------------------------------------------------------------------
@dataclass(frozen=True)
class EnvAccess:
    """One read or change of the process environment.

    kind: "read" (`os.environ["K"]`, `.get`, `os.getenv`, `.pop`), "write" (`os.environ["K"] = v`,
    `.update(...)`, `os.putenv`), "setdefault" (a write only if K is unset, and a read) or
    "delete" (`del os.environ["K"]`, `.pop`, `os.unsetenv`). `key` is None when it cannot be told
    (`os.environ[name]` with name unknown, `update(**d)`); `default` is the fallback of a read or
    the value of a setdefault; `value` what a write stores.
    """

    key: Optional[str]
    node: ast.AST
    kind: str
    default: Optional[ast.expr] = None
    value: Optional[ast.expr] = None


def _environ_names(model: SemanticModel) -> frozenset:
    """Names that may hold `os.environ`: imported as it (`from os import environ as env`) or
    assigned `<something>.environ`. Checked first so that not every `x[i]` gets resolved."""
    names = model.memo.get("environ_names")
    if names is None:
        facts = model.facts
        found = {name for name, qualname in facts.imports.names.items() if qualname == "os.environ"}
        found.update(a.name for a in facts.assignments
                     if isinstance(a.value, ast.Attribute) and a.value.attr == "environ" and "." not in a.name)
        names = model.memo["environ_names"] = frozenset(found)
    return names


def _is_environ(model: SemanticModel, expr: ast.AST) -> bool:
    """`os.environ`, `environ` from `from os import environ`, or a name bound to one of them."""
    if isinstance(expr, ast.Attribute):
        if expr.attr != "environ":
            return False
    elif not isinstance(expr, ast.Name) or expr.id not in _environ_names(model):
        return False
    if model.resolve(expr) == "os.environ":
        return True
    if isinstance(expr, ast.Name):
        followed = model.value_of(expr)
        return followed is not expr and model.resolve(followed) == "os.environ"
    return False


def _env_method(model: SemanticModel, call: ast.Call) -> Optional[str]:
    """"get", "setdefault", "update", "pop" for methods of os.environ; "getenv", "putenv",
    "unsetenv" for those functions of os; else None."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("get", "setdefault", "update", "pop"):
        return func.attr if _is_environ(model, func.value) else None
    if isinstance(func, (ast.Name, ast.Attribute)):
        name = func.id if isinstance(func, ast.Name) else func.attr
        if name in ("getenv", "putenv", "unsetenv") and model.resolve(func) == f"os.{name}":
            return name
    return None


def _string_key(model: SemanticModel, expr: Optional[ast.AST]) -> Optional[str]:
    if expr is None:
        return None
    key = constant(model, expr)
    return key if isinstance(key, str) else None


def env_accesses(model: SemanticModel) -> list[EnvAccess]:
    """Every read, write and delete of `os.environ` in the module, in source order (cached).

    A variable assigned (`os.environ["NCCL_DEBUG"] = "INFO"`) is a write, not a read; a copy of
    the environment (`env = os.environ.copy(); env["K"] = v`) is not the environment.
    """
    cached = model.memo.get("env_accesses")
    if cached is not None:
        return cached
    facts = model.facts
    found: list[EnvAccess] = []
    for node, ctx in facts.of_type(ast.Subscript):
        if not _is_environ(model, node.value):
            continue
        key = _string_key(model, node.slice)
        parent = ctx.parent
        if isinstance(node.ctx, ast.Load):
            found.append(EnvAccess(key, node, "read"))
        elif isinstance(node.ctx, ast.Del):
            found.append(EnvAccess(key, node, "delete"))
        elif isinstance(parent, ast.AugAssign):
            found.append(EnvAccess(key, node, "read"))
            found.append(EnvAccess(key, node, "write", value=parent.value))
        else:
            value = parent.value if isinstance(parent, (ast.Assign, ast.AnnAssign)) else None
            found.append(EnvAccess(key, node, "write", value=value))
    for attr in ("get", "getenv", "setdefault", "update", "pop", "putenv", "unsetenv"):
        for site in facts.method_calls(attr):
            call = site.node
            method = _env_method(model, call)
            if method is None:
                continue
            if method in ("get", "getenv"):
                found.append(EnvAccess(_string_key(model, _argument(call, 0, "key")), call, "read",
                                       default=_argument(call, 1, "default")))
            elif method == "setdefault":
                found.append(EnvAccess(_string_key(model, _argument(call, 0, "key")), call, "setdefault",
                                       default=_argument(call, 1, "default")))
            elif method == "pop":
                key = _string_key(model, _argument(call, 0, "key"))
                found.append(EnvAccess(key, call, "read", default=_argument(call, 1, "default")))
                found.append(EnvAccess(key, call, "delete"))
            elif method == "putenv":
                found.append(EnvAccess(_string_key(model, _argument(call, 0, "key")), call, "write",
                                       value=_argument(call, 1, "value")))
            elif method == "unsetenv":
                found.append(EnvAccess(_string_key(model, _argument(call, 0, "key")), call, "delete"))
            else:
                found += _updates(model, call)
    found.sort(key=lambda a: (a.node.lineno, a.node.col_offset))
    model.memo["env_accesses"] = found
    return found


def _updates(model: SemanticModel, call: ast.Call) -> list[EnvAccess]:
    """The writes of `os.environ.update({...})` / `.update(K=v)`."""
    out = []
    for arg in call.args:
        mapping = model.value_of(arg)
        if isinstance(mapping, ast.Dict):
            for key, value in zip(mapping.keys, mapping.values):
                out.append(EnvAccess(_string_key(model, key), call, "write", value=value))
        else:
            out.append(EnvAccess(None, call, "write"))
    for keyword in call.keywords:
        out.append(EnvAccess(keyword.arg, call, "write", value=keyword.value))
    return out


def env_reads(model: SemanticModel, key: str) -> list[EnvAccess]:
    """Reads of environment variable `key` (kind "read"; a setdefault is listed by env_writes)."""
    return [a for a in env_accesses(model) if a.key == key and a.kind == "read"]


def env_writes(model: SemanticModel, key: str) -> list[EnvAccess]:
    """Assignments of environment variable `key`: kind "write" and "setdefault"."""
    return [a for a in env_accesses(model) if a.key == key and a.kind in ("write", "setdefault")]


def env_read_key(model: SemanticModel, expr: ast.AST) -> Optional[str]:
    """The key when `expr` itself reads the environment (`os.environ["K"]`, `.get`, `getenv`)."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.ctx, ast.Load) and _is_environ(model, expr.value):
        return _string_key(model, expr.slice)
    if isinstance(expr, ast.Call) and _env_method(model, expr) in ("get", "getenv"):
        return _string_key(model, _argument(expr, 0, "key"))
    return None


# -- argparse -----------------------------------------------------------------------------------
@dataclass
class _ArgSpec:
    dest: str
    node: ast.Call
    default: Optional[ast.expr]
    action: Optional[str]
    type_name: Optional[str]  # "int" for type=int; "?" for another callable
    required: bool
    suppressed: bool


@dataclass
class _Argparse:
    specs: dict[str, _ArgSpec]
    set_defaults: dict[str, ast.expr]


def _argparse(model: SemanticModel) -> _Argparse:
    cached = model.memo.get("argparse")
    if cached is not None:
        return cached
    facts = model.facts
    specs: dict[str, _ArgSpec] = {}
    for site in facts.method_calls("add_argument"):
        call = site.node
        if not isinstance(call.func, ast.Attribute) or not _is_parser(model, call.func.value, 0):
            continue
        spec = _arg_spec(model, call)
        if spec is not None:
            specs.setdefault(spec.dest, spec)
    overrides: dict[str, ast.expr] = {}
    for site in facts.method_calls("set_defaults"):
        call = site.node
        if isinstance(call.func, ast.Attribute) and _is_parser(model, call.func.value, 0):
            for keyword in call.keywords:
                if keyword.arg is not None:
                    overrides[keyword.arg] = keyword.value
    cached = model.memo["argparse"] = _Argparse(specs, overrides)
    return cached


def _arg_spec(model: SemanticModel, call: ast.Call) -> Optional[_ArgSpec]:
    options = [literal(a) for a in call.args]
    if not options or not all(isinstance(o, str) and o for o in options):
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    dest_expr = keywords.get("dest")
    positional = not options[0].startswith("-")
    if dest_expr is not None:
        dest = literal(dest_expr)
        if not isinstance(dest, str):
            return None
    elif positional:
        dest = options[0]
    else:
        long = [o for o in options if len(o) > 1 and o[1] == "-"]
        dest = (long or options)[0].lstrip("-").replace("-", "_")
    action = literal(keywords.get("action"))
    type_expr = keywords.get("type")
    type_name = None
    if type_expr is not None:
        type_name = type_expr.id if isinstance(type_expr, ast.Name) and not model.reaching(type_expr.id, type_expr) \
            else "?"
    required = literal(keywords.get("required")) is True
    if positional:
        required = literal(keywords.get("nargs")) not in ("?", "*")
    default = keywords.get("default")
    suppressed = default is not None and model.resolve(default) == "argparse.SUPPRESS"
    return _ArgSpec(dest, call, default, action if isinstance(action, str) else None, type_name, required, suppressed)


def _is_parser(model: SemanticModel, expr: ast.AST, depth: int) -> bool:
    """Is `expr` an argparse parser (or a group or sub-parser made from one)?"""
    if depth > 4:
        return False
    value = model.value_of(expr)
    if depth:
        return _is_parser_value(model, value, depth)
    # Every `add_argument` of one parser asks about the same value: answered once.
    memo = model.memo.setdefault("is_parser", {})
    known = memo.get(id(value))
    if known is None or known[0] is not value:
        known = memo[id(value)] = (value, _is_parser_value(model, value, 0))
    return known[1]


def _is_parser_value(model: SemanticModel, value: ast.AST, depth: int) -> bool:
    if isinstance(value, ast.Call):
        func = value.func
        name = model.resolve(func)
        if name in _PARSERS:
            return True
        if name in _PARSER_RETURNING:
            return bool(value.args) and _is_parser(model, value.args[0], depth + 1)
        if isinstance(func, ast.Attribute) and func.attr in _SUBPARSER_METHODS:
            return _is_parser(model, func.value, depth + 1)
        function = _module_function(model, func)  # `parser = add_args(parser)`
        returns = [r.value for r in _returns(function)] if function is not None else []
        return bool(returns) and all(r is not None and _is_parser(model, r, depth + 1) for r in returns)
    if isinstance(value, ast.Name):
        # `def add_args(parser): parser.add_argument(...)`, called with a parser of this module.
        binding = model.binding_of(value)
        if binding is not None and binding.kind == "parameter":
            return any(arg is not None and _is_parser(model, arg, depth + 1) for arg in _passed_to(model, binding))
    return False


def _passed_to(model: SemanticModel, binding: Binding) -> list[Optional[ast.expr]]:
    """What each call of this module's function passes to its parameter `binding` (None where a
    call passes nothing there, or behind a *args); [] for a parameter of no named def."""
    function = binding.scope.node
    if binding.position is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    passed = []
    for site in model.facts.method_calls(function.name):
        if not isinstance(site.node.func, ast.Name):
            continue
        target = model.binding_of(site.node.func)
        if target is not None and target.node is function:
            passed.append(_argument(site.node, binding.position, binding.name))
    return passed


def argparse_defaults(model: SemanticModel) -> dict[str, Optional[ast.expr]]:
    """dest → default expression (None when none is given) of every `add_argument` on a parser of
    this module, its argument groups and sub-parsers; `parser.set_defaults(dest=...)` wins.
    dest as argparse makes it: `dest=` first, else the first long option with dashes turned into
    underscores, else the first short one."""
    parsed = _argparse(model)
    out: dict[str, Optional[ast.expr]] = {dest: spec.default for dest, spec in parsed.specs.items()}
    out.update(parsed.set_defaults)
    return out


def is_namespace(model: SemanticModel, expr: ast.AST, depth: int = 0) -> bool:
    """Is `expr` the namespace `parser.parse_args()` returns (also `parse_known_args()[0]`,
    `args, _ = parser.parse_known_args()`, or a same-module function returning one of these)?"""
    if depth > 3:
        return False
    value = model.value_of(expr)
    if isinstance(value, ast.Name):
        binding = model.binding_of(value)
        if binding is not None and binding.kind == "parameter":
            return _namespace_parameter(model, binding, depth)
        if binding is None or binding.index != (0,) or not isinstance(binding.value, ast.Call):
            return False
        return _parser_call(model, binding.value, "parse_known_args")
    if isinstance(value, ast.Subscript):
        return literal(value.slice) == 0 and isinstance(value.value, ast.Call) and _parser_call(
            model, value.value, "parse_known_args")
    if not isinstance(value, ast.Call):
        return False
    if _parser_call(model, value, "parse_args"):
        return True
    function = _module_function(model, value.func)
    if function is None:
        return False
    returns = [r.value for r in _returns(function)]
    return bool(returns) and all(r is not None and is_namespace(model, r, depth + 1) for r in returns)


def _namespace_parameter(model: SemanticModel, binding: Binding, depth: int) -> bool:
    """`def main(args)` of this module, called here (`main(parse_args())`), every call passing a
    namespace at that position."""
    passed = _passed_to(model, binding)
    return bool(passed) and all(arg is not None and is_namespace(model, arg, depth + 1) for arg in passed)


def _parser_call(model: SemanticModel, call: ast.Call, method: str) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == method and _is_parser(model, func.value, 0)


def argparse_source(model: SemanticModel, expr: ast.AST) -> Optional[tuple[str, Optional[ast.expr]]]:
    """(dest, default expression or None) when `expr` is `args.<dest>` of a `parse_args()`
    namespace and nothing in the module assigns `args.<dest>` afterwards; else None. Lets a rule
    say "the default of --device" (which a launch line may override)."""
    if not isinstance(expr, ast.Attribute):
        return None
    parsed = _argparse(model)
    dest = expr.attr
    if dest not in parsed.specs and dest not in parsed.set_defaults:
        return None
    if overridden_attribute(model, expr) or not is_namespace(model, expr.value):
        return None
    if dest in parsed.set_defaults:
        return dest, parsed.set_defaults[dest]
    return dest, parsed.specs[dest].default


def only_field_reads(model: SemanticModel, binding: Binding, methods: bool = False, kept_on_self: bool = False) -> bool:
    """Is every use of the binding a read of one of its attributes (`cfg.lr`), never a store, never the
    name handed on or returned, and (unless `methods`) never a method called on it (`cfg.update()` may
    set any field)? With `kept_on_self`, `self.cfg = cfg` (the whole statement) counts as a read."""
    for use in model.uses_of(binding):
        parent = model.parent_of(use)
        if kept_on_self and isinstance(parent, ast.Assign) and parent.value is use and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Attribute) and dotted(parent.targets[0].value) == "self":
            continue
        if not (isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Load)):
            return False
        if not methods:
            holder = model.parent_of(parent)
            if isinstance(holder, ast.Call) and holder.func is parent:
                return False
    return True


def overridden_attribute(model: SemanticModel, expr: ast.Attribute) -> bool:
    """Is `<receiver>.<attr>` assigned anywhere (`args.device = ...`, `setattr(args, ...)`,
    `vars(args).update(...)`)? Matched by the receiver's spelling: conservative on purpose."""
    receiver = ast.dump(expr.value)
    for store in model.attribute_stores(expr.attr):
        if ast.dump(store.value) == receiver:
            return True
    if not isinstance(expr.value, (ast.Name, ast.Attribute)):
        return False  # `parse_known_args()[0].device`, `Config().device`: a fresh object
    for site in model.facts.method_calls("setattr") + model.facts.method_calls("update"):
        call = site.node
        target = call.args[0] if call.args and site.attr == "setattr" else None
        if site.attr == "update" and isinstance(call.func, ast.Attribute):
            holder = call.func.value  # vars(args).update / args.__dict__.update
            if (isinstance(holder, ast.Call) and holder.args and isinstance(holder.func, ast.Name)
                    and holder.func.id == "vars"):
                target = holder.args[0]
            elif isinstance(holder, ast.Attribute) and holder.attr == "__dict__":
                target = holder.value
        if target is not None and ast.dump(target) == receiver:
            return True
    return False


# -- classes ------------------------------------------------------------------------------------
def _module_class(model: SemanticModel, func: ast.AST) -> Optional[ast.ClassDef]:
    """The class of this module a callee names, when its one reaching binding is that class."""
    if not isinstance(func, ast.Name):
        return None
    binding = model.binding_of(func)
    return binding.node if binding is not None and binding.kind == "class" else None


def _module_function(model: SemanticModel, func: ast.AST) -> Optional[ast.AST]:
    if not isinstance(func, ast.Name):
        return None
    binding = model.binding_of(func)
    return binding.node if binding is not None and binding.kind == "def" else None


def _returns(function: ast.AST) -> list[ast.Return]:
    """The return statements of a def, not of defs or classes nested in it."""
    out = []
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.expr)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def _is_dataclass(model: SemanticModel, cls: ast.ClassDef) -> bool:
    for decorator in cls.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if model.resolve(target) in ("dataclasses.dataclass", "pydantic.dataclasses.dataclass"):
            return True
    return False


def _dataclass_fields(model: SemanticModel, cls: ast.ClassDef) -> Optional[list[str]]:
    """The fields of a base-less dataclass in `__init__` order, else None."""
    if not _is_dataclass(model, cls) or cls.bases:
        return None
    fields = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            annotation = ast.unparse(stmt.annotation)
            if "ClassVar" not in annotation and "InitVar" not in annotation:
                fields.append(stmt.target.id)
    return fields


def _set_in_methods(model: SemanticModel, cls: ast.ClassDef, name: str) -> bool:
    """Does a method of the class assign `self.<name>` (its own `__init__`, `__post_init__`)?"""
    return bool(model.attribute_bindings(cls, name))


def class_field_default(model: SemanticModel, class_name: str, field: str) -> Optional[ast.expr]:
    """The default expression of a field of a class defined at this module's top level: a
    dataclass field (`device: str = "cuda"`, `field(default=...)`, `dataclasses.field(default=...)`),
    a pydantic `Field(...)`, or a plain class attribute (`device = "cuda"`); looked up through
    base classes of the same module. None when there is none (a required field, a
    `default_factory`, an unknown class)."""
    classes = model.facts.classes
    cls = classes.get(class_name)
    seen: set[str] = set()
    while cls is not None and cls.name not in seen:
        seen.add(cls.name)
        found = _own_field(model, cls, field)
        if found is not _NOT_MINE:
            return found
        bases = [b for b in cls.bases if isinstance(b, ast.Name) and b.id in classes]
        cls = classes[bases[0].id] if bases else None
    return None


def _own_field(model: SemanticModel, cls: ast.ClassDef, name: str) -> Any:
    """The default the class body itself gives `name` (None: declared without one), or _NOT_MINE."""
    found: Any = _NOT_MINE
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            found = stmt.value
        elif isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = stmt.value
    if isinstance(found, ast.Call) and model.resolve(found.func) in _FIELD_FUNCTIONS:
        default = _argument(found, None, "default")
        if default is None and model.resolve(found.func) != "dataclasses.field" and found.args:
            default = found.args[0]  # pydantic's Field(default, ...)
        if isinstance(default, ast.Constant) and default.value is Ellipsis:
            return None
        return default
    return found


def factory_default(model: SemanticModel, expr: ast.AST) -> Optional[ast.expr]:
    """What `cfg.local_rank` evaluates to when `cfg` is an instance of a dataclass of this module built
    without that field, whose field is `field(default_factory=lambda: EXPR)`: EXPR (run at each
    construction); None otherwise."""
    found = instance_field(model, model.value_of(expr))
    if found is None or not found.local or not isinstance(found.klass, ast.Name):
        return None
    cls = model.facts.classes.get(found.klass.id)
    declared = None
    for stmt in cls.body if cls is not None else ():
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == found.field:
            declared = stmt.value
    if not (isinstance(declared, ast.Call) and model.resolve(declared.func) == "dataclasses.field"):
        return None
    factory = _argument(declared, None, "default_factory")
    return factory.body if isinstance(factory, ast.Lambda) and not factory.args.args else None


def constructor_fields(model: SemanticModel, expr: ast.AST) -> list[ast.expr]:
    """What `x.field` holds where `x` was built by a dataclass of this module, `x = State(model=ddp)`
    (`ddp`; a field left out gives its default); for a parameter `x`, one expression per call of its
    def, each of which must pass such an object. Empty when any value of `x` is something else,
    when `**kwargs` may set the field, or when the field may be assigned after construction."""
    held: list[ast.expr] = []
    for call in _constructions(model, expr):
        value = _constructor_argument(model, call, expr.attr)
        if value is None:
            return []
        held.append(value)
    return held


def imported_constructor_fields(model: SemanticModel, expr: ast.AST) -> Optional[tuple[str, list[ast.expr]]]:
    """`constructor_fields` for a class imported from another module (`from state import State`):
    (the class's local name, what each construction passes for the field by keyword). Whether the
    class is a dataclass, whose `x.field` is then that value, is for the project phase to tell."""
    name, held = None, []
    for call in _constructions(model, expr):
        callee = dotted(call.func) if isinstance(call, ast.Call) else None
        root = model.binding_of(call.func) if isinstance(call.func, ast.Name) else None
        if callee is None or (name is not None and callee != name) or root is None \
                or root.kind not in ("import", "from-import"):
            return None
        given = next((k.value for k in call.keywords if k.arg == expr.attr), None)
        if given is None or any(k.arg is None for k in call.keywords):
            return None
        name = callee
        held.append(given)
    return (name, held) if name is not None else None


def _constructions(model: SemanticModel, expr: ast.AST) -> list[ast.expr]:
    """The expressions that built the object `x` of `x.field`: its value, or for a parameter what
    each call of its def passes; empty when the field may be assigned after construction."""
    if not isinstance(expr, ast.Attribute):
        return []
    if any(not (isinstance(store.value, ast.Name) and store.value.id == "self") for store in model.attribute_stores(expr.attr)):
        return []  # `state.model = other` somewhere: through another name, perhaps
    receiver = model.value_of(expr.value)
    binding = model.binding_of(receiver) if isinstance(receiver, ast.Name) else None
    if binding is not None and binding.kind == "parameter":
        return [model.value_of(given) for _, given in arguments_for(model, binding.scope.node, binding.name)]
    return [receiver]


def _constructor_argument(model: SemanticModel, call: ast.expr, field: str) -> Optional[ast.expr]:
    if not isinstance(call, ast.Call):
        return None
    cls = _module_class(model, call.func)
    if cls is None or not _is_dataclass(model, cls) or _set_in_methods(model, cls, field):
        return None
    for keyword in call.keywords:
        if keyword.arg is None:
            return None  # `State(**parts)`
        if keyword.arg == field:
            return keyword.value
    if call.args:
        fields = _dataclass_fields(model, cls)
        if fields is None or field not in fields or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        if fields.index(field) < len(call.args):
            return call.args[fields.index(field)]
    return class_field_default(model, cls.name, field)


# -- ranks --------------------------------------------------------------------------------------
_LOCAL_RANK_ENV = ("LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                   "MPI_LOCALRANKID", "PMI_LOCAL_RANK")
_GLOBAL_RANK_ENV = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")
_LOCAL_RANK_CALLS = ("torch.distributed.get_node_local_rank", "deepspeed.comm.get_local_rank",
                     "horovod.torch.local_rank")
_GLOBAL_RANK_CALLS = ("torch.distributed.get_rank", "deepspeed.comm.get_rank", "horovod.torch.rank",
                      "mmengine.dist.get_rank", "mmengine.dist.utils.get_rank")  # (rank in the world group)
_PER_NODE_COUNTS_ENV = ("LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE", "SLURM_GPUS_ON_NODE")
_SPAWN = ("torch.multiprocessing.spawn", "torch.multiprocessing.start_processes")
_SPAWN_INDEX_NAMES = ("rank", "local_rank", "gpu", "device_id", "gpu_id")
_HF_TRAINING_ARGUMENTS = ("transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments")
_ACCELERATE_STATES = ("accelerate.Accelerator", "accelerate.PartialState", "accelerate.state.PartialState",
                      "accelerate.state.AcceleratorState", *_HF_TRAINING_ARGUMENTS)
_LIGHTNING_OBJECTS = ("lightning.pytorch.Trainer", "lightning.fabric.Fabric")
_LIGHTNING_MODULES = ("lightning.pytorch.LightningModule",)
_NEUTRAL = (0, -1)  # the rank a script falls back to when it is not distributed


def is_rank_expression(model: SemanticModel, expr: ast.AST) -> Optional[str]:
    """Which process rank `expr` evaluates to, through bindings: "local" (LOCAL_RANK, SLURM_LOCALID,
    `args.local_rank` of argparse, `get_node_local_rank()`, `accelerator.local_process_index`,
    `trainer.local_rank`, a parameter named `local_rank`, a global rank `% device_count()`),
    "global" (`dist.get_rank()` without a group, RANK, SLURM_PROCID, `accelerator.process_index`,
    `trainer.global_rank`, a global rank `% get_world_size()`), "spawn-index" (the first parameter, named rank/local_rank/gpu/device_id,
    of a function this module starts with `torch.multiprocessing.spawn`: the local rank on one
    node), else None. Conservative: None when unsure or when the branches disagree."""
    return _rank(model, expr, 0)


def picked_by_rank(model: SemanticModel, node: ast.AST) -> bool:
    """Is `node` part of one entry of a dict/list/tuple display that is indexed by the rank
    (`{0: "cuda:0", 1: "cuda:1"}[dist.get_rank()]`, or `table = [...]` read only as `table[rank]`)?
    Then each rank evaluates its own entry alone."""
    child, parent = node, model.parent_of(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        if (isinstance(parent, ast.Dict) and any(v is child for v in parent.values)) or (
                isinstance(parent, (ast.List, ast.Tuple)) and any(e is child for e in parent.elts)):
            if _indexed_by_rank(model, parent):
                return True
        child, parent = parent, model.parent_of(parent)
    return False


def _indexed_by_rank(model: SemanticModel, display: ast.expr) -> bool:
    holder = model.parent_of(display)
    if isinstance(holder, ast.Subscript) and holder.value is display:
        return is_rank_expression(model, holder.slice) is not None
    if not (isinstance(holder, ast.Assign) and holder.value is display and len(holder.targets) == 1
            and isinstance(holder.targets[0], ast.Name)):
        return False
    bindings = model._bindings_of_statement(holder)
    uses = model.uses_of(bindings[0]) if len(bindings) == 1 else []
    return bool(uses) and all(isinstance(s := model.parent_of(u), ast.Subscript) and s.value is u
                              and is_rank_expression(model, s.slice) is not None for u in uses)


def _rank(model: SemanticModel, expr: ast.AST, depth: int) -> Optional[str]:
    if depth > 6:
        return None
    kinds = set()
    for value in model.values_of(expr):
        kind = _rank_leaf(model, value, depth)
        if kind is None:
            if isinstance(value, ast.Constant) and value.value in _NEUTRAL and not isinstance(value.value, bool):
                continue
            return None
        kinds.add(kind)
    return kinds.pop() if len(kinds) == 1 else None


def _rank_leaf(model: SemanticModel, expr: ast.AST, depth: int) -> Optional[str]:
    key = env_read_key(model, expr)
    if key is not None:
        return "local" if key in _LOCAL_RANK_ENV else "global" if key in _GLOBAL_RANK_ENV else None
    if isinstance(expr, ast.Call):
        name = model.resolve(expr.func)
        if name in _LOCAL_RANK_CALLS and not expr.args:
            return "local"
        if name in _GLOBAL_RANK_CALLS:
            group = _argument(expr, 0, "group")
            return "global" if group is None or _is_none(group) or _default_group(model, group) else None
        return _returned_rank(model, expr, (), depth) if name is None else None
    if isinstance(expr, ast.IfExp):
        return _rank_of_branches(model, [expr.body, expr.orelse], depth)
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
        return _rank_of_branches(model, expr.values, depth)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod):
        left = _rank(model, expr.left, depth + 1)
        if left is not None and _per_node_count(model, expr.right):
            return "local"
        if left == "global" and _world_size(model, expr.right):
            return "global"  # (a rank is below the world size: `get_rank() % get_world_size()` is the rank)
        return None
    if isinstance(expr, ast.Attribute):
        return _rank_attribute(model, expr, depth)
    if isinstance(expr, ast.Name):
        binding = model.binding_of(expr)
        if binding is not None and binding.kind == "parameter":
            if _is_spawn_index(model, binding):
                return "spawn-index"
            if binding.name == "local_rank":
                return "local"
        if binding is not None and binding.index and isinstance(binding.value, ast.Call) \
                and len(model.reaching(expr.id, expr)) == 1:
            return _returned_rank(model, binding.value, binding.index, depth)  # `rank, world = init()`
    return None


def _returned_rank(model: SemanticModel, call: ast.Call, index: tuple, depth: int) -> Optional[str]:
    """The rank a call of a function of this module gives (element `index` of it when unpacked, a
    str of `index` the field of the object it builds): the one rank every return of the def gives
    (a not-distributed fallback 0 / -1 aside), its body ending in a return (no implicit None); None
    for a generator, a coroutine or returns that disagree. A dataclass of the module built with the
    field by keyword (`DistEnv(rank=...)`), or a classmethod returning `cls(rank=...)`, gives it too."""
    function = _module_function(model, call.func) or _module_classmethod(model, call.func)
    if function is None and index and isinstance(index[0], str):
        field_value = built_field(model, call, index[0], None)
        return _rank(model, field_value, depth + 1) if field_value is not None and len(index) == 1 else None
    if not isinstance(function, ast.FunctionDef) or not function.body or not isinstance(function.body[-1], ast.Return):
        return None
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(function)):
        return None
    own_class = _first_parameter(function) if _module_classmethod(model, call.func) is function else None
    kinds = set()
    for ret in _returns(function):
        value = ret.value
        for i in index:
            value = model.value_of(value) if value is not None else None
            if isinstance(i, str):
                value = built_field(model, value, i, own_class) if isinstance(value, ast.Call) else None
                if value is None:
                    return None
                continue
            if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts) \
                    or not -len(value.elts) <= i < len(value.elts):
                return None
            value = value.elts[i]
        if isinstance(value, ast.Constant) and value.value in _NEUTRAL and not isinstance(value.value, bool):
            continue  # `if not dist.is_initialized(): return 0`
        kind = _rank(model, value, depth + 1) if value is not None else None
        if kind is None:
            return None
        kinds.add(kind)
    return kinds.pop() if len(kinds) == 1 else None


def _module_classmethod(model: SemanticModel, func: ast.AST) -> Optional[ast.FunctionDef]:
    """The def of `Cls.build` for a classmethod of a class this module defines."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    binding = model.binding_of(func.value)
    klass = binding.node if binding is not None and binding.kind == "class" else None
    for stmt in klass.body if isinstance(klass, ast.ClassDef) else ():
        if isinstance(stmt, ast.FunctionDef) and stmt.name == func.attr and any(
                isinstance(d, ast.Name) and d.id == "classmethod" for d in stmt.decorator_list):
            return stmt
    return None


def _first_parameter(function: ast.FunctionDef) -> Optional[str]:
    args = function.args.posonlyargs + function.args.args
    return args[0].arg if args else None


def built_field(model: SemanticModel, call: ast.Call, field: str, own_class: Optional[str]) -> Optional[ast.AST]:
    """The value `call` gives `field` of the dataclass it builds, by keyword: `DistEnv(rank=...)` of a
    dataclass this module defines, or `cls(rank=...)` in a classmethod of one (`own_class`: its first
    parameter's name); None otherwise (a plain class's `__init__` may store anything)."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == own_class:
        klass = model.class_of(call)
    else:
        binding = model.binding_of(func) if isinstance(func, ast.Name) else None
        klass = binding.node if binding is not None and binding.kind == "class" else None
    if not isinstance(klass, ast.ClassDef) or not _is_dataclass(model, klass):
        return None
    return next((kw.value for kw in call.keywords if kw.arg == field), None)


def _rank_of_branches(model: SemanticModel, branches: list, depth: int) -> Optional[str]:
    kinds = set()
    for branch in branches:
        if isinstance(branch, ast.Constant) and branch.value in _NEUTRAL and not isinstance(branch.value, bool):
            continue
        kind = _rank(model, branch, depth + 1)
        if kind is None:
            return None
        kinds.add(kind)
    return kinds.pop() if len(kinds) == 1 else None


def _per_node_count(model: SemanticModel, expr: ast.AST) -> bool:
    """`torch.cuda.device_count()`, LOCAL_WORLD_SIZE and the like, through bindings."""
    for value in model.values_of(expr):
        if isinstance(value, ast.Call) and model.resolve(value.func) == "torch.cuda.device_count":
            continue
        if env_read_key(model, value) in _PER_NODE_COUNTS_ENV:
            continue
        return False
    return True


_WORLD_SIZE_CALLS = ("torch.distributed.get_world_size", "deepspeed.comm.get_world_size", "horovod.torch.size",
                     "mmengine.dist.get_world_size", "mmengine.dist.utils.get_world_size")


def _world_size(model: SemanticModel, expr: ast.AST) -> bool:
    """`dist.get_world_size()` of the world group, or WORLD_SIZE, through bindings."""
    values = model.values_of(expr)
    for value in values:
        if isinstance(value, ast.Call) and model.resolve(value.func) in _WORLD_SIZE_CALLS \
                and not value.args and not value.keywords:
            continue
        if env_read_key(model, value) == "WORLD_SIZE":
            continue
        return False
    return bool(values)


def _rank_attribute(model: SemanticModel, expr: ast.Attribute, depth: int) -> Optional[str]:
    attr = expr.attr
    if attr in ("local_process_index", "process_index"):
        if _made_by(model, expr.value, _ACCELERATE_STATES) or _last_name(expr.value) in ("accelerator", "state"):
            return "local" if attr == "local_process_index" else "global"
        return None
    if attr in ("global_rank", "local_rank"):
        if (_made_by(model, expr.value, _LIGHTNING_OBJECTS) or _last_name(expr.value) in ("trainer", "fabric")
                or _is_lightning_self(model, expr.value)):
            return "global" if attr == "global_rank" else "local"
        if attr == "local_rank":
            if _made_by(model, expr.value, _HF_TRAINING_ARGUMENTS):
                return "local"
            if is_namespace(model, expr.value):
                return _cli_local_rank(model, expr, depth)
    value = model.value_of(expr.value)  # `env.rank` of `env = DistEnv.from_env()` (a dataclass of the module)
    return _returned_rank(model, value, (attr,), depth) if isinstance(value, ast.Call) else None


def _cli_local_rank(model: SemanticModel, expr: ast.Attribute, depth: int) -> Optional[str]:
    """`args.local_rank` of argparse's `--local_rank` / `--local-rank` (what the launchers pass);
    when the script assigns `args.local_rank` itself, only if what it assigns is a local rank too."""
    if "local_rank" not in _argparse(model).specs:
        return None
    receiver = ast.dump(expr.value)
    for store in model.attribute_stores("local_rank"):
        if ast.dump(store.value) != receiver:
            continue
        parent = model.facts.context_of(store)
        stmt = parent.parent if parent is not None else None
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            return None
        if _rank(model, stmt.value, depth + 1) != "local":
            return None
    return "local"


def _made_by(model: SemanticModel, expr: ast.AST, qualnames: tuple) -> bool:
    value = model.value_of(expr)
    return isinstance(value, ast.Call) and model.resolve(value.func) in qualnames


def _last_name(expr: ast.AST) -> Optional[str]:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Name):
        return expr.id
    return None


def _is_lightning_self(model: SemanticModel, expr: ast.AST) -> bool:
    """`self` in a method of a class deriving from LightningModule."""
    if not isinstance(expr, ast.Name):
        return False
    binding = model.binding_of(expr)
    if binding is None or binding.kind != "parameter" or binding.position != 0:
        return False
    cls = binding.scope.parent
    if cls is None or cls.kind != "class":
        return False
    return any(model.resolve(base) in _LIGHTNING_MODULES for base in cls.node.bases)


def _is_spawn_index(model: SemanticModel, binding: Binding) -> bool:
    """Is this parameter the process index `torch.multiprocessing.spawn(fn, ...)` passes to fn?"""
    if binding.name not in _SPAWN_INDEX_NAMES or binding.position is None:
        return False
    function = binding.scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for name in _SPAWN:
        for site in model.facts.method_calls(name.rsplit(".", 1)[-1]):
            call = site.node
            if model.resolve(call.func) not in _SPAWN:
                continue
            fn = _argument(call, 0, "fn")
            bound = 0
            if isinstance(fn, ast.Call) and model.resolve(fn.func) == "functools.partial" and fn.args:
                bound = len(fn.args) - 1  # partial(worker, a) passes the index after `a`
                fn = fn.args[0]
            if isinstance(fn, ast.Name):
                target = model.binding_of(fn)
                if target is not None and target.node is function and binding.position == bound:
                    return True
    return False


# -- fields of instances ------------------------------------------------------------------------

@dataclass(frozen=True)
class InstanceField:
    """`cfg.device` where `cfg` is an instance of a class built with that field left at its default.

    `klass` is the callee expression that built it (`TrainConfig`, `config.TrainConfig`): a class
    of this module (`local`), or a name another module defines, which the program layer resolves.
    """

    klass: ast.expr
    field: str
    local: bool


def instance_field(model: SemanticModel, expr: ast.AST) -> Optional[InstanceField]:
    """`X.field` when X evaluates (through bindings, a same-module function's single return, and
    `dataclasses.replace(inst, ...)`) to `C(...)` called without that field, and nothing assigns
    `X.field` later; overrides passed as `**kwargs` count only when their keys are provably other
    fields (a dict built from `vars(args)` of a parser that has no such option). Else None."""
    if not isinstance(expr, ast.Attribute) or overridden_attribute(model, expr):
        return None
    field = expr.attr
    value = model.value_of(expr.value)
    for _ in range(4):
        if not isinstance(value, ast.Call):
            return None
        callee = model.resolve(value.func) or ""
        if callee in ("dataclasses.replace", "copy.replace"):
            if not value.args or not _keeps_field(model, value, field, skip=1):
                return None
            value = model.value_of(value.args[0])
            continue
        function = _module_function(model, value.func)
        if function is not None:
            returns = [r.value for r in _returns(function)]
            if len(returns) != 1 or returns[0] is None:
                return None
            value = model.value_of(returns[0])
            continue
        break
    if not isinstance(value, ast.Call) or not _keeps_field(model, value, field, skip=0):
        return None
    local = _module_class(model, value.func)
    if local is not None:
        return InstanceField(value.func, field, True)
    root = root_name(value.func)
    binding = model.binding_of(root) if root is not None else None
    if binding is None or binding.kind not in ("import", "from-import"):
        return None
    return InstanceField(value.func, field, False)


def _keeps_field(model: SemanticModel, call: ast.Call, field: str, skip: int) -> bool:
    """Does this constructor (or `replace`) call leave `field` alone? Positional arguments past
    `skip` may set any field: unknown, so no."""
    if len(call.args) > skip:
        return False
    for keyword in call.keywords:
        if keyword.arg == field:
            return False
        if keyword.arg is None and field in _possible_keys(model, keyword.value):
            return False
    return True


def _possible_keys(model: SemanticModel, expr: ast.AST):
    """The keys a `**mapping` may hold: a dict literal's, a comprehension over `vars(args)` of
    this module's parser (its option names), else everything (`_ANY`)."""
    value = model.value_of(expr)
    if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) for k in value.keys):
        return {k.value for k in value.keys}
    if isinstance(value, ast.DictComp) and value.generators:
        source = value.generators[0].iter
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "items":
            source = source.func.value
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "vars" \
                and source.args and is_namespace(model, source.args[0]):
            return set(argparse_defaults(model))
    return _ANY


class _AnyKeys:
    def __contains__(self, item) -> bool:
        return True


_ANY = _AnyKeys()


def argparse_takes_text(model: SemanticModel, dest: str) -> bool:
    """Is the argparse option with this dest stored as the text given (no `type=`, no `action=`, one
    value: `nargs` not set)?"""
    spec = _argparse(model).specs.get(dest)
    return spec is not None and spec.type_name is None and spec.action is None and not any(
        k.arg in ("type", "action", "nargs", "choices") for k in spec.node.keywords)


def argparse_options(model: SemanticModel, dest: str) -> tuple:
    """The option strings of the argparse argument with this dest (`("--gpus", "-g")`), else ()."""
    spec = _argparse(model).specs.get(dest)
    if spec is None:
        return ()
    return tuple(a.value for a in spec.node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                 and a.value.startswith("-"))


# -- command-line defaults against the launch lines ---------------------------------------------
def option_on_command_line(args: list, options: tuple) -> tuple[Optional[bool], Optional[str]]:
    """Does a script's argument list (`ShellArg`s of a launch line) pass one of `options`?
    (True, its last literal value or None), (False, None) when every word is known and none is
    one, (None, None) when a word dslint cannot read (`"$@"`, `$EXTRA_ARGS`) may hold one.
    argparse's prefixes of long options (`--num` for `--num-workers`) and attached short values
    (`-j8`) count as giving it."""
    if FIRE_WORDS in options:
        return _fire_given(args, options)
    given: Optional[bool] = False
    value: Optional[str] = None
    for _, text in _option_values(args, options):
        if text is _UNREADABLE:
            given = None if given is False else given
        else:
            given, value = True, text
    return given, value


_UNREADABLE = object()  # (_option_values: a word dslint cannot read, which may hold the option)


def _option_values(args: list, options: tuple):
    """(the word holding the value or None, the value text or None) for each time the argument list
    passes one of `options` (argparse prefixes and attached short values too, as option_on_command_line
    says); (None, _UNREADABLE) for each word dslint cannot read."""
    longs = [o for o in options if o.startswith("--")]
    shorts = [o for o in options if len(o) == 2 and o[0] == "-" and o[1] != "-"]
    for k, arg in enumerate(args):
        if arg.value is None:
            yield None, _UNREADABLE
            continue
        name, eq, attached = arg.value.partition("=")
        if name in options or (len(name) > 2 and name.startswith("--") and any(o.startswith(name) for o in longs)):
            nxt = args[k + 1] if k + 1 < len(args) else None
            yield (arg, attached) if eq else (nxt, nxt.value if nxt is not None else None)
        elif any(arg.value.startswith(s) and len(arg.value) > 2 for s in shorts):
            yield arg, arg.value[2:]


def option_value_word(args: list, options: tuple):
    """(the word, its value text) of the last value a launch line's argument list gives one of `options`;
    None when it gives none, or a word dslint cannot read may."""
    found = None
    for word, text in _option_values(args, options):
        if text is _UNREADABLE:
            return None
        if word is not None:
            found = (word, text)
    return found


# -- OmegaConf / Hydra config objects -----------------------------------------------------------
_OMEGACONF_LOADS = frozenset(("omegaconf.OmegaConf.load", "omegaconf.omegaconf.OmegaConf.load"))
# Calls that read a config object without changing it; any other call it is passed to might.
_READS_CONFIG = frozenset(("print", "omegaconf.OmegaConf.to_yaml", "omegaconf.OmegaConf.to_container",
                           "omegaconf.OmegaConf.to_object", "omegaconf.OmegaConf.set_struct",
                           "omegaconf.OmegaConf.set_readonly"))


@dataclass(frozen=True)
class ConfigObjectRead:
    """`cfg.model.device` where `cfg` is `OmegaConf.load("<path>")` (how="load", path the YAML file
    as written) or the config parameter of `@hydra.main(config_path=..., config_name=...)` (how="hydra",
    path the config folder, name the primary config). The YAML leaf is read in the project phase
    (facts/omegaconf_values.py)."""

    how: str
    path: str
    name: Optional[str]
    keys: tuple
    # how="load" of `OmegaConf.load(args.config)`: the option strings of that argparse option; `path` is
    # its default ("" when none), the file a launch line that does not pass one of them reads
    options: tuple = ()


def config_object_read(model: SemanticModel, expr: Optional[ast.AST], hops: int = 4) -> Optional[ConfigObjectRead]:
    """The OmegaConf/Hydra config leaf `expr` reads (through a few names), or None when it is not one,
    or the config object may be changed in the script (a store into it, a merge, passed to a call)."""
    if expr is None:
        return None
    node = model.value_of(expr, hops) if isinstance(expr, ast.Name) else expr
    keys: list = []
    while True:
        if isinstance(node, ast.Attribute):
            keys.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            keys.append(node.slice.value)
            node = node.value
        else:
            break
    if not keys or not isinstance(node, ast.Name):
        return None
    binding = model.binding_of(node)
    if binding is None or _config_changed(model, binding):
        return None
    keys_read = tuple(reversed(keys))
    if binding.kind == "assignment" and binding.index is None and isinstance(binding.value, ast.Call):
        call = binding.value
        if model.resolve(call.func) in _OMEGACONF_LOADS and len(call.args) == 1 and not call.keywords:
            path = literal(call.args[0])
            if isinstance(path, str) and path:
                return ConfigObjectRead("load", path, None, keys_read)
            return _option_load(model, call.args[0], keys_read)
        opened = _yaml_loaded_file(model, call)
        if opened is not None:  # `cfg = yaml.safe_load(f)` of `with open(args.config) as f`: the same YAML leaves
            path = literal(opened)
            if isinstance(path, str) and path:
                return ConfigObjectRead("load", path, None, keys_read)
            return _option_load(model, opened, keys_read)
        return None
    if binding.kind == "parameter":
        return _hydra_read(model, binding, keys_read)
    return None


_YAML_LOADS = frozenset(("yaml.safe_load", "yaml.load", "yaml.full_load"))


def _yaml_loaded_file(model: SemanticModel, call: ast.Call) -> Optional[ast.expr]:
    """The path expression of `yaml.safe_load(open(P))` or of `yaml.safe_load(f)` with `f` bound by
    `with open(P) as f` (read mode); None for anything else."""
    if model.resolve(call.func) not in _YAML_LOADS or len(call.args) != 1:
        return None
    stream = call.args[0]
    if isinstance(stream, ast.Name):
        binding = model.binding_of(stream)
        stream = binding.context if binding is not None and binding.kind == "with" else None
    builtin_open = isinstance(stream, ast.Call) and isinstance(stream.func, ast.Name) and stream.func.id == "open" \
        and model.binding_of(stream.func) is None
    if not (isinstance(stream, ast.Call) and (builtin_open or model.resolve(stream.func) == "io.open")
            and stream.args and not any(isinstance(a, ast.Starred) for a in stream.args)):
        return None
    mode = literal(_argument(stream, 1, "mode"))
    return stream.args[0] if mode is None or mode in ("r", "rt") else None


def _option_load(model: SemanticModel, arg: ast.expr, keys: tuple) -> Optional[ConfigObjectRead]:
    """`OmegaConf.load(args.config)` with `--config` an argparse option of this module that nothing
    assigns afterwards: its default (or "") and its option strings."""
    if not (isinstance(arg, ast.Attribute) and is_namespace(model, arg.value)) or overridden_attribute(model, arg):
        return None
    options = argparse_options(model, arg.attr)
    if not options:
        return None
    default = argparse_defaults(model).get(arg.attr)
    path = literal(default) if default is not None else ""
    return ConfigObjectRead("load", path, None, keys, options) if isinstance(path, str) else None


def _hydra_read(model: SemanticModel, binding: Binding, keys: tuple) -> Optional[ConfigObjectRead]:
    arguments = model.parent_of(binding.node)
    function = model.parent_of(arguments) if isinstance(arguments, ast.arguments) else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    positional = [*function.args.posonlyargs, *function.args.args]
    if not positional or positional[0] is not binding.node:
        return None
    for decorator in function.decorator_list:
        if not isinstance(decorator, ast.Call) or model.resolve(decorator.func) != "hydra.main":
            continue
        # hydra.main(config_path=None, config_name=None, version_base=...)
        path = literal(_argument(decorator, 0, "config_path"))
        name = literal(_argument(decorator, 1, "config_name"))
        if isinstance(path, str) and isinstance(name, str) and name:
            return ConfigObjectRead("hydra", path, name, keys)
    return None


def _config_changed(model: SemanticModel, binding: Binding) -> bool:
    for use in model.uses_of(binding):
        node, parent = use, model.parent_of(use)
        while isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node:
            node, parent = parent, model.parent_of(parent)
        if getattr(node, "ctx", None) is not None and not isinstance(node.ctx, ast.Load):
            return True  # cfg.device = ..., del cfg.x
        if isinstance(parent, ast.Call) and parent.func is node and node is not use:
            return True  # cfg.merge_with(...), cfg.update(...)
        if isinstance(parent, (ast.Call, ast.keyword)) and node is use:
            call = parent if isinstance(parent, ast.Call) else model.parent_of(parent)
            if not isinstance(call, ast.Call) or model.resolve(call.func) not in _READS_CONFIG and \
                    dotted(call.func) not in _READS_CONFIG:
                return True  # OmegaConf.update(cfg, ...), helper(cfg)
    return False
