"""Per-file facts for a Python training script, built by one walk of its `ast`.

Every rule reads these facts instead of walking the tree again: calls with their resolved
qualified names, the nodes of each type, and for each recorded node its *context* (enclosing
function and class, loops, `if` branches, `with` blocks, whether it runs at import time).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..sources.names import ImportTable, attribute_chain, canonical, dotted
from ..textpos import LineIndex


class Context:
    """Where a node sits. Shared by all nodes of the same block; never mutated."""

    __slots__ = ("function", "class_", "loops", "guards", "withs", "parent")

    def __init__(self, function=None, class_=None, loops=(), guards=(), withs=(), parent=None):
        self.function: Optional[ast.AST] = function  # innermost FunctionDef/AsyncFunctionDef/Lambda
        self.class_: Optional[ast.ClassDef] = class_  # innermost class whose body (or method) holds it
        self.loops: tuple = loops  # enclosing For/While nodes, outermost first
        self.guards: tuple = guards  # (If node, in_body: bool) pairs, outermost first
        self.withs: tuple = withs  # enclosing With nodes
        self.parent: Optional[ast.AST] = parent  # the statement/expression that holds the node

    @property
    def at_import_time(self) -> bool:
        """True when the code runs when the module is imported (module level or class body)."""
        return self.function is None

    def replace(self, **changes) -> "Context":
        get = changes.get
        return Context(get("function", self.function), get("class_", self.class_), get("loops", self.loops),
                       get("guards", self.guards), get("withs", self.withs), get("parent", self.parent))

    def with_parent(self, parent: ast.AST) -> "Context":
        return Context(self.function, self.class_, self.loops, self.guards, self.withs, parent)


@dataclass
class CallSite:
    node: ast.Call
    ctx: Context
    qualname: Optional[str]  # canonical qualified name when the callee is rooted in an import
    attr: str  # last name of the callee (`set_epoch` in `sampler.set_epoch(e)`)
    receiver: Optional[str]  # dotted receiver of a method call (`train_sampler`), else None

    def keyword(self, name: str) -> Optional[ast.expr]:
        for kw in self.node.keywords:
            if kw.arg == name:
                return kw.value
        return None

    def argument(self, position: int, name: str) -> Optional[ast.expr]:
        """The argument given positionally at `position` or by keyword `name`."""
        if position is not None and len(self.node.args) > position and not any(
            isinstance(a, ast.Starred) for a in self.node.args[: position + 1]
        ):
            return self.node.args[position]
        return self.keyword(name)

    @property
    def has_star_kwargs(self) -> bool:
        return any(kw.arg is None for kw in self.node.keywords)

    @property
    def local_name(self) -> str:
        """The callee as this module spells it (`make_loader`, `utils.setup`): ModuleExports.called's key."""
        return f"{self.receiver}.{self.attr}" if self.receiver else self.attr

    def calls_project_name(self, imports) -> bool:
        """Is the callee a name this module imports from the project (`fit(...)`, `utils.probe()`), not a
        library's nor a method of a local object?"""
        head = self.receiver.split(".", 1)[0] if self.receiver else self.attr
        return head in imports.project_names() and (self.receiver is not None or isinstance(self.node.func, ast.Name))


@dataclass
class Assignment:
    name: str  # dotted target (`loader`, `self.sampler`)
    value: ast.expr
    node: ast.stmt
    ctx: Context


@dataclass
class ScriptFacts:
    path: str
    text: str
    tree: ast.Module
    lines: LineIndex
    imports: ImportTable
    calls: list[CallSite] = field(default_factory=list)
    nodes: dict[type, list[tuple[ast.AST, Context]]] = field(default_factory=dict)
    assignments: list[Assignment] = field(default_factory=list)
    functions: dict[str, ast.AST] = field(default_factory=dict)  # module-level defs and `Class.method`
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    _by_qualname: dict[str, list[CallSite]] = field(default_factory=dict)
    _by_attr: dict[str, list[CallSite]] = field(default_factory=dict)
    _ctx_of: dict[int, Context] = field(default_factory=dict)  # id(node) -> context; see context_of

    # -- queries used by rules ------------------------------------------------------------
    def calls_to(self, *qualnames: str) -> list[CallSite]:
        """Calls whose callee resolves to one of these canonical qualified names."""
        if len(qualnames) == 1:
            return self._by_qualname.get(qualnames[0], [])
        return [c for q in qualnames for c in self._by_qualname.get(q, [])]

    def calls_with_prefix(self, prefix: str) -> Iterator[CallSite]:
        for q, sites in self._by_qualname.items():
            if q.startswith(prefix):
                yield from sites

    def method_calls(self, attr: str) -> list[CallSite]:
        """Calls of `<anything>.attr(...)` and of a bare `attr(...)`, resolved or not."""
        return self._by_attr.get(attr, [])

    def of_type(self, node_type: type) -> list[tuple[ast.AST, Context]]:
        return self.nodes.get(node_type, [])

    def context_of(self, node: ast.AST) -> Optional[Context]:
        """The context of an indexed node (any type but `_NOT_INDEXED`), else None."""
        ctx_of = self._ctx_of
        if not ctx_of and self.nodes:
            # Built from the type index on first use: three files in four never ask.
            ctx_of = self._ctx_of = {id(n): c for entries in self.nodes.values() for n, c in entries}
        return ctx_of.get(id(node))

    def assignments_to(self, name: str, function: Optional[ast.AST] = ...) -> list[Assignment]:
        """Assignments to `name`; with `function` given, only those in that scope."""
        return [
            a for a in self.assignments
            if a.name == name and (function is ... or a.ctx.function is function)
        ]

    def resolve(self, expr: ast.AST) -> Optional[str]:
        return self.imports.resolve(expr)

    def callee_name(self, call: ast.Call) -> Optional[str]:
        return self.imports.resolve(call.func)

    def uses(self, package: str) -> bool:
        return self.imports.uses(package)

    def derived(self, name: str, build):
        """What a facts module derives from these facts (a semantic model, rank tests), built once
        and kept as attribute `_<name>`; the engine drops such attributes after the rules ran."""
        attribute = f"_{name}"
        found = self.__dict__.get(attribute)
        if found is None:
            found = build(self)
            setattr(self, attribute, found)
        return found


# (`log_every`: the MetricLogger of DETR, DeiT, MAE, DINO and the torchvision references yields from its first argument)
_ITERATION_WRAPPERS = ("enumerate", "tqdm", "zip", "iter", "track", "progress_bar", "log_every")


def iterated_expression(expr: ast.AST) -> ast.AST:
    """What a `for` loop iterates: `enumerate(loader)`, `tqdm(loader, ...)`, `zip(loader, ...)` → `loader`."""
    while isinstance(expr, ast.Call) and expr.args and isinstance(expr.func, (ast.Name, ast.Attribute)):
        name = expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr
        if name not in _ITERATION_WRAPPERS:
            break
        expr = expr.args[0]
    return expr


def epoch_counter(loop: Optional[ast.AST]) -> Optional[str]:
    """The epoch of an epoch loop: a `for` target, or the `epoch += 1` counter of a `while` body;
    None when there is none (`for _ in ...` included)."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        name = dotted(loop.target)
        return name if name and name != "_" else None
    if isinstance(loop, ast.While):
        for stmt in loop.body:
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and literal(stmt.value) == 1:
                return dotted(stmt.target)
    return None


def own_returns(function: ast.AST) -> list:
    """The `return` statements of `function` itself (not of a def, lambda or class inside it)."""
    out, todo = [], list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def assigned_name(facts: "ScriptFacts", node: ast.AST, ctx: Optional[Context] = None) -> Optional[str]:
    """The name a call's value is assigned to (`loader = DataLoader(...)` → `loader`). `ctx`: the
    node's context when the caller has it (a CallSite's), which spares building `context_of`'s index."""
    ctx = ctx if ctx is not None else facts.context_of(node)
    parent = ctx.parent if ctx else None
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        if len(targets) == 1 and isinstance(targets[0], (ast.Name, ast.Attribute)):
            return dotted(targets[0])
    return None


def statement_of(facts: "ScriptFacts", node: ast.AST) -> Optional[ast.stmt]:
    """The statement that holds `node` (the node itself when it is a statement)."""
    while node is not None and not isinstance(node, ast.stmt):
        ctx = facts.context_of(node)
        node = ctx.parent if ctx else None
    return node


def literal(node: Optional[ast.AST]):
    """The Python value of a literal expression (`8`, `"cuda:0"`, `[0, 1]`), or None."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


# Node types that no rule asks for; not indexed, to keep the walk lean.
_NOT_INDEXED = (ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.operator, ast.cmpop,
                ast.boolop, ast.unaryop, ast.arg, ast.arguments, ast.keyword, ast.alias)
# Of those, the ones with no node below them that is indexed: never pushed on the walk's stack.
# (Name's only child is its Load/Store context.) About half the nodes of a script are these.
_LEAVES = frozenset(
    cls for cls in vars(ast).values()
    if isinstance(cls, type) and issubclass(cls, (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.cmpop,
                                                  ast.boolop, ast.unaryop, ast.alias))
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # node type -> its fields that may hold nodes
_INDEXED: dict[type, bool] = {}
# Fields that hold only strings, numbers or leaves (`Name.ctx`; in 3.12+ `TypeAlias.name` is a Name).
_SCALAR_FIELDS = frozenset(("ctx", "attr", "id", "name", "arg", "module", "level", "kind", "type_comment",
                            "conversion", "is_async", "simple"))
# The node types the walk treats specially; every other type takes the generic path.
_STRUCTURED = frozenset((ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For,
                         ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Lambda, ast.Assign,
                         ast.AnnAssign))


def _child_fields(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
    return fields


def enclosing_functions(facts: ScriptFacts, function: Optional[ast.AST], limit: int = 8) -> list:
    """`function` and the functions it is nested in, innermost first (a closure sees their names)."""
    found = []
    while function is not None and len(found) < limit:
        found.append(function)
        where = facts.context_of(function)
        function = where.function if where is not None else None
    return found


def build_script_facts(path: str, text: str, tree: ast.Module) -> ScriptFacts:
    """Walk `tree` once and collect everything rules need."""
    facts = ScriptFacts(path=path, text=text, tree=tree, lines=LineIndex(text), imports=ImportTable())
    imports = facts.imports
    nodes = facts.nodes
    calls: list[tuple[ast.Call, Context]] = []
    assignments = facts.assignments
    root = Context()
    stack: list[tuple[ast.AST, Context]] = [(stmt, root) for stmt in reversed(tree.body)]
    push = stack.append
    pop = stack.pop
    leaves = _LEAVES
    indexed_types = _INDEXED
    structured = _STRUCTURED
    child_fields = _CHILD_FIELDS
    AST = ast.AST
    Call = ast.Call
    Attribute = ast.Attribute
    while stack:
        node, ctx = pop()
        kind = type(node)
        if kind in leaves:
            continue
        indexed = indexed_types.get(kind)
        if indexed is None:
            indexed = indexed_types[kind] = not issubclass(kind, _NOT_INDEXED)
        if indexed:
            entries = nodes.get(kind)
            if entries is None:
                entries = nodes[kind] = []
            entries.append((node, ctx))
        if kind is Call:
            calls.append((node, ctx))
        elif kind is Attribute:
            # A quarter of the nodes walked: its one child pushed without the generic path.
            value = node.value
            if type(value) not in leaves:
                push((value, Context(ctx.function, ctx.class_, ctx.loops, ctx.guards, ctx.withs, node)))
            continue
        elif kind not in structured:
            pass  # straight to the generic path below
        elif kind is ast.Import or kind is ast.ImportFrom:
            imports.add(node)
            continue
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            if ctx.function is None:
                key = f"{ctx.class_.name}.{node.name}" if ctx.class_ is not None else node.name
                facts.functions.setdefault(key, node)
            inner = Context(function=node, class_=ctx.class_, parent=node)
            for stmt in reversed(node.body):
                push((stmt, inner))
            outer = Context(ctx.function, ctx.class_, ctx.loops, ctx.guards, ctx.withs, node)
            for dec in node.decorator_list:
                push((dec, outer))
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                push((default, outer))  # defaults run when the def runs
            continue
        elif kind is ast.ClassDef:
            if ctx.function is None:
                facts.classes.setdefault(node.name, node)
            inner = Context(ctx.function, node, ctx.loops, ctx.guards, ctx.withs, node)
            for stmt in reversed(node.body):
                push((stmt, inner))
            for expr in node.bases + node.decorator_list + [k.value for k in node.keywords]:
                push((expr, ctx))
            continue
        elif kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
            inner = Context(ctx.function, ctx.class_, ctx.loops + (node,), ctx.guards, ctx.withs, node)
            for stmt in reversed(node.body):
                push((stmt, inner))
            for stmt in reversed(node.orelse):
                push((stmt, ctx))
            if kind is ast.While:
                push((node.test, ctx))
            else:
                push((node.iter, ctx))
                push((node.target, ctx))
            continue
        elif kind is ast.If:
            body_ctx = Context(ctx.function, ctx.class_, ctx.loops, ctx.guards + ((node, True),), ctx.withs, node)
            else_ctx = Context(ctx.function, ctx.class_, ctx.loops, ctx.guards + ((node, False),), ctx.withs, node)
            for stmt in reversed(node.orelse):
                push((stmt, else_ctx))
            for stmt in reversed(node.body):
                push((stmt, body_ctx))
            push((node.test, ctx))
            continue
        elif kind is ast.With or kind is ast.AsyncWith:
            inner = Context(ctx.function, ctx.class_, ctx.loops, ctx.guards, ctx.withs + (node,), node)
            for stmt in reversed(node.body):
                push((stmt, inner))
            for item in node.items:
                push((item.context_expr, ctx))
            continue
        elif kind is ast.Lambda:
            inner = Context(function=node, class_=ctx.class_, parent=node)
            push((node.body, inner))
            continue
        elif kind is ast.Assign or kind is ast.AnnAssign:
            value = node.value
            if value is not None:
                targets = node.targets if kind is ast.Assign else [node.target]
                for target in targets:
                    if type(target) is ast.Name:  # the common case, without the call
                        assignments.append(Assignment(target.id, value, node, ctx))
                    else:
                        _record_assignment(facts, target, value, node, ctx)
        # The children of any other node: `ast.iter_child_nodes` order, leaves skipped, and the
        # child context (parent = this node) made only when a child needs it.
        child_ctx = ctx if ctx.parent is node else None
        for name in child_fields.get(kind) or _child_fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                for child in value:
                    if type(child) not in leaves and isinstance(child, AST):
                        if child_ctx is None:
                            child_ctx = Context(ctx.function, ctx.class_, ctx.loops, ctx.guards, ctx.withs, node)
                        push((child, child_ctx))
            elif type(value) not in leaves and isinstance(value, AST):
                if child_ctx is None:
                    child_ctx = Context(ctx.function, ctx.class_, ctx.loops, ctx.guards, ctx.withs, node)
                push((value, child_ctx))

    if imports.star and "torch" not in imports.names and "torch" in text:
        imports.bind_starred_torch(tree)
    by_q = facts._by_qualname
    by_attr = facts._by_attr
    imported = imports.names
    sites = facts.calls
    Attribute, Name = ast.Attribute, ast.Name
    for call, ctx in calls:
        func = call.func
        # One attribute chain gives both the qualified name (`imports.resolve`) and the receiver
        # (`dotted(func.value)`).
        kind = type(func)
        if kind is Name:
            attr, receiver = func.id, None
            base = imported.get(attr)
            qualname = canonical(base) if base is not None else None
        elif kind is Attribute:
            attr = func.attr
            root, chain = attribute_chain(func)
            if root is None:
                qualname = receiver = None
            else:
                base = imported.get(root.id)
                qualname = canonical(".".join((base, *chain))) if base is not None else None
                receiver = ".".join((root.id, *chain[:-1]))
        else:
            attr, receiver = "", None
            qualname = imports.resolve(func)
        site = CallSite(call, ctx, qualname, attr, receiver)
        sites.append(site)
        if qualname:
            by_q.setdefault(qualname, []).append(site)
        if attr:
            by_attr.setdefault(attr, []).append(site)
    return facts


def _record_assignment(facts: ScriptFacts, target: ast.expr, value: ast.expr, node: ast.stmt, ctx: Context) -> None:
    if isinstance(target, (ast.Tuple, ast.List)):
        # `model, opt, loader = accelerator.prepare(...)`: each name gets the whole call
        for element in target.elts:
            _record_assignment(facts, element, value, node, ctx)
        return
    name = dotted(target)
    if name:
        facts.assignments.append(Assignment(name, value, node, ctx))
