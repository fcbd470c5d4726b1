"""Scopes and bindings of one module: which binding of a name reaches a use, and what it was bound to.

dslint's version of ruff's `SemanticModel` (`find_binding_value`) and pyflakes' scopes, on the
stdlib `ast`. Rules ask "which binding reaches here?" instead of matching names, so that a
parameter `rank` shadows a module-level `rank = int(os.environ["RANK"])`, `model = DDP(model)`
reaches the later `model.module`, and `is_main = dist.get_rank() == 0` is followed to its test.

Built lazily, one *unit* at a time: a module, class, function or lambda body is walked the first
time a query needs it (its comprehensions are walked with it, since they run inline). Most files
never ask, and a query inside one function walks that function and the scopes around it. Where
a scope is in the tree is found from positions, so no parent map of the whole tree is needed.

Reaching is flow-sensitive only within straight-line code of one scope (the last binding before
the use, plus any that sit in a branch, loop or `try` that may not have run, plus those a
surrounding loop carries back); a name read from an enclosing scope gets all of that scope's
bindings, since a function may run after all of them.
"""
from __future__ import annotations

import ast
import weakref
from bisect import bisect_right, insort
from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

from ..sources.names import attribute_chain, canonical, dotted
from .script import CallSite, ScriptFacts, build_script_facts

Pos = tuple[int, int]

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_TRY = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Builtins that convert without changing which value it is, for `value_of` (`int(os.environ[...])`).
_CONVERSIONS = frozenset(("int", "str", "float"))
# `self.x` assignments in these methods are the ones a reader of another method can count on.
_INIT_METHODS = ("__init__", "setup", "__post_init__")


@dataclass(slots=True, eq=False)
class Binding:
    """One binding of a name: what binds it, where, and (when there is one) the value bound.

    `node` is the statement that binds (the `arg` of a parameter, the handler of `except ... as`,
    the `NamedExpr` of a walrus, the `comprehension` of a comprehension target); `target` is the
    Name/Attribute/arg/alias node itself. `value` is the whole assigned expression (`f()` for
    `a, b = f()`), and `index` the unpack path into it (`b` → (1,); an element after a starred
    one counts from the end: `a, *rest, z = v` gives z (-1,), and `rest` has no value).
    """

    name: str  # `rank`, or `self.model` for an attribute of a method's first parameter
    kind: str  # import, from-import, parameter, assignment, annotated, augmented, for, with, def,
    # class, except, walrus, comprehension, global-assignment
    node: ast.AST
    scope: "Scope"  # the scope whose namespace it binds (the module for a `global` name)
    value: Optional[ast.expr] = None
    index: Optional[tuple[int, ...]] = None
    qualname: Optional[str] = None  # imports: canonical qualified name; relative ones keep their dots
    annotation: Optional[ast.expr] = None
    default: Optional[ast.expr] = None  # parameters
    position: Optional[int] = None  # parameters: index among the positional ones
    iter: Optional[ast.expr] = None  # for and comprehension targets
    context: Optional[ast.expr] = None  # with targets: the context manager expression
    target: Optional[ast.AST] = None
    _pos: Pos = field(default=(0, 0), repr=False)  # where it takes effect (after its value ran)
    _chain: tuple = field(default=(), repr=False)  # (control node, block) around it, outermost first
    _home: Optional["Scope"] = field(default=None, repr=False)  # the def/lambda/class/module whose code binds it
    _raw: Optional[str] = field(default=None, repr=False)  # import name as written (ImportTable's)

    @property
    def line(self) -> int:
        """1-based line of the binding."""
        node = self.target if getattr(self.target, "lineno", None) else self.node
        return getattr(node, "lineno", 0)


class Scope:
    """A module, class, function, lambda or comprehension scope and the names it binds.

    `bindings` (name → bindings in source order), `globals` and `nonlocals` are filled the
    first time they are read.
    """

    __slots__ = ("kind", "node", "parent", "_model", "_built", "_bindings", "_globals", "_nonlocals",
                 "_children", "_starts", "_maxends", "_start", "_end", "_excluded", "_loads", "_calls",
                 "_self_name", "_self_bindings", "_self_loads", "_self_attrs")

    def __init__(self, model: "SemanticModel", kind: str, node: ast.AST, parent: Optional["Scope"]):
        self.kind = kind
        self.node = node
        self.parent = parent
        self._model = weakref.proxy(model)  # the model owns its scopes, not the other way round
        self._built = False
        self._bindings: dict[str, list[Binding]] = {}
        self._globals: set[str] = set()
        self._nonlocals: set[str] = set()
        self._children: list[Scope] = []
        self._starts: list[Pos] = []
        self._maxends: list[Pos] = []
        self._start: Pos = (0, 0)  # the region of the parent's text that is this scope's own code
        self._end: Pos = (0, 0)
        self._excluded: tuple = ()  # parts of that region evaluated in the parent (defaults, ...)
        self._loads: dict[str, list[ast.Name]] = {}
        self._calls: list[ast.Call] = []
        self._self_name: Optional[str] = None  # a method's first parameter
        self._self_bindings: dict[str, list[Binding]] = {}
        self._self_loads: dict[str, list[ast.Attribute]] = {}
        self._self_attrs: Optional[dict[str, list[Binding]]] = None  # class: `self.x` of all methods

    def __repr__(self) -> str:
        name = getattr(self.node, "name", None)
        return f"<Scope {self.kind}{' ' + name if name else ''} line {getattr(self.node, 'lineno', 0)}>"

    def _ensure(self) -> "Scope":
        if not self._built:
            self._model._build(self)
        return self

    @property
    def bindings(self) -> dict[str, list[Binding]]:
        """Name → the bindings this scope's namespace gets, in source order."""
        return self._ensure()._bindings

    @property
    def globals(self) -> set[str]:
        """Names declared `global` in this scope."""
        return self._ensure()._globals

    @property
    def nonlocals(self) -> set[str]:
        """Names declared `nonlocal` in this scope."""
        return self._ensure()._nonlocals

    @property
    def children(self) -> list["Scope"]:
        """The scopes directly inside this one, in source order."""
        return self._ensure()._children


def _start(node: ast.AST) -> Pos:
    return (node.lineno, node.col_offset)


def _end(node: ast.AST) -> Pos:
    return (node.end_lineno, node.end_col_offset)


def _position(node: ast.AST) -> Optional[Pos]:
    """A node's start; for the few node types without one (arguments, comprehension, withitem,
    match_case), the start of the first node below it that has one."""
    if getattr(node, "lineno", None) is not None:
        return (node.lineno, node.col_offset)
    for inner in ast.walk(node):
        if getattr(inner, "lineno", None) is not None:
            return (inner.lineno, inner.col_offset)
    return None


def _pos_key(binding: Binding) -> Pos:
    return binding._pos


def _stmt_start(stmt: ast.AST) -> Pos:
    """Where a statement's text starts: its first decorator for a decorated def or class."""
    decorators = getattr(stmt, "decorator_list", None)
    if decorators:
        return min(_start(stmt), *(_start(d) for d in decorators))
    return (stmt.lineno, stmt.col_offset)


def _containing(stmts: list, pos: Pos):
    """The statement of `stmts` (sorted, disjoint) whose text holds `pos`, else None."""
    lo, hi = 0, len(stmts)
    while lo < hi:
        mid = (lo + hi) // 2
        if _stmt_start(stmts[mid]) <= pos:
            lo = mid + 1
        else:
            hi = mid
    if lo == 0:
        return None
    s = stmts[lo - 1]
    return s if pos < (s.end_lineno, s.end_col_offset) else None


def _in_block(stmts: list, pos: Pos) -> bool:
    return bool(stmts) and _stmt_start(stmts[0]) <= pos < _end(stmts[-1])


def _is_prefix(chain: tuple, of: tuple) -> bool:
    n = len(chain)
    return n <= len(of) and of[:n] == chain


def _exclusive(a: tuple, b: tuple) -> bool:
    """Do these two control chains sit in blocks of which at most one runs (if/else, two handlers)?"""
    for x, y in zip(a, b):
        if x == y:
            continue
        if x[0] is not y[0]:
            return False
        kind = type(x[0])
        if kind is ast.If or kind is ast.Match:
            return True
        if kind in _TRY:
            return x[1] != "body" and y[1] != "body"  # a handler excludes the else and other handlers
        return False  # a loop's else runs after its body
    return False


def _dedupe(items: list) -> list:
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


# Walk tables (as in facts/script.py): fields that may hold nodes, and nodes never worth a visit.
_SCALAR_FIELDS = frozenset(("ctx", "attr", "id", "name", "arg", "module", "level", "kind", "type_comment",
                            "conversion", "is_async", "simple", "names"))
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_SKIP = frozenset(cls for cls in vars(ast).values() if isinstance(cls, type) and issubclass(
    cls, (ast.Constant, ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop, ast.alias,
          ast.Pass, ast.Break, ast.Continue)))
_SPECIAL = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
                      ast.GeneratorExp, ast.DictComp, ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign,
                      ast.AugAssign, ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith,
                      ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Delete, ast.Match, *_TRY))


def _child_fields(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)
    return fields


class SemanticModel:
    """Scopes and bindings of one module, answering which binding reaches a use.

    Build it with `semantic_model(facts)` (cached on the facts); `SemanticModel(tree)` works on a
    bare `ast.Module` too (the script facts it needs are then built on first use).
    """

    def __init__(self, facts_or_tree: Union[ScriptFacts, ast.Module]):
        if isinstance(facts_or_tree, ScriptFacts):
            self._facts: Optional[ScriptFacts] = facts_or_tree
            self.tree: ast.Module = facts_or_tree.tree
        else:
            self._facts = None
            self.tree = facts_or_tree
        self.module = Scope(self, "module", self.tree, None)
        self.module._end = (10 ** 9, 0)
        self._scope_of_node: dict[int, Scope] = {id(self.tree): self.module}
        self._attribute_stores: Optional[dict[str, list[ast.Attribute]]] = None
        self._parents: Optional[dict[int, ast.AST]] = None  # id(node) -> the node holding it
        # Derived facts layers (facts/values.py) keep what they computed from this model here.
        self.memo: dict = {}
        # (name, id(node)) -> (node, bindings) of `reaching`: rules and summaries ask the same
        # question again for one use (half of the queries); the node is kept so its id stays its own.
        self._reached: dict = {}

    def __del__(self) -> None:
        # Scopes and bindings point at each other. Breaking those cycles when the model goes
        # (engine._drop_caches) lets reference counting free the file's tree at once.
        stack = [self.module]
        while stack:
            scope = stack.pop()
            stack += scope._children
            scope._children = []
            scope._bindings = {}
            scope._self_bindings = {}
            scope._self_attrs = None
            scope.parent = None
        self._reached = {}

    @property
    def facts(self) -> ScriptFacts:
        """The script facts of the module (built from the tree when the model was given one)."""
        if self._facts is None:
            self._facts = build_script_facts("<module>", "", self.tree)
        return self._facts

    # -- where things are ----------------------------------------------------------------------
    def scope_of(self, node: ast.AST) -> Scope:
        """The innermost scope whose code holds `node`.

        A def's decorators, defaults and annotations belong to the enclosing scope, its parameters
        and body to its own; a class's bases to the enclosing scope, its body to its own; a
        comprehension's first iterable to the enclosing scope. A scope-opening node itself (the
        FunctionDef) is in the scope where it is written.
        """
        if node is self.tree:
            return self.module
        pos = _position(node)
        scope = self.module
        if pos is None:
            return scope
        while True:
            scope._ensure()
            child = self._child_at(scope, pos, node)
            if child is None:
                return scope
            scope = child

    def _child_at(self, scope: Scope, pos: Pos, node: ast.AST) -> Optional[Scope]:
        starts = scope._starts
        i = bisect_right(starts, pos) - 1
        maxends = scope._maxends
        children = scope._children
        while i >= 0:
            if maxends[i] <= pos:
                return None
            child = children[i]
            if pos < child._end:
                # The first (innermost) child holding pos decides: a lambda in a def's default sorts
                # after the def, so it is met before the def.
                if child.node is node:
                    return None
                for part in child._excluded:
                    if _start(part) <= pos < _end(part):
                        return None
                return child
            i -= 1
        return None

    def own_scope(self, node: ast.AST) -> Scope:
        """The scope a module, class, def, lambda or comprehension node opens."""
        scope = self._scope_of_node.get(id(node))
        if scope is None:
            self.scope_of(node)  # builds the scopes down to the one holding `node`
            scope = self._scope_of_node.get(id(node))
            if scope is None:
                raise ValueError(f"{type(node).__name__} does not open a scope of this module")
        return scope

    def function_of(self, node: ast.AST) -> Optional[ast.AST]:
        """The innermost def or lambda whose body holds `node` (through classes and comprehensions), or None."""
        scope: Optional[Scope] = self.scope_of(node)
        while scope is not None and scope.kind not in ("function", "lambda"):
            scope = scope.parent
        return scope.node if scope is not None else None

    def class_of(self, node: ast.AST) -> Optional[ast.ClassDef]:
        """The innermost class whose body, or one of whose methods, holds `node`, or None."""
        scope: Optional[Scope] = self.scope_of(node)
        while scope is not None and scope.kind != "class":
            scope = scope.parent
        return scope.node if scope is not None else None

    def parent_of(self, node: ast.AST) -> Optional[ast.AST]:
        """The node that directly holds `node`: the Attribute of `x.attr`, the Call of `f(x)`, the
        statement of a top-level expression; None for the module. What a use of a binding is used
        as (`uses_of` gives the Name) is read from here. Built for the whole module on first use."""
        parents = self._parents
        if parents is None:
            parents = self._parents = {}
            # `ast.walk` + `ast.iter_child_nodes` (the same breadth-first order), without their generators.
            AST, context = ast.AST, ast.expr_context
            leaves = (ast.Name, ast.Constant)  # (no child but a context: held, never walked)
            todo = [self.tree]
            append = todo.append
            for holder in todo:
                for name in holder._fields:
                    value = getattr(holder, name, None)
                    for child in (value if type(value) is list else (value,)):
                        if type(child) in leaves:
                            parents[id(child)] = holder
                        elif isinstance(child, AST) and not isinstance(child, context):  # contexts: shared singletons
                            parents[id(child)] = holder
                            append(child)
        return parents.get(id(node))

    # -- which binding reaches -----------------------------------------------------------------
    def reaching(self, name: str, at: ast.AST) -> list[Binding]:
        """The bindings of `name` that may be its value at `at`, in source order (empty: a builtin
        or unbound name).

        LEGB with Python's class-scope rule and `global`/`nonlocal` honoured. In the scope of `at`
        (and through comprehensions and class bodies, which run inline): the last binding before
        `at` and any before it that a branch, loop or `try` may have skipped, plus the bindings a
        loop around `at` carries back. From an enclosing function or the module: all its bindings.
        """
        key = (name, id(at))
        found = self._reached.get(key)
        if found is None or found[0] is not at:
            found = self._reached[key] = (at, self._reaching_in(name, at, self.scope_of(at)))
        return list(found[1])

    def _reaching_in(self, name: str, at: ast.AST, scope: Scope) -> list[Binding]:
        pos = _position(at) or (0, 0)
        found: list[Binding] = []
        inline = True  # `at` runs while this scope's code runs (no def boundary crossed yet)
        first = True
        s: Optional[Scope] = scope
        while s is not None:
            s._ensure()
            if not first and s.kind == "class":
                s = s.parent  # class bodies do not enclose the functions in them
                continue
            declared = None
            if name in s._globals:
                declared = self.module
            elif name in s._nonlocals:
                declared = self._nonlocal_target(s, name)
            if declared is not None:
                return found + self._declared(name, declared, s, pos, inline)
            binds = s._bindings.get(name)
            if binds:
                if s.kind == "comprehension":
                    return found + list(binds)
                if not inline:
                    return found + list(binds)
                result, complete = self._flow(binds, s, pos)
                if complete or s.kind != "class":
                    return found + result
                found += result  # a class body falls back to the globals for what it lacks
            if s.kind in ("function", "lambda"):
                inline = False
            first = False
            s = s.parent
        return found

    def _declared(self, name: str, target: Scope, decl: Scope, pos: Pos, inline: bool) -> list[Binding]:
        """Bindings of a name declared global/nonlocal in `decl`, living in `target`."""
        binds = target._bindings.get(name, [])
        if inline:
            own = [b for b in binds if b._home is decl]
            if own:
                result, complete = self._flow(own, decl, pos)
                if complete:
                    return result
                return _dedupe(result + binds)
        return list(binds)

    def _nonlocal_target(self, scope: Scope, name: str) -> Optional[Scope]:
        s = scope.parent
        while s is not None:
            if s.kind in ("function", "lambda"):
                s._ensure()
                if name in s._nonlocals:
                    return self._nonlocal_target(s, name)
                if name in s._bindings:
                    return s
            elif s.kind == "module":
                return None
            s = s.parent
        return None

    def _flow(self, binds: list[Binding], scope: Scope, pos: Pos) -> tuple[list[Binding], bool]:
        """Bindings (sorted) of one scope that reach `pos` in that scope's code; and whether one
        of them certainly ran (so nothing from further out can be the value)."""
        at_chain = self._chain_at(scope, pos)
        lo, hi = 0, len(binds)
        while lo < hi:
            mid = (lo + hi) // 2
            if binds[mid]._pos <= pos:
                lo = mid + 1
            else:
                hi = mid
        result: list[Binding] = []
        stop: Optional[Binding] = None
        foreign = False
        for b in reversed(binds[:lo]):
            if b._home is not scope:
                foreign = True
                continue
            chain = b._chain
            if chain and _exclusive(chain, at_chain):
                continue
            result.append(b)
            if _is_prefix(chain, at_chain):
                stop = b
                break
        result.reverse()
        # A loop around `at` carries its own bindings back to the top, unless the binding that
        # certainly ran sits inside that loop (then it overwrote them on every iteration).
        depth = len(stop._chain) if stop is not None else 0
        added = False
        for j in range(depth, len(at_chain)):
            entry = at_chain[j]
            if entry[1] == "body" and type(entry[0]) in _LOOPS:
                for b in binds:
                    chain = b._chain
                    if len(chain) > j and chain[j] == entry and b._home is scope and b not in result:
                        result.append(b)
                        added = True
        if foreign or any(b._home is not scope for b in binds[lo:]):
            # Made by a nested function declaring the name global/nonlocal: it may have run
            # any time, and never for certain.
            result += [b for b in binds if b._home is not scope]
            added = True
        if added:
            result.sort(key=_pos_key)
        return result, stop is not None

    def _chain_at(self, scope: Scope, pos: Pos) -> tuple:
        """The (control node, block) pairs around `pos` in `scope`'s own code, outermost first."""
        if scope.kind not in ("module", "class", "function"):
            return ()
        chain = []
        stmts = scope.node.body
        while stmts:
            s = _containing(stmts, pos)
            if s is None:
                break
            kind = type(s)
            stmts = None
            if kind is ast.If:
                if _in_block(s.body, pos):
                    chain.append((s, "body"))
                    stmts = s.body
                elif _in_block(s.orelse, pos):
                    chain.append((s, "orelse"))
                    stmts = s.orelse
            elif kind is ast.For or kind is ast.AsyncFor:
                if _in_block(s.orelse, pos):
                    chain.append((s, "orelse"))
                    stmts = s.orelse
                elif not (_start(s.iter) <= pos < _end(s.iter)):
                    chain.append((s, "body"))
                    stmts = s.body
            elif kind is ast.While:
                if _in_block(s.orelse, pos):
                    chain.append((s, "orelse"))
                    stmts = s.orelse
                else:
                    chain.append((s, "body"))  # the test runs again after each iteration
                    stmts = s.body
            elif kind in _TRY:
                if _in_block(s.body, pos):
                    chain.append((s, "body"))
                    stmts = s.body
                elif _in_block(s.orelse, pos):
                    chain.append((s, "orelse"))
                    stmts = s.orelse
                elif _in_block(s.finalbody, pos):
                    stmts = s.finalbody
                else:
                    for i, handler in enumerate(s.handlers):
                        if _start(handler) <= pos < _end(handler):
                            chain.append((s, ("handler", i)))
                            stmts = handler.body
                            break
            elif kind is ast.With or kind is ast.AsyncWith:
                stmts = s.body
            elif kind is ast.Match:
                for i, case in enumerate(s.cases):
                    if _start(case.pattern) <= pos < _end(case.body[-1]):
                        chain.append((s, ("case", i)))
                        stmts = case.body
                        break
        return tuple(chain)

    def binding_of(self, name_node: Union[ast.Name, ast.Attribute]) -> Optional[Binding]:
        """The one binding that reaches this Name, or None when none or several may. For a read of
        `self.x` in a method: the assignment of it that the read sees (the one `value_of` follows).
        Any other expression has none."""
        if isinstance(name_node, ast.Attribute):
            return self._self_attribute_binding(name_node)
        if not isinstance(name_node, ast.Name):
            return None
        found = self.reaching(name_node.id, name_node)
        return found[0] if len(found) == 1 else None

    # -- qualified names -----------------------------------------------------------------------
    def resolve(self, expr: ast.AST) -> Optional[str]:
        """Canonical qualified name of a Name/Attribute chain rooted in an import that reaches it
        (`dist.init_process_group` → "torch.distributed.init_process_group"), else None (also when
        a parameter or local rebinding shadows the import). An `except ImportError: x = None`
        fallback does not hide the import. Relative imports give names with leading dots
        (".utils.f"), for the program layer to resolve.
        """
        expr, attributes = attribute_chain(expr)
        if expr is None:
            return None
        raw = None
        for b in self.reaching(expr.id, expr):
            if b.kind == "import" or b.kind == "from-import":
                if raw is None:
                    raw = b._raw
                elif raw != b._raw:
                    return None
            elif not (isinstance(b.value, ast.Constant) and b.value.value is None and b.index is None):
                return None
        if raw is None:
            return None
        name = ".".join((raw, *attributes))
        return name if name.startswith(".") else canonical(name)

    # -- values --------------------------------------------------------------------------------
    def assigned_value(self, expr: ast.AST) -> Optional[ast.expr]:
        """One hop: the expression the single reaching binding of this Name (or `self.x`) was
        assigned, through its unpack index; None when it cannot be told (several bindings, a
        parameter, a loop variable, an unpack of a call)."""
        if isinstance(expr, ast.Name):
            found = self.reaching(expr.id, expr)
            return _binding_value(found[0]) if len(found) == 1 else None
        if isinstance(expr, ast.Attribute):
            b = self._self_attribute_binding(expr)
            return _binding_value(b) if b is not None else None
        return None

    def value_of(self, expr: ast.expr, hops: int = 4) -> ast.expr:
        """The expression `expr` evaluates to, following single reaching bindings (Names, and
        `self.x` assigned once in the class's methods) for at most `hops` steps, and looking through
        `int(...)`, `str(...)` and `float(...)`; the last expression reached (`expr` itself when
        nothing can be followed). Cycles (`a = b; b = a`) end at the visited set.
        """
        seen: set[int] = set()
        current = expr
        while True:
            current = self._unwrap(current)
            if hops <= 0 or id(current) in seen:
                return current
            seen.add(id(current))
            following = self.assigned_value(current)
            if following is None:
                return current
            current = following
            hops -= 1

    def values_of(self, expr: ast.expr, hops: int = 4, limit: int = 16) -> list[ast.expr]:
        """Like `value_of`, following every reaching binding (all branches): the distinct
        expressions reached, at most `limit` of them, in the order found."""
        out: list[ast.expr] = []
        seen: set[int] = set()
        work = [(expr, hops)]
        while work and len(out) < limit:
            current, left = work.pop(0)
            current = self._unwrap(current)
            if id(current) in seen:
                continue
            seen.add(id(current))
            values, leaf = self._all_values(current) if left > 0 else ([], True)
            if leaf:
                out.append(current)
            for value in values:
                if id(value) not in seen:
                    work.append((value, left - 1))
        return out[:limit]

    def _all_values(self, expr: ast.expr) -> tuple[list[ast.expr], bool]:
        """The values of all bindings reaching `expr`, and whether some path ends at `expr` itself."""
        if isinstance(expr, ast.Name):
            bindings = self.reaching(expr.id, expr)
        elif self._self_receiver(expr) is not None:
            bindings = self._self_attribute_bindings(expr)
        else:
            return [], True
        values = []
        leaf = not bindings
        for b in bindings:
            value = _binding_value(b)
            if value is None:
                leaf = True
            else:
                values.append(value)
        return values, leaf

    def _unwrap(self, expr: ast.expr) -> ast.expr:
        while (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in _CONVERSIONS
               and len(expr.args) == 1 and not expr.keywords and not isinstance(expr.args[0], ast.Starred)
               and not self.reaching(expr.func.id, expr.func)):
            expr = expr.args[0]
        return expr

    # -- self attributes -----------------------------------------------------------------------
    def _self_receiver(self, expr: ast.AST) -> Optional[Scope]:
        """The class scope when `expr` is `self.x` with `self` the first parameter of its method."""
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)):
            return None
        found = self.reaching(expr.value.id, expr.value)
        if len(found) != 1 or found[0].kind != "parameter":
            return None
        method = found[0].scope
        if method._self_name != expr.value.id or method.parent is None or method.parent.kind != "class":
            return None
        return method.parent

    def _class_self_attrs(self, cls: Scope) -> dict[str, list[Binding]]:
        attrs = cls._self_attrs
        if attrs is None:
            attrs = {}
            for child in cls._ensure()._children:
                if child.kind == "function":
                    for attr, bindings in child._ensure()._self_bindings.items():
                        attrs.setdefault(attr, []).extend(bindings)
            cls._self_attrs = attrs
        return attrs

    def attribute_bindings(self, class_node: ast.ClassDef, attr: str) -> list[Binding]:
        """The `self.<attr>` bindings made in the methods of this class, in source order."""
        return sorted(self._class_self_attrs(self.own_scope(class_node)).get(attr, []), key=_pos_key)

    def _self_attribute_bindings(self, expr: ast.Attribute) -> list[Binding]:
        cls = self._self_receiver(expr)
        if cls is None:
            return []
        return self._class_self_attrs(cls).get(expr.attr, [])

    def _self_attribute_binding(self, expr: ast.Attribute) -> Optional[Binding]:
        """The assignment of `self.x` a read of it sees: the one in the same method before the
        read, else the only one in the class's methods, else the last of the unconditional
        ones in `__init__`/`setup`."""
        cls = self._self_receiver(expr)
        if cls is None:
            return None
        candidates = self._class_self_attrs(cls).get(expr.attr, [])
        if not candidates:
            return None
        method = self.scope_of(expr)
        while method is not None and method.parent is not cls:
            method = method.parent
        pos = _position(expr)
        if method is not None and pos is not None:
            own = sorted((b for b in candidates if b.scope is method), key=_pos_key)
            if own:
                result, complete = self._flow(own, method, pos)
                if complete and len(result) == 1:
                    return result[0]
                if result:
                    return None
        if len(candidates) == 1:
            return candidates[0]
        # Several: the object's set-up methods run first, in this order; what the last of them
        # assigns unconditionally is what the other methods see (`self.model = DDP(self.model)`).
        init = [b for b in candidates if getattr(b.scope.node, "name", None) in _INIT_METHODS]
        if not init:
            return None
        init.sort(key=lambda b: (_INIT_METHODS.index(b.scope.node.name), b._pos))
        last = init[-1]
        return last if not last._chain or len(init) == 1 else None

    # -- queries over the whole module ---------------------------------------------------------
    def names_bound_to(self, qualname: str, index: Optional[int] = None) -> list[Binding]:
        """Bindings whose value is a call resolving to `qualname` (`model = DDP(net)`, also
        `self.model = DDP(net)` as a binding named "self.model"); with `index`, only those bound to
        that element of an unpack (`engine, opt, _, _ = deepspeed.initialize(...)`, index 0 → engine).
        In source order."""
        facts = self.facts
        last = qualname.rsplit(".", 1)[-1]
        sites = {id(s.node): s for s in facts.calls_to(qualname)}
        for s in facts.method_calls(last):
            sites.setdefault(id(s.node), s)
        out: list[Binding] = []
        for site in sites.values():
            call = site.node
            stmt = site.ctx.parent
            if not isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) or stmt.value is not call:
                continue
            if self.resolve(call.func) != qualname:
                continue
            for b in self._bindings_of_statement(stmt):
                if b.value is call and (index is None or b.index == (index,)):
                    out.append(b)
        out.sort(key=lambda b: (b._pos, _start(b.target) if b.target is not None else (0, 0)))
        return out

    def _bindings_of_statement(self, stmt: ast.AST) -> list[Binding]:
        scope = self.scope_of(stmt)
        if isinstance(stmt, ast.NamedExpr):
            targets = [stmt.target]
        elif isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        else:
            targets = [stmt.target]
        names: list[str] = []
        attrs: list[str] = []
        while targets:
            t = targets.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                targets.extend(t.elts)
            elif isinstance(t, ast.Starred):
                targets.append(t.value)
            elif isinstance(t, ast.Name):
                names.append(t.id)
            elif isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
                attrs.append(t.attr)
        out: list[Binding] = []
        for name in names:
            home = self._home(scope, name, walrus=isinstance(stmt, ast.NamedExpr))
            out += [b for b in home._bindings.get(name, ()) if b.node is stmt]
        method = scope
        while method is not None and method.kind == "comprehension":
            method = method.parent
        if method is not None:
            for attr in attrs:
                out += [b for b in method._self_bindings.get(attr, ()) if b.node is stmt]
        return out

    def uses_of(self, binding: Binding) -> list[Union[ast.Name, ast.Attribute]]:
        """The loads that this binding may be the value of, in source order (for `self.x`: the
        loads of `self.x` in the class's methods)."""
        if "." in binding.name:
            cls = binding.scope.parent
            attr = binding.name.split(".", 1)[1]
            out: list = []
            if cls is not None and cls.kind == "class":
                for child in cls._ensure()._children:
                    if child.kind == "function":
                        stack = [child]
                        while stack:  # the method and the comprehensions in it
                            s = stack.pop()._ensure()
                            out += s._self_loads.get(attr, ())
                            stack += [c for c in s._children if c.kind == "comprehension"]
            return sorted(_dedupe(out), key=_start)
        name = binding.name
        out = []
        stack = [binding.scope]
        while stack:
            s = stack.pop()._ensure()
            for load in s._loads.get(name, ()):
                if binding in self._reaching_in(name, load, s):
                    out.append(load)
            for child in s._children:
                child._ensure()
                if (child.kind != "class" and name in child._bindings and name not in child._globals
                        and name not in child._nonlocals):
                    continue  # the name is the child's own there, and in everything inside it
                stack.append(child)
        return sorted(out, key=_start)

    def self_stores_of(self, binding: Binding) -> list[Binding]:
        """The `self.x = name` bindings, in the methods of the class around `binding`'s function,
        whose value is a use of this binding (`engine, ... = deepspeed.initialize(...)` then
        `self.model = engine`): `uses_of` of each, kept to the loads that see that store, are
        the loads of `self.x` that hold the binding's value."""
        scope = binding.scope
        cls = scope.parent if scope.kind == "function" else None
        if cls is None or cls.kind != "class":
            return []
        uses = {id(use) for use in self.uses_of(binding)}
        return [b for bindings in self._class_self_attrs(cls).values() for b in bindings
                if id(_binding_value(b)) in uses]

    def calls_in(self, function_node: ast.AST) -> list[ast.Call]:
        """Calls in the code of this def/lambda/class/module, not in nested defs, lambdas or
        classes (their decorators and defaults count: they run here), in source order."""
        scope = self.own_scope(function_node)
        out: list[ast.Call] = []
        stack = [scope]
        while stack:
            s = stack.pop()._ensure()
            out += s._calls
            stack += [c for c in s._children if c.kind == "comprehension"]
        return sorted(out, key=_start)

    def attribute_stores(self, attr: str) -> list[ast.Attribute]:
        """Every `<anything>.attr = ...` (and `del`, `+=`) target in the module, in source order."""
        stores = self._attribute_stores
        if stores is None:
            stores = {}
            for node, _ in self.facts.of_type(ast.Attribute):
                if not isinstance(node.ctx, ast.Load):
                    stores.setdefault(node.attr, []).append(node)
            self._attribute_stores = stores
        return stores.get(attr, [])

    def _home(self, scope: Scope, name: str, walrus: bool = False) -> Scope:
        """The scope whose namespace a binding of `name` made in `scope`'s code goes to."""
        if walrus:
            while scope.kind == "comprehension" and scope.parent is not None:
                scope = scope.parent
        if name in scope._globals:
            return self.module
        if name in scope._nonlocals:
            return self._nonlocal_target(scope, name) or scope
        return scope

    # -- building ------------------------------------------------------------------------------
    def _child(self, kind: str, node: ast.AST, parent: Scope, start: Pos, end: Pos, excluded: tuple) -> Scope:
        child = Scope(self, kind, node, parent)
        child._start, child._end, child._excluded = start, end, excluded
        parent._children.append(child)
        self._scope_of_node[id(node)] = child
        return child

    def _build(self, unit: Scope) -> None:
        """Walk one module/class/function/lambda body (and the comprehensions in it), iteratively."""
        unit._built = True
        node = unit.node
        kind = unit.kind
        stack: list = []
        push = stack.append
        pop = stack.pop
        scopes = [unit]
        unit_self = None
        if kind == "function" or kind == "lambda":
            self._bind_parameters(unit, node.args)
            if kind == "function" and unit.parent.kind == "class" and not any(
                    isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
                positional = node.args.posonlyargs + node.args.args
                if positional:
                    unit._self_name = unit_self = positional[0].arg
            if kind == "lambda":
                push(node.body)
            else:
                for stmt in reversed(node.body):
                    push(stmt)
        else:
            for stmt in reversed(node.body):
                push(stmt)

        scope = unit
        chain: tuple = ()
        loads = unit._loads
        calls = unit._calls
        self_bindings = unit._self_bindings
        self_loads = unit._self_loads
        skip = _SKIP
        special = _SPECIAL
        child_fields = _CHILD_FIELDS
        AST = ast.AST
        Name, Attribute, Call, Load = ast.Name, ast.Attribute, ast.Call, ast.Load

        def bind(name, bkind, stmt, target, pos, value=None, index=None, **extra):
            home = self._home(scope, name, walrus=bkind == "walrus")
            if home is not scope and home is not unit and home.kind == "module" and bkind in (
                    "assignment", "annotated", "walrus"):
                bkind = "global-assignment"
            b = Binding(name, bkind, stmt, home, value, index, target=target, _pos=pos, _chain=chain,
                        _home=unit, **extra)
            binds = home._bindings
            lst = binds.get(name)
            if lst is None:
                binds[name] = [b]
            elif lst[-1]._pos <= pos:
                lst.append(b)
            else:
                insort(lst, b, key=_pos_key)
            return b

        def bind_targets(target, bkind, stmt, pos, value=None, **extra):
            """Bind every name in an assignment target; push the expressions it evaluates."""
            if type(target) is Name:
                bind(target.id, bkind, stmt, target, pos, value, None, **extra)
                return
            work = [(target, None)]
            while work:
                t, index = work.pop()
                tk = type(t)
                if tk is Name:
                    if index == "star":  # a list of some of the elements: no one expression
                        bind(t.id, bkind, stmt, t, pos, None, None, **extra)
                    else:
                        bind(t.id, bkind, stmt, t, pos, value, index, **extra)
                elif tk is ast.Tuple or tk is ast.List:
                    base = index or ()
                    elts = t.elts
                    star = None
                    for i, e in enumerate(elts):
                        if type(e) is ast.Starred:
                            star = i
                            break
                    for i, e in enumerate(elts):
                        if star is None or i < star:
                            work.append((e, base + (i,)))
                        elif i == star:
                            work.append((e, "star"))
                        else:
                            work.append((e, base + (i - len(elts),)))
                elif tk is ast.Starred:
                    work.append((t.value, "star"))
                elif tk is Attribute:
                    receiver = t.value
                    if unit_self is not None and type(receiver) is Name and receiver.id == unit_self:
                        b = Binding(f"{unit_self}.{t.attr}", "augmented" if bkind == "augmented" else (
                            "annotated" if bkind == "annotated" else "assignment"), stmt, unit,
                            value if index != "star" else None, index if index != "star" else None,
                            target=t, _pos=pos, _chain=chain, _home=unit)
                        self_bindings.setdefault(t.attr, []).append(b)
                    push(receiver)
                elif tk is ast.Subscript:
                    push(t.slice)
                    push(t.value)
                else:
                    push(t)

        while stack:
            item = pop()
            t = type(item)
            if t is tuple:  # a change of scope or control chain for what follows
                scope, chain = item
                loads = scope._loads
                calls = scope._calls
                continue
            if t is Name:
                if type(item.ctx) is Load:
                    lst = loads.get(item.id)
                    if lst is None:
                        loads[item.id] = [item]
                    else:
                        lst.append(item)
                continue
            if t in skip:
                continue
            if t is Attribute:
                value = item.value
                if unit_self is not None and type(value) is Name and value.id == unit_self and type(item.ctx) is Load:
                    self_loads.setdefault(item.attr, []).append(item)
                push(value)
                continue
            if t is Call:
                calls.append(item)
            elif t in special:
                if t is ast.Assign:
                    pos = (item.end_lineno, item.end_col_offset)
                    for target in item.targets:
                        bind_targets(target, "assignment", item, pos, item.value)
                    push(item.value)
                    continue
                if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                    args = item.args
                    excluded = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
                    excluded += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                                        args.vararg, args.kwarg) if a is not None and a.annotation]
                    if item.returns is not None:
                        excluded.append(item.returns)
                    self._child("function", item, scope, _start(item), _end(item), tuple(excluded))
                    bind(item.name, "def", item, None, (item.end_lineno, item.end_col_offset))
                    for expr in reversed(excluded):
                        push(expr)
                    for expr in reversed(item.decorator_list):
                        push(expr)
                    continue
                if t is ast.ClassDef:
                    self._child("class", item, scope, _stmt_start(item.body[0]), _end(item), ())
                    bind(item.name, "class", item, None, (item.end_lineno, item.end_col_offset))
                    for expr in (*item.decorator_list, *item.bases, *(k.value for k in item.keywords)):
                        push(expr)
                    continue
                if t is ast.Lambda:
                    args = item.args
                    excluded = (*args.defaults, *(d for d in args.kw_defaults if d is not None))
                    self._child("lambda", item, scope, _start(item), _end(item), excluded)
                    for expr in excluded:
                        push(expr)
                    continue
                if t in _COMPREHENSIONS:
                    generators = item.generators
                    first_iter = generators[0].iter
                    comp = self._child("comprehension", item, scope, _start(item), _end(item), (first_iter,))
                    comp._built = True
                    comp._self_name = scope._self_name
                    scopes.append(comp)
                    push((scope, chain))
                    inner = chain + ((item, "body"),)
                    if t is ast.DictComp:
                        push(item.value)
                        push(item.key)
                    else:
                        push(item.elt)
                    saved = scope, chain
                    scope, chain = comp, inner
                    for i in range(len(generators) - 1, -1, -1):
                        gen = generators[i]
                        for cond in reversed(gen.ifs):
                            push(cond)
                        if i:
                            push(gen.iter)
                        bind_targets(gen.target, "comprehension", gen, _end(gen.iter), None, iter=gen.iter)
                    scope, chain = saved
                    push((comp, inner))
                    push(first_iter)
                    continue
                if t is ast.Import or t is ast.ImportFrom:
                    pos = (item.end_lineno, item.end_col_offset)
                    if t is ast.Import:
                        for alias in item.names:
                            if alias.asname:
                                bind(alias.asname, "import", item, alias, pos, qualname=canonical(alias.name),
                                     _raw=alias.name)
                            else:
                                top = alias.name.split(".", 1)[0]
                                bind(top, "import", item, alias, pos, qualname=canonical(top), _raw=top)
                    else:
                        prefix = "." * item.level + (item.module + "." if item.module else "")
                        for alias in item.names:
                            if alias.name == "*":
                                continue
                            raw = prefix + alias.name
                            bind(alias.asname or alias.name, "from-import", item, alias, pos,
                                 qualname=raw if item.level else canonical(raw), _raw=raw)
                    continue
                if t is ast.AnnAssign:
                    if item.value is not None:
                        bind_targets(item.target, "annotated", item, (item.end_lineno, item.end_col_offset),
                                     item.value, annotation=item.annotation)
                        push(item.value)
                    elif type(item.target) is not Name:
                        push(item.target.value)
                    push(item.annotation)
                    continue
                if t is ast.AugAssign:
                    bind_targets(item.target, "augmented", item, (item.end_lineno, item.end_col_offset), item.value)
                    push(item.value)
                    continue
                if t is ast.For or t is ast.AsyncFor:
                    loop = chain + ((item, "body"),)
                    push((scope, chain))
                    if item.orelse:
                        for stmt in reversed(item.orelse):
                            push(stmt)
                        push((scope, chain + ((item, "orelse"),)))
                    for stmt in reversed(item.body):
                        push(stmt)
                    saved = chain
                    chain = loop
                    bind_targets(item.target, "for", item, _end(item.iter), None, iter=item.iter)
                    chain = saved
                    push((scope, loop))
                    push(item.iter)
                    continue
                if t is ast.While:
                    loop = chain + ((item, "body"),)
                    push((scope, chain))
                    if item.orelse:
                        for stmt in reversed(item.orelse):
                            push(stmt)
                        push((scope, chain + ((item, "orelse"),)))
                    for stmt in reversed(item.body):
                        push(stmt)
                    push(item.test)
                    push((scope, loop))
                    continue
                if t is ast.If:
                    push((scope, chain))
                    if item.orelse:
                        for stmt in reversed(item.orelse):
                            push(stmt)
                        push((scope, chain + ((item, "orelse"),)))
                    for stmt in reversed(item.body):
                        push(stmt)
                    push((scope, chain + ((item, "body"),)))
                    push(item.test)
                    continue
                if t is ast.With or t is ast.AsyncWith:
                    for stmt in reversed(item.body):
                        push(stmt)
                    for with_item in reversed(item.items):
                        if with_item.optional_vars is not None:
                            bind_targets(with_item.optional_vars, "with", item, _end(with_item.context_expr),
                                         None, context=with_item.context_expr)
                        push(with_item.context_expr)
                    continue
                if t in _TRY:
                    push((scope, chain))
                    for stmt in reversed(item.finalbody):
                        push(stmt)
                    if item.finalbody:
                        push((scope, chain))
                    if item.orelse:
                        for stmt in reversed(item.orelse):
                            push(stmt)
                        push((scope, chain + ((item, "orelse"),)))
                    saved = chain
                    for i in range(len(item.handlers) - 1, -1, -1):
                        handler = item.handlers[i]
                        chain = saved + ((item, ("handler", i)),)
                        for stmt in reversed(handler.body):
                            push(stmt)
                        if handler.name:
                            pos = _end(handler.type) if handler.type is not None else _start(handler)
                            bind(handler.name, "except", handler, None, pos)
                        if handler.type is not None:
                            push(handler.type)
                        push((scope, chain))
                    chain = saved
                    for stmt in reversed(item.body):
                        push(stmt)
                    push((scope, chain + ((item, "body"),)))
                    continue
                if t is ast.Global:
                    scope._globals.update(item.names)
                    continue
                if t is ast.Nonlocal:
                    scope._nonlocals.update(item.names)
                    continue
                if t is ast.NamedExpr:
                    bind(item.target.id, "walrus", item, item.target, (item.end_lineno, item.end_col_offset),
                         item.value)
                    push(item.value)
                    continue
                if t is ast.Delete:
                    for target in item.targets:
                        if type(target) is not Name:
                            push(target)
                    continue
                if t is ast.Match:
                    push((scope, chain))
                    saved = chain
                    for i in range(len(item.cases) - 1, -1, -1):
                        case = item.cases[i]
                        chain = saved + ((item, ("case", i)),)
                        for stmt in reversed(case.body):
                            push(stmt)
                        if case.guard is not None:
                            push(case.guard)
                        patterns = [case.pattern]
                        while patterns:
                            p = patterns.pop()
                            capture = getattr(p, "name", None) or getattr(p, "rest", None)
                            if capture:
                                bind(capture, "assignment", case.pattern, p, _end(case.pattern))
                            for f in _child_fields(type(p)):
                                v = getattr(p, f, None)
                                for c in (v if isinstance(v, list) else (v,)):
                                    if isinstance(c, ast.pattern):
                                        patterns.append(c)
                                    elif isinstance(c, ast.expr):
                                        push(c)
                        push((scope, chain))
                    chain = saved
                    push(item.subject)
                    continue
            # Any other node: its children, in reverse so that they pop in source order.
            for name in child_fields.get(t) or _child_fields(t):
                value = getattr(item, name, None)
                if type(value) is list:
                    for child in reversed(value):
                        if isinstance(child, AST) and type(child) not in skip:
                            push(child)
                elif value is not None and type(value) not in skip and isinstance(value, AST):
                    push(value)

        for s in scopes:
            children = s._children
            if children:
                children.sort(key=lambda c: c._start)
                s._starts = [c._start for c in children]
                maxends = []
                top = (0, 0)
                for c in children:
                    if c._end > top:
                        top = c._end
                    maxends.append(top)
                s._maxends = maxends
        if kind == "module":
            self._build_declaring_scopes(ast.Global, lambda n: True)
        elif kind != "class" and unit._children:
            start, end = unit._start, unit._end
            self._build_declaring_scopes(ast.Nonlocal, lambda n: start <= _start(n) < end)

    def _build_declaring_scopes(self, kind: type, inside) -> None:
        """Build the scopes that declare names global/nonlocal: their bindings belong to a scope
        further out, which must hold all its bindings before anyone asks."""
        for node, _ in self.facts.of_type(kind):
            if inside(node):
                self.scope_of(node)

    def _bind_parameters(self, scope: Scope, args: ast.arguments) -> None:
        pos = _start(scope.node)
        binds = scope._bindings
        positional = args.posonlyargs + args.args
        offset = len(positional) - len(args.defaults)
        params = [(a, args.defaults[i - offset] if i >= offset else None, i) for i, a in enumerate(positional)]
        if args.vararg is not None:
            params.append((args.vararg, None, None))
        params += [(a, d, None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
        if args.kwarg is not None:
            params.append((args.kwarg, None, None))
        for a, default, position in params:
            b = Binding(a.arg, "parameter", a, scope, annotation=a.annotation, default=default, position=position,
                        target=a, _pos=pos, _home=scope)
            binds.setdefault(a.arg, []).append(b)


def _binding_value(binding: Binding) -> Optional[ast.expr]:
    """The expression a binding gave its name (through the unpack index), when it is one."""
    if binding.kind not in ("assignment", "annotated", "walrus", "global-assignment") or binding.value is None:
        return None
    value = binding.value
    for i in binding.index or ():
        if not isinstance(value, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        if not -len(value.elts) <= i < len(value.elts):
            return None
        value = value.elts[i]
    return value


def semantic_model(facts: ScriptFacts) -> SemanticModel:
    """The semantic model of a script, built on first use and cached on its facts."""
    return facts.derived("semantic", SemanticModel)


def iter_scopes(model: SemanticModel) -> Iterator[Scope]:
    """Every scope of the module, outermost first (builds them all: for whole-module questions)."""
    stack = [model.module]
    while stack:
        scope = stack.pop()._ensure()
        yield scope
        stack.extend(reversed(scope._children))


# -- call aliases ------------------------------------------------------------------------------
_PARTIALS = frozenset({"functools.partial"})


@dataclass
class PartialCallSite(CallSite):
    """A call of a name bound to `functools.partial(f, *args, **kwargs)`, seen as a call of `f`:
    `qualname`, `attr` and `receiver` are f's, `node` is the call as written (its position,
    context and statement), and the arguments are the partial's followed by the call's own."""

    bound: Optional[ast.Call] = None  # the functools.partial(...) call

    def keyword(self, name: str) -> Optional[ast.expr]:
        own = CallSite.keyword(self, name)
        if own is not None or self.bound is None:
            return own
        return next((kw.value for kw in self.bound.keywords if kw.arg == name), None)

    def argument(self, position: int, name: str) -> Optional[ast.expr]:
        args = [*self.bound.args[1:], *self.node.args] if self.bound is not None else list(self.node.args)
        if position is not None and len(args) > position and not any(isinstance(a, ast.Starred)
                                                                     for a in args[: position + 1]):
            return args[position]
        return self.keyword(name)

    @property
    def has_star_kwargs(self) -> bool:
        keywords = [*self.node.keywords, *(self.bound.keywords if self.bound is not None else ())]
        return any(kw.arg is None for kw in keywords)


def partial_calls(facts: ScriptFacts) -> list[CallSite]:
    """The calls of names (or `self.x`) bound once to `functools.partial(f, ...)`, each as a call of
    `f` (`save = partial(engine.save_checkpoint, "ckpt")`; `save(tag="x")` calls
    `engine.save_checkpoint`). Empty, and cheap, in a module that never calls functools.partial."""
    return facts.derived("partial_calls", _partial_calls)


def _partial_calls(facts: ScriptFacts) -> list[CallSite]:
    if not any(facts.calls_to(q) for q in _PARTIALS):
        return []
    # (cheap first: only calls of a name some assignment gives a partial(...) value)
    partial_names = {a.name for a in facts.assignments if isinstance(a.value, ast.Call)
                     and facts.resolve(a.value.func) in _PARTIALS}
    model = semantic_model(facts)
    found: list[CallSite] = []
    for site in facts.calls:
        func = site.node.func
        if dotted(func) not in partial_names:
            continue
        if not isinstance(func, ast.Name) and not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                                   and func.value.id == "self"):
            continue
        bound = model.assigned_value(func)
        if not isinstance(bound, ast.Call) or not bound.args or isinstance(bound.args[0], ast.Starred) \
                or model.resolve(bound.func) not in _PARTIALS:
            continue
        target = bound.args[0]
        if isinstance(target, ast.Name):
            attr, receiver = target.id, None
        elif isinstance(target, ast.Attribute):
            root, chain = attribute_chain(target)
            attr = target.attr
            receiver = ".".join((root.id, *chain[:-1])) if root is not None else None
        else:
            continue
        found.append(PartialCallSite(site.node, site.ctx, model.resolve(target), attr, receiver, bound=bound))
    return found
