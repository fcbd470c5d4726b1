"""Under which conditions a statement runs: one notion each, used by every rule.

- `rank_gate(facts, node)`: the reason only some ranks reach `node` (`if rank == 0`,
  `if is_main:` where `is_main = dist.get_rank() == 0`, `@rank_zero_only`, an early
  `if not is_master: return`), or None when every rank may.
- `under_main_guard(ctx)`: inside `if __name__ == "__main__":`.
- `grad_disabled_at(facts, ctx)`: autograd is off there (`with torch.no_grad()`, `set_grad_enabled(False)`,
  a bound context manager, a decorated function, a project decorator or `@contextmanager` that turns
  it off: `grad_off_decorator`, `grad_off_context`); `autograd_off(facts, node)`: that, or every call
  of the function `node` is in is such a place. With `assumed`, a decorator or context manager
  imported from the project counts as turning autograd off, and the project phase decides
  (FunctionSummary.grad_off_decorator / grad_off_context).
- `exclusive(a, b)`: two places in different branches of one `if` (never both run).
- `runs_before(a, b)`: `a` runs before `b` (same scope, earlier; or `__init__`/`setup` before the
  other methods of its class).
- `under_zero3(ctx)`: the `if` tests around a place let it run only with ZeRO stage 3 on (True) or
  only with it off (False).

A rank test is read through values: a name is followed to what it was assigned, so
`is_leader = rank == 0` gates like `rank == 0`. Conditions that every rank evaluates alike are
no gate: `if local_rank != -1` (distributed or not), `if rank in group_ranks` (membership of
an explicit group, whose collectives are legitimate), a `rank0` parameter that every caller
in the module passes as a constant (or, for a function only other modules call, `parameter_gate`:
what the project phase asks of their calls), an early return whose test also needs a non-rank flag, an
"already set up" test of a module global that the testing function stores only after it, a rank
test `or`-ed with a rank-free part that the other conditions on the path make true (`if kind !=
LEGACY or rank == 0:` around `if kind == GLOBAL:`; `opens_gate`: a flag passed on that makes it true).
`leaves_after`/`runs_after_skipping`: where a branch that ends in `continue`/`break`/`return`/
`raise` sends its ranks, and what the ranks that skip it run instead.
"""
from __future__ import annotations

import ast
import operator
import re
from functools import lru_cache
from dataclasses import dataclass
from typing import Optional

from ..sources.names import last_name
from .script import Context, ScriptFacts, literal

RANK_WORDS = re.compile(r"(^|_)(local_?rank|global_?rank|rank|is_main_process|is_local_main_process|is_global_zero|"
                        r"is_rank_zero|is_world_process_zero|is_local_process_zero|main_process|master_process|"
                        r"is_master|is_main|get_rank|local_process_index|process_index)($|_)", re.IGNORECASE)
# Names that are true on the main process only.
# (`master` alone is one; `collect_by_master`, `_NESTED_FROM_MASTER` name something done by or for the
# main process, a flag every rank may hold alike)
_MAIN_WORDS = re.compile(r"(^|_)(is_main_process|is_local_main_process|is_global_zero|is_rank_zero|rank_zero|rank0|is_rank0|"
                         r"is_world_process_zero|is_local_process_zero|main_process|master_process|is_master|"
                         r"is_main|is_chief|is_leader|is_rank_0|rank_0|is_master_process|is_local_master|local_master)($|_)"
                         r"|^master(_only)?$", re.IGNORECASE)
# Words without which a text (a module, a test) names no rank and no main process: cheap `in` gates.
RANK_TEXT_WORDS = ("rank", "main", "master", "process_index", "zero", "chief", "leader", "local")
# A rank that is not a process's: a LoRA rank, a matrix rank.
_NOT_A_PROCESS_RANK = re.compile(r"lora|low_rank|matrix_rank|rank_r\b|num_ranks|n_ranks", re.IGNORECASE)
# Decorators that run the function on one process only.
_RANK_ONLY_DECORATORS = ("rank_zero_only", "on_main_process", "on_local_main_process", "main_process_only",
                         "on_last_process", "master_only", "main_only")
_BARE_RANKS = ("rank", "local_rank", "global_rank", "get_rank", "process_index", "local_process_index")
_COMPARE = {ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}


@dataclass(frozen=True)
class RankGate:
    """Why only some ranks reach a node: the condition's node and a short description."""

    node: ast.AST  # the If, the decorator, or the early-return If
    description: str
    if_node: Optional[ast.If] = None  # the enclosing If when the gate is a branch
    in_body: bool = True


class _RankTests:
    """Reads conditions of one module through its bindings."""

    def __init__(self, facts: ScriptFacts):
        from .bindings import semantic_model

        self.facts = facts
        self.model = semantic_model(facts)
        self._selects: dict[int, bool] = {}
        self._function_gates: dict[int, tuple] = {}
        self._rankish: Optional[frozenset] = None
        self._parameters: Optional[frozenset] = None
        self._stores: Optional[dict] = None  # id of a def (or None) -> its attribute stores

    # -- what an expression is ------------------------------------------------------------
    def _followed(self, expr: ast.AST) -> ast.AST:
        """A name's assigned value when it is a test (`is_main = rank == 0`; `self.can_checkpoint =
        accelerator.is_local_main_process`, set once in `__init__`), else the name."""
        named = isinstance(expr, ast.Name) and expr.id in self._rankish_assignments()
        own = isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self" \
            and f"self.{expr.attr}" in self._rankish_assignments()
        if named or own:
            value = self.model.value_of(expr) if named else self.model.value_of(expr, hops=1)
            if value is not expr and isinstance(value, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Call, ast.Attribute)):
                return value
        return expr

    def _rankish_assignments(self) -> frozenset:
        """Names assigned, somewhere in the module, a value that reads a rank: the only names
        worth following (building a function's scopes for every `if flag:` costs more than the rule)."""
        if self._rankish is None:
            stores: dict = {}
            for a in self.facts.assignments:
                if a.name.startswith("self.") and a.name.count(".") == 1:
                    stores[a.name] = stores.get(a.name, 0) + 1
            # (`self.x` only when the module stores it once: set elsewhere too, it may be anything)
            self._rankish = frozenset(a.name for a in self.facts.assignments
                                      if ("." not in a.name or stores.get(a.name) == 1)
                                      and self._reads_rank_lexically(a.value))
        return self._rankish

    @staticmethod
    def _reads_rank_lexically(expr: ast.AST) -> bool:
        """A test-shaped value (comparison, boolean, call or attribute) that names a rank."""
        if isinstance(expr, (ast.Call, ast.Attribute, ast.Name)):
            return _rank_word(_callee_or_name(expr), main=True)
        if not isinstance(expr, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
            return False
        return any(_names_a_rank(n, main=True) for n in ast.walk(expr))

    def mentions_rank(self, expr: ast.AST) -> bool:
        """Does the expression read a process rank (variable, attribute, call or env key)?"""
        for node in ast.walk(expr):
            if _names_a_rank(node):
                return not (isinstance(node, ast.Name) and self._constant_parameter(node))
        return False

    def _names_main(self, node: ast.AST) -> bool:
        name = _callee_or_name(node)
        if not _MAIN_WORDS.search(name):
            return False
        return not (isinstance(node, ast.Name) and self._constant_parameter(node))

    def _constant_parameter(self, name: ast.Name) -> bool:
        """A parameter that every call of its function in this module passes as a constant."""
        if self._parameters is None:
            self._parameters = frozenset(
                a.arg for kind in (ast.FunctionDef, ast.AsyncFunctionDef) for node, _ in self.facts.of_type(kind)
                for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs)
        if name.id not in self._parameters:
            return False  # no function takes a parameter of that name: nothing to look up
        binding = self.model.binding_of(name)
        if binding is None or binding.kind != "parameter":
            return False
        function = binding.scope.node
        fname = getattr(function, "name", None)
        if not fname:
            return False
        position = binding.position
        # (a module-level function's own calls: `train(...)`, not `model.train()`; a method's through any receiver)
        in_class = binding.scope.parent is not None and binding.scope.parent.kind == "class"
        calls = [site for site in self.facts.method_calls(fname) if in_class or isinstance(site.node.func, ast.Name)]
        if not calls:
            return False
        for site in calls:
            given = site.keyword(name.id)
            if given is None and position is not None:
                offset = 1 if isinstance(site.node.func, ast.Attribute) and site.receiver == "self" else 0
                index = position - offset
                given = site.node.args[index] if 0 <= index < len(site.node.args) else None
            if given is None:
                default = binding.default
                if default is None or not isinstance(default, ast.Constant):
                    return False
                continue
            if not isinstance(given, ast.Constant):
                return False
        return True

    # -- conditions -------------------------------------------------------------------------
    def selects_some_ranks(self, test: ast.AST, depth: int = 0) -> bool:
        """Is this condition true on some ranks and false on others of one job?"""
        if depth == 0:  # every call inside an `if` asks about the same test
            key = id(test)
            if key not in self._selects:
                self._selects[key] = self._selects_some_ranks(test, 0)
            return self._selects[key]
        return self._selects_some_ranks(test, depth)

    def _selects_some_ranks(self, test: ast.AST, depth: int) -> bool:
        if depth > 6:
            return False
        test = self._followed(test)
        if isinstance(test, ast.BoolOp):
            return any(self.selects_some_ranks(v, depth + 1) for v in test.values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.selects_some_ranks(test.operand, depth + 1)
        if isinstance(test, ast.Compare):
            sides = [test.left, *test.comparators]
            ranked = [s for s in sides if (self.mentions_rank(s) and not _NOT_A_PROCESS_RANK.search(ast.unparse(s)))
                      or self._names_main(s)]
            if not ranked:
                return False
            others = [s for s in sides if s not in ranked]
            if any(isinstance(op, (ast.In, ast.NotIn)) for op in test.ops):
                if any(_flat_constants(o) is None for o in others):
                    return False  # `rank in group_ranks`: membership of a sub-group
            constants = []
            for other in others:
                flat = _flat_constants(other)
                if flat is None:
                    if isinstance(other, (ast.Call, ast.Name, ast.Attribute)):
                        return not _is_world_size(other)
                    return False
                constants += flat
            if constants and all(c == -1 or c is None for c in constants):
                return False  # `local_rank != -1`: distributed or not, every rank agrees
            if _alike_for_every_rank(test, ranked) and not self._stored_by_functions(ranked[0]):
                return False  # `rank >= 0`: no rank is negative, so every rank of the job agrees
            if constants and all(isinstance(c, bool) for c in constants):
                return any(self._names_main(s) for s in ranked)
            return not self._tests_setup_sentinel(test)
        if isinstance(test, (ast.Name, ast.Attribute, ast.Call)):
            return self._names_main(test) or (_callee_or_name(test) in _BARE_RANKS and not (
                isinstance(test, ast.Name) and self._constant_parameter(test)))
        return False

    def _stored_by_functions(self, expr: ast.AST) -> bool:
        """A module global that functions store (`global _RANK; _RANK = r`): -1 on the ranks that
        have not stored it yet, so `_RANK >= 0` may split them (`_tests_setup_sentinel` decides)."""
        return isinstance(expr, ast.Name) and any(b.kind == "global-assignment"
                                                  for b in self.model.module.bindings.get(expr.id, []))

    def _tests_setup_sentinel(self, test: ast.Compare) -> bool:
        """`if _LOCAL_RANK >= 0: raise` where `_LOCAL_RANK` is a module global that is the initial
        constant until the testing function itself stores the rank, after the test: on a first call
        every rank holds the constant, on a later one every rank holds some rank >= 0, and the
        comparison gives one answer for every rank >= 0. An "already set up" flag, not a rank test."""
        if len(test.ops) != 1:
            return False
        left, right = test.left, test.comparators[0]
        name, other = (left, right) if isinstance(left, ast.Name) else (right, left)
        bound = literal(other)
        if not isinstance(name, ast.Name) or isinstance(bound, bool) or (
                bound is None and not (isinstance(other, ast.Constant) and other.value is None)):
            return False
        op = test.ops[0]
        if bound is None:
            if not isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)):
                return False
        elif not isinstance(bound, int) or not isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE, ast.Eq, ast.NotEq)):
            return False
        else:
            compare = _COMPARE[type(op)]
            answers = {compare(r, bound) if name is left else compare(bound, r) for r in range(max(bound, 0) + 3)}
            if len(answers) != 1:
                return False
        return self._stored_after_by_tester(name, test)

    def _stored_after_by_tester(self, name: ast.Name, test: ast.AST) -> bool:
        """Every binding of the module global `name` is a module-level constant, or a store by the
        function that reads it in `test`, declared `global` there, after the test and in the same
        block-level conditions (every rank that passes the test stores it; no loop brings it back)."""
        scope = self.model.scope_of(name)
        where = self.facts.context_of(test)
        if scope.kind != "function" or name.id not in scope.globals or where is None or where.loops:
            return False
        at = (test.end_lineno, test.end_col_offset)
        binds = self.model.module.bindings.get(name.id, [])
        for bind in binds:
            if bind.kind == "assignment" and self.model.scope_of(bind.node).kind == "module":
                if bind.index is not None or not isinstance(literal(bind.value), (int, float, str, type(None))) or (
                        literal(bind.value) is None and not isinstance(bind.value, ast.Constant)):
                    return False
                continue
            if bind.kind != "global-assignment" or self.model.scope_of(bind.node) is not scope:
                return False
            stored = self.facts.context_of(bind.node)
            if stored is None or stored.loops or (bind.node.lineno, bind.node.col_offset) < at or \
                    stored.guards != where.guards:
                return False
        return any(b.kind == "global-assignment" for b in binds)

    def is_pure_rank_test(self, test: ast.AST) -> bool:
        """Does the condition read nothing but the rank (removing it changes only who runs the body)?"""
        if isinstance(test, ast.BoolOp):
            return all(self.is_pure_rank_test(v) for v in test.values)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.is_pure_rank_test(test.operand)
        if isinstance(test, ast.Compare):
            return self.selects_some_ranks(test) and all(
                self.mentions_rank(s) or self._names_main(s) or _flat_constants(s) is not None
                for s in [test.left, *test.comparators])
        if isinstance(test, ast.Call) and test.args:
            return False
        return self.selects_some_ranks(test)

    def rank_only_decorator(self, function: ast.AST) -> Optional[ast.AST]:
        for dec in getattr(function, "decorator_list", ()):
            target = dec.func if isinstance(dec, ast.Call) else dec
            name = self.facts.resolve(target) or ""
            last = name.rsplit(".", 1)[-1] if name else _callee_or_name(target)
            if last in _RANK_ONLY_DECORATORS:
                return dec
        return None

    def _early_return_gates(self, stmt: ast.If, exits=(ast.Return, ast.Raise)) -> bool:
        """`if not is_master: return` gates what follows; `if not use_x and not rank0: return` does
        not prove it (the ranks that return depend on a flag a later branch reads too)."""
        if stmt.orelse or not (stmt.body and isinstance(stmt.body[-1], exits)) or not self.selects_some_ranks(stmt.test):
            return False
        test = self._followed(stmt.test)
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return all(self.selects_some_ranks(v) for v in test.values)
        return True

    def rank_gate(self, node: ast.AST, where: Optional[Context] = None, assuming: tuple = ()) -> Optional[RankGate]:
        where = where or self.facts.context_of(node)
        if where is None:
            return None
        known = None  # what the rank-free conditions on the path prove, read on the first gate
        for guard, in_body in reversed(where.guards):
            if self.selects_some_ranks(guard.test) and not _names_sharded_backend(guard.test):
                if known is None:
                    known = self._path_facts(where, assuming)
                if known and self._decided_alike(guard.test, known, where):
                    continue
                return RankGate(guard, f"`if {ast.unparse(guard.test)}` (line {guard.lineno})", guard, in_body)
        function = where.function
        if function is None or isinstance(function, ast.Lambda):
            return None
        gates = self._function_gates.get(id(function))
        if gates is None:
            gates = self._function_gates[id(function)] = self._gates_of(function)
        decorator, _ = gates
        if decorator is not None:
            return decorator
        for stmt, gate in self.early_returns_before(node, function):
            if known is None:
                known = self._path_facts(where, assuming)
            if not (known and self._decided_alike(stmt.test, known, where)):
                return gate
        return None

    # -- what the other conditions on the path decide ---------------------------------------
    def _path_facts(self, where: Context, assuming: tuple) -> list:
        """[(atom, truth)]: the rank-free comparisons and flags that hold wherever `where` runs
        (from the conjuncts of the `if`s around it, and `assuming`: (expression, truth) pairs)."""
        found = []
        for test, truth in (*((g.test, in_body) for g, in_body in where.guards), *assuming):
            found += [(atom, value) for atom, value in _atoms(test, truth)
                      if _comparable(atom) and not self.selects_some_ranks(atom)]
        return found

    def _decided_alike(self, test: ast.AST, known: list, where: Context, depth: int = 0) -> bool:
        """Does `test` come out the same on every rank wherever the `known` facts hold (at the place
        `where`)? A rank test `or`-ed with a rank-free part those facts make true (`if kind != LEGACY
        or rank == 0` around `if kind == GLOBAL`), or `and`-ed with one they make false, decides nothing."""
        test = self._followed(test)
        if depth > 6:
            return False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._decided_alike(test.operand, known, where, depth + 1)
        if isinstance(test, ast.BoolOp):
            settles = isinstance(test.op, ast.Or)  # the value of a part that settles the whole
            if any(not self.selects_some_ranks(v) and self._forced(v, known, where, settles) for v in test.values):
                return True
            return all(self._decided_alike(v, known, where, depth + 1) for v in test.values)
        return not self.selects_some_ranks(test)

    def _forced(self, expr: ast.AST, known: list, where: Context, value: bool) -> bool:
        """Do the `known` facts give the rank-free expression `expr` this value?"""
        expr = self._followed(expr)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return self._forced(expr.operand, known, where, not value)
        return _comparable(expr) and any(_implied(atom, truth, expr) is value and self._same_values(atom, expr, where)
                                         for atom, truth in known)

    def _same_values(self, a: ast.AST, b: ast.AST, where: Context) -> bool:
        """Do the names the two (alike) expressions read hold the same values at both places: the
        same bindings reach both, and no attribute they read is stored between them (or in a loop
        around `where` that holds the later one only, whose every pass runs between them)?"""
        names_b = {n.id: n for n in ast.walk(b) if isinstance(n, ast.Name)}
        for name in ast.walk(a):
            other = names_b.get(name.id) if isinstance(name, ast.Name) else None
            if other is not None and self.model.reaching(name.id, name) != self.model.reaching(name.id, other):
                return False
        chains = {dotted for n in (*ast.walk(a), *ast.walk(b)) if isinstance(n, ast.Attribute)
                  and (dotted := _dotted_text(n)) is not None}
        if not chains:
            return True
        lo, hi = sorted(((a.lineno, a.col_offset), (b.lineno, b.col_offset)))
        loops = {id(loop) for loop in where.loops if _spans(loop, hi) and not _spans(loop, lo)}
        for stored, at, store_loops in self._attribute_stores(where.function):
            if any(c == stored or c.startswith(stored + ".") for c in chains) and (
                    lo <= at <= hi or loops & store_loops):
                return False
        return True

    def _attribute_stores(self, function: Optional[ast.AST]) -> list:
        """[(dotted, position, ids of the loops around it)] of the attribute stores of a def (None:
        of the module's own code): `self.kind = ...`, `args.x += 1`."""
        if self._stores is None:
            self._stores = {}
            for node, ctx in self.facts.of_type(ast.Attribute):
                if isinstance(node.ctx, ast.Store) and (d := _dotted_text(node)) is not None:
                    self._stores.setdefault(id(ctx.function), []).append(
                        (d, (node.lineno, node.col_offset), {id(loop) for loop in ctx.loops}))
        return self._stores.get(id(function), [])

    def early_returns_before(self, node: ast.AST, function: ast.AST) -> list:
        """[(early-return If, gate)] of `function` in front of `node`: an `if <rank test>: return`
        earlier in a block that holds `node` (the function's body, or a loop's, a `with`'s, a
        branch's), so only the ranks that did not return reach it."""
        gates = self._function_gates.get(id(function))
        if gates is None:
            gates = self._function_gates[id(function)] = self._gates_of(function)
        at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        return [(stmt, gate) for stmt, end, gate in gates[1] if (stmt.end_lineno, stmt.end_col_offset) <= at <= end]

    def after_early_return(self, stmt: ast.If, function: ast.AST) -> Optional[tuple]:
        """((row, col), (row, col)): where the rest of the block after the early-return `stmt` lies
        (what the ranks that did not return run next), or None when `stmt` is no such gate."""
        gates = self._function_gates.get(id(function))
        if gates is None:
            gates = self._function_gates[id(function)] = self._gates_of(function)
        return next((((s.end_lineno, s.end_col_offset), end) for s, end, _ in gates[1] if s is stmt), None)

    def _gates_of(self, function: ast.AST) -> tuple:
        """(decorator gate or None, [(early-return If, end of its block, gate)]) of a function, computed once."""
        decorator = self.rank_only_decorator(function)
        if decorator is not None:
            decorator = RankGate(decorator, f"`@{ast.unparse(decorator)}` on {function.name}() (line {decorator.lineno})")
        early = []
        for block, top in _blocks_of(function):
            end = (block[-1].end_lineno, block[-1].end_col_offset)
            for stmt in block:
                # (a `raise` ends a function on those ranks as well; inside a block only `return` is read)
                if isinstance(stmt, ast.If) and self._early_return_gates(stmt, (ast.Return, ast.Raise) if top else ast.Return):
                    leave = "raise" if isinstance(stmt.body[-1], ast.Raise) else "return"
                    early.append((stmt, end, RankGate(stmt, f"`if {ast.unparse(stmt.test)}: {leave}` (line {stmt.lineno}) "
                                                            "before it")))
        return decorator, early


def rank_tests(facts: ScriptFacts) -> _RankTests:
    """The module's rank-condition reader (cached on the facts)."""
    return facts.derived("rank_tests", _RankTests)


class _AssumingConstant(_RankTests):
    """A rank-condition reader that takes some parameters (their bindings) to be passed a constant
    by every caller, as `_constant_parameter` proves for the callers of the module."""

    def __init__(self, facts: ScriptFacts, assumed: frozenset):
        super().__init__(facts)
        self._assumed = assumed  # ids of parameter bindings

    def _constant_parameter(self, name: ast.Name) -> bool:
        binding = self.model.binding_of(name)
        return (binding is not None and id(binding) in self._assumed) or super()._constant_parameter(name)


def parameter_gate(facts: ScriptFacts, node: ast.AST, where: Optional[Context], gate: RankGate) -> Optional[tuple]:
    """(function, ((parameter, position or None, its default is a constant), ...)) when `gate` is a
    gate only through parameters named like a rank of a module-level function that this module
    never names (`def log(msg, rank0_only=False): if rank0_only: return`, called from other
    modules): when every caller passes them a constant, every rank of a call takes the same branch
    and nothing else on the path gates `node`. None when another gate remains or the module calls
    the function itself (then `_constant_parameter` has already read its calls)."""
    test = getattr(gate.node, "test", None)
    if test is None:
        return None
    tests = rank_tests(facts)
    found: dict = {}
    for name in ast.walk(test):
        if not isinstance(name, ast.Name) or not tests.selects_some_ranks(name):
            continue
        binding = tests.model.binding_of(name)
        if binding is None or binding.kind != "parameter" or binding.scope.parent is None \
                or binding.scope.parent.kind != "module" or not getattr(binding.scope.node, "name", None):
            return None
        found[id(binding)] = binding
    functions = {id(b.scope.node): b.scope.node for b in found.values()}
    if len(functions) != 1:
        return None
    function = next(iter(functions.values()))
    if any(isinstance(n, ast.Name) and n.id == function.name and isinstance(n.ctx, ast.Load) for n in ast.walk(facts.tree)):
        return None  # the module calls it or hands it on: its own calls decide
    if _AssumingConstant(facts, frozenset(found)).rank_gate(node, where) is not None:
        return None
    return function.name, tuple((b.name, b.position, isinstance(b.default, ast.Constant)) for b in found.values())


def rank_gate(facts: ScriptFacts, node: ast.AST, where: Optional[Context] = None,
              assuming: tuple = ()) -> Optional[RankGate]:
    """The innermost reason why only some ranks reach `node`, or None when every rank may.
    `where`: the node's context when the caller has it (a CallSite's), saving the lookup.
    A rank test that the other conditions on the path settle is no gate (`if kind != LEGACY or
    rank == 0:` around `if kind == GLOBAL:`); `assuming`: (expression, truth) pairs taken to
    hold there as well (what a call's argument must be for the callee to reach its collective)."""
    return rank_tests(facts).rank_gate(node, where, assuming)


def opens_gate(facts: ScriptFacts, node: ast.AST, where: Optional[Context], value: ast.AST,
               gate: Optional[RankGate] = None) -> bool:
    """Where `value` (an expression at `node`) is true, does every rank get to `node`? The flag
    `x` in `if x or rank == 0: helper(sync=x)` does: when it turns the helper's collective on,
    no rank is left out. `gate`: `rank_gate` of `node`, when the caller has it."""
    if not _comparable(value):
        return False
    gate = gate or rank_gate(facts, node, where)
    test = getattr(gate.node, "test", None) if gate is not None else None
    words = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if test is None or not any(isinstance(n, ast.Name) and n.id in words
                               for e in (test, rank_tests(facts)._followed(test)) for n in ast.walk(e)):
        return gate is None  # (the value cannot settle a gate that does not read it)
    return rank_gate(facts, node, where, ((value, True),)) is None


def mentions_rank(facts: ScriptFacts, expr: ast.AST) -> bool:
    return rank_tests(facts).mentions_rank(expr)


_GET_RANK = ("torch.distributed.get_rank", "deepspeed.comm.get_rank", "deepspeed.comm.comm.get_rank")


def same_group(facts: ScriptFacts, a: ast.AST, b: ast.AST) -> bool:
    """Do two group expressions read the same binding (`tp_group` and `tp_group` reached by one
    assignment; `self.group` and `self.group` in one method)? Calls and anything else: no."""
    from .bindings import semantic_model

    model = semantic_model(facts)
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        binding = model.binding_of(a)
        return a.id == b.id and binding is not None and binding is model.binding_of(b)
    if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute):
        return a.attr == b.attr and same_group(facts, a.value, b.value)
    return False


def ranked_groups(facts: ScriptFacts, test: ast.AST) -> list:
    """The group expressions G whose own rank the condition compares with a constant:
    `dist.get_rank(group=G) == 0`, `dist.get_rank(G) != 0`, `G.rank() == 0`, or a name assigned one
    of these (`tp_rank = dist.get_rank(tp_group)`; `if tp_rank == 0`). Such a test is true on some
    ranks of G and false on others."""
    from .bindings import semantic_model

    model = semantic_model(facts)
    found: list = []

    def group_of(side: ast.AST) -> Optional[ast.AST]:
        if isinstance(side, ast.Name):
            side = model.value_of(side)
        if not isinstance(side, ast.Call):
            return None
        if model.resolve(side.func) in _GET_RANK:
            group = side.args[0] if side.args else next((k.value for k in side.keywords if k.arg == "group"), None)
            return group if group is not None and literal(group) is None and not (
                isinstance(group, ast.Constant)) and "WORLD" not in ast.unparse(group) else None
        if isinstance(side.func, ast.Attribute) and side.func.attr == "rank" and not side.args and not side.keywords:
            return side.func.value
        return None

    for node in ast.walk(test):
        if not isinstance(node, ast.Compare) or any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            continue
        sides = [node.left, *node.comparators]
        groups = [g for g in map(group_of, sides) if g is not None]
        if len(groups) == 1 and all(_flat_constants(s) is not None for s in sides if group_of(s) is None):
            found.append(groups[0])
    return found


def _atoms(test: ast.AST, truth: bool):
    """(atom, truth) pairs that hold when `test` has the value `truth`: the parts of an `and`
    that is true, of an `or` that is false, through `not`; the rest is one atom."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _atoms(test.operand, not truth)
    elif isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And if truth else ast.Or):
        for value in test.values:
            yield from _atoms(value, truth)
    elif not isinstance(test, ast.BoolOp):
        yield test, truth


def _comparable(expr: ast.AST) -> bool:
    """A flag or a comparison of names, attributes and literals, which reads the same twice
    while its names keep their values (a call may not)."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Constant, ast.Compare, ast.Tuple, ast.List, ast.Set,
                              ast.UnaryOp, ast.expr_context, ast.cmpop, ast.unaryop))
               for n in ast.walk(expr)) and not (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not))


# (is, is not) compare like (==, !=) for None and enum members, the constants they are written for.
_EQUALITY = {ast.Eq: True, ast.NotEq: False, ast.Is: True, ast.IsNot: False}


def _implied(atom: ast.AST, truth: bool, expr: ast.AST) -> Optional[bool]:
    """The value `expr` has where `atom` has the value `truth`, when that decides it: the same
    expression, or one subject against constants (`kind == Kind.GLOBAL` makes
    `kind != Kind.LEGACY` true and `kind in (Kind.LOCAL,)` false). The caller checks that the
    names hold the same values at both places."""
    if ast.dump(atom) == ast.dump(expr):
        return truth
    known, asked = _membership(atom), _membership(expr)
    if known is None or asked is None or ast.dump(known[0]) != ast.dump(asked[0]):
        return None
    _, k_values, k_inside = known
    _, a_values, a_inside = asked
    if not truth:
        k_inside = not k_inside
    if not k_inside:  # the subject is none of k_values: decides only "is it one of a subset of them"
        return (not a_inside) if all(any(_same_constant(v, k) for k in k_values) for v in a_values) else None
    hits = [any(_same_constant(k, v) for v in a_values) for k in k_values]
    if all(hits):
        return a_inside
    if not any(hits) and all(_distinct_constants(k, v) for k in k_values for v in a_values):
        return not a_inside
    return None


def _membership(expr: ast.AST) -> Optional[tuple]:
    """(subject, [constants], is-one-of) for `x == C`, `C != x`, `x is None`, `x in (A, B)`,
    `x not in [...]` with literal or enum-member constants; None for anything else."""
    if not isinstance(expr, ast.Compare) or len(expr.ops) != 1:
        return None
    op, left, right = type(expr.ops[0]), expr.left, expr.comparators[0]
    if op in _EQUALITY:
        if _constant_key(right) is None and _constant_key(left) is not None:
            left, right = right, left
        key = _constant_key(right)
        if key is None or _constant_key(left) is not None or (op in (ast.Is, ast.IsNot) and key[0] == "literal"
                                                             and key[1] is not None):
            return None
        return left, [key], _EQUALITY[op]
    if op in (ast.In, ast.NotIn) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts:
        keys = [_constant_key(e) for e in right.elts]
        if any(k is None for k in keys) or _constant_key(left) is not None:
            return None
        return left, keys, op is ast.In
    return None


def _constant_key(node: ast.AST) -> Optional[tuple]:
    """("literal", value) for a str/number/bool/None literal, ("member", owner, name) for
    `Owner.NAME` (an enum's member: the owner's name is capitalised), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return ("literal", node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return ("literal", -node.operand.value)
    if isinstance(node, ast.Attribute):
        owner = _dotted_text(node.value)
        if owner is not None and owner.rsplit(".", 1)[-1][:1].isupper():
            return ("member", owner, node.attr)
    return None


def _same_constant(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and a[1:] == b[1:] and (a[0] != "literal" or type(a[1]) is type(b[1]))


def _distinct_constants(a: tuple, b: tuple) -> bool:
    """Two constants no value equals both of: literals that differ (not 1 and True), or two
    members of one enum with different names (an alias, two names for one value, is rare)."""
    if a[0] != b[0]:
        return False
    if a[0] == "literal":
        return a[1] != b[1]
    return a[1] == b[1] and a[2] != b[2]


def _spans(node: ast.AST, at: tuple) -> bool:
    return (node.lineno, node.col_offset) <= at <= (node.end_lineno, node.end_col_offset)


def _dotted_text(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


@lru_cache(maxsize=8192)  # (the same names are asked about again and again)
def _rank_word(name: str, main: bool = False) -> bool:
    return bool(RANK_WORDS.search(name) or (main and _MAIN_WORDS.search(name)))


def _names_a_rank(node: ast.AST, main: bool = False) -> bool:
    """A Name, an attribute or an env key that spells a rank (`main`: or a main-process flag)."""
    if isinstance(node, ast.Name):
        return _rank_word(node.id, main)
    if isinstance(node, ast.Attribute):
        return _rank_word(node.attr, main)
    return isinstance(node, ast.Constant) and node.value in ("RANK", "LOCAL_RANK")


def _alike_for_every_rank(test: ast.Compare, ranked: list) -> bool:
    """`rank >= 0`, `rank < 0`, `0 <= rank`: one rank against an integer, with one answer for every
    rank 0, 1, 2, ... (a rank is never negative: -1 only ever means "not distributed", one process).
    Beyond the bound every rank answers alike, so the ranks up to it and two past it decide."""
    if len(test.ops) != 1 or type(test.ops[0]) not in _COMPARE or len(ranked) != 1:
        return False
    left, right = test.left, test.comparators[0]
    rank_left = ranked[0] is left
    bound = literal(right if rank_left else left)
    if not isinstance(bound, int) or isinstance(bound, bool):
        return False
    compare = _COMPARE[type(test.ops[0])]
    return len({compare(r, bound) if rank_left else compare(bound, r) for r in range(max(bound, 0) + 3)}) == 1


def _flat_constants(node: ast.AST) -> Optional[list]:
    value = literal(node)
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    if value is None and not (isinstance(node, ast.Constant) and node.value is None):
        return None
    return [value]


def compares_a_count_to_one(test: ast.AST) -> bool:
    """`if ext_dist.my_size > 1:` (a module global of another module that holds the world size): a
    count of something compared with 1 or 2 picks the one-process path from the multi-process one."""
    return any(isinstance(node, ast.Compare) and len(node.ops) == 1
               and any(isinstance(side, ast.Constant) and side.value in (1, 2) and type(side.value) is int
                       for side in (node.left, node.comparators[0]))
               and any("size" in ast.unparse(side).lower() or "count" in ast.unparse(side).lower()
                       for side in (node.left, node.comparators[0]) if not isinstance(side, ast.Constant))
               for node in ast.walk(test))


def _is_world_size(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return "world" in text or "size" in text or "num_" in text


def _callee_or_name(node: ast.AST) -> str:
    return last_name(node) or ""


def _names_sharded_backend(test: ast.AST) -> bool:
    """`if is_main_process or distributed_type == DistributedType.DEEPSPEED`: the author let the shards through."""
    text = ast.unparse(test).lower()
    return "deepspeed" in text or "fsdp" in text or "distributed_type" in text


_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def _blocks_of(function: ast.AST):
    """(statement list, is the function's own body) for every block of a function, nested defs
    and classes left out (their statements run when they are called, not here)."""
    todo = [(function.body, True)]
    while todo:
        block, top = todo.pop()
        if not block:
            continue
        yield block, top
        for stmt in block:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            todo.extend((getattr(stmt, name), False) for name in _BLOCK_FIELDS if getattr(stmt, name, None))
            todo.extend((handler.body, False) for handler in getattr(stmt, "handlers", ()))
            todo.extend((case.body, False) for case in getattr(stmt, "cases", ()))


LEAVES = (ast.Continue, ast.Break, ast.Return, ast.Raise)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _holding(block: list, at: tuple) -> Optional[tuple]:
    """(index, statement) of the statement of `block` whose text holds position `at`."""
    return next(((i, stmt) for i, stmt in enumerate(block)
                 if (stmt.lineno, stmt.col_offset) <= at <= (stmt.end_lineno, stmt.end_col_offset)), None)


def _inner_blocks(stmt: ast.stmt) -> list:
    blocks = [getattr(stmt, name) for name in _BLOCK_FIELDS if getattr(stmt, name, None)]
    return blocks + [h.body for h in getattr(stmt, "handlers", ())] + [c.body for c in getattr(stmt, "cases", ())]


def leaves_after(branch: list, node: ast.AST) -> Optional[ast.stmt]:
    """The `continue`/`break`/`return`/`raise` that control runs into after `node` (which sits in
    the statements `branch`) before falling out of `branch`: the first one later in a block around
    `node`, innermost block first. None when there is none, or when a loop or def between `branch`
    and `node` may run `node` more than once per pass."""
    at = (node.lineno, node.col_offset)
    found, block = None, branch
    while block:
        hit = _holding(block, at)
        if hit is None:
            break
        index, stmt = hit
        found = next((s for s in block[index + 1:] if isinstance(s, LEAVES)), None) or found
        if isinstance(stmt, _LOOPS + _SCOPES):
            return None
        block = next((b for b in _inner_blocks(stmt) if _holding(b, at)), None)
    return found


def runs_after_skipping(root: list, if_node: ast.If, leave: ast.stmt) -> list:
    """The statements that run next, in the pass `leave` ends, for a rank that runs `if_node`
    without leaving: after `if_node` in each block around it, up to the body of the innermost
    loop around it (`continue`, `break`) or up to `root`, a function's or module's body
    (`return`, `raise`). [] when `if_node` is not found under `root`."""
    at = (if_node.lineno, if_node.col_offset)
    levels, block = [], root
    while block:
        hit = _holding(block, at)
        if hit is None:
            return []
        index, stmt = hit
        levels.append((block, index, stmt))
        if stmt is if_node:
            break
        if isinstance(stmt, _SCOPES):
            return []
        block = next((b for b in _inner_blocks(stmt) if _holding(b, at)), None)
    else:
        return []
    if isinstance(leave, (ast.Continue, ast.Break)):
        loops = [i for i, (_, _, stmt) in enumerate(levels) if isinstance(stmt, _LOOPS)]
        if not loops:
            return []
        levels = levels[loops[-1] + 1:]
    return [stmt for block, index, _ in reversed(levels) for stmt in block[index + 1:]]


# -- other conditions ---------------------------------------------------------------------------

def under_main_guard(ctx: Context) -> bool:
    """Inside `if __name__ == "__main__":`."""
    return any("__main__" in ast.unparse(guard.test) and in_body for guard, in_body in ctx.guards)


_NO_GRAD = ("no_grad", "inference_mode")


def grad_disabled_at(facts: ScriptFacts, ctx: Context, assumed: Optional[set] = None) -> bool:
    """Autograd is off at a place: inside `with torch.no_grad()`/`inference_mode()` or
    `with torch.set_grad_enabled(False)`, a `with` of a name bound to one of them
    (`ctx = torch.inference_mode()`), or in a function decorated with one of them or with a
    decorator of this module named like them (YOLOv5's `@smart_inference_mode()`); inside `with
    frozen():` of a `@contextmanager` of this module that turns autograd off before its yield
    (`grad_off_context`), or in a function decorated with a decorator of this module that calls it
    under one (`grad_off_decorator`). With `assumed`, when none of these holds, a decorator or
    context manager imported from the project counts as well: its (local name, "decorator" |
    "context") is added there, for the project phase to decide (`grad_off_helper`)."""
    if _grad_disabled_here(facts, ctx):
        return True
    if assumed is None:
        return False
    imported = _imported_grad_helper(facts, ctx)
    if imported is not None:
        assumed.add(imported)
    return imported is not None


def _grad_disabled_here(facts: ScriptFacts, ctx: Context) -> bool:
    for with_node in ctx.withs:
        for item in with_node.items:
            expr = item.context_expr
            name = facts.resolve(expr.func if isinstance(expr, ast.Call) else expr) or ""
            if name.endswith(_NO_GRAD):
                return True
    decorators = getattr(ctx.function, "decorator_list", ())
    for dec in decorators:
        name = facts.resolve(dec.func if isinstance(dec, ast.Call) else dec) or ""
        if name.endswith(_NO_GRAD):
            return True
    managers = [item.context_expr for w in ctx.withs for item in w.items]
    if not managers and not decorators:
        return False
    from .bindings import semantic_model

    model = semantic_model(facts)
    if any(_turns_grad_off(model, expr) for expr in (*managers, *decorators)):
        return True
    helpers = grad_off_defs(facts)
    return bool(helpers) and (any(_local_helper(model, facts, m, helpers) == "context" for m in managers) or any(
        _local_helper(model, facts, d, helpers) == ("context" if isinstance(d, ast.Call) else "decorator")
        for d in decorators))


def _turns_grad_off(model, expr: ast.AST) -> bool:
    """`torch.no_grad()`, `inference_mode()`, `set_grad_enabled(False)`, a name bound to one of
    them, a call of a name bound to such factories (`(torch.inference_mode if fast else torch.no_grad)()`),
    or a def of this module named like them, read through bindings."""
    from .objects import callee_name

    expr = model.value_of(expr)
    name = callee_name(model, expr)
    if name.endswith(_NO_GRAD):
        return True
    if isinstance(expr, ast.Call) and not expr.args and not expr.keywords and isinstance(expr.func, ast.Name):
        # `grad_off = torch.inference_mode if fast else torch.no_grad`, then `with grad_off():`
        factory = model.value_of(expr.func)
        arms = [factory.body, factory.orelse] if isinstance(factory, ast.IfExp) else [factory]
        if factory is not expr.func and all(
                isinstance(a, (ast.Name, ast.Attribute)) and (model.resolve(a) or "").endswith(_NO_GRAD) for a in arms):
            return True
    return (name.endswith("set_grad_enabled") and isinstance(expr, ast.Call) and bool(expr.args)
            and literal(expr.args[0]) is False)


def autograd_off(facts: ScriptFacts, node: ast.AST, assumed: Optional[set] = None) -> bool:
    """Autograd is off where `node` runs: `grad_disabled_at` its place, or it is in a def whose
    every call in this module is such a place (an evaluation helper called only under
    `torch.no_grad()`), through up to four levels of helpers. A def no call of this module
    reaches is not off. True for a node the facts do not index (nothing to judge there).
    With `assumed` (an empty set), True may rest on project decorators and context managers
    of other modules turning autograd off: those are added there (see `grad_disabled_at`)."""
    return _autograd_off(facts, node, 0, assumed)


def _autograd_off(facts: ScriptFacts, node: ast.AST, depth: int, assumed: Optional[set] = None) -> bool:
    from .bindings import semantic_model
    from .objects import calls_of

    ctx = facts.context_of(node)
    if ctx is None or grad_disabled_at(facts, ctx, assumed) or facts.derived(
            "grad_off_for_the_script", _grad_off_for_the_script):
        return True
    function = ctx.function
    if depth >= 4 or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    calls = calls_of(semantic_model(facts), function)
    return bool(calls) and all(_autograd_off(facts, call, depth + 1, assumed) for call, _ in calls)


# -- project decorators and context managers that turn autograd off -------------------------------

_GRAD_WORDS = ("no_grad", "inference_mode", "set_grad_enabled")


def grad_off_defs(facts: ScriptFacts) -> dict:
    """id(def) -> "decorator" | "context" for the module-level defs of this module that turn autograd
    off around what they run (`grad_off_decorator`, `grad_off_context`); built once per module."""
    return facts.derived("grad_off_defs", _grad_off_defs)


def _grad_off_defs(facts: ScriptFacts) -> dict:
    if not any(word in facts.text for word in _GRAD_WORDS):
        return {}
    from .bindings import semantic_model

    model = semantic_model(facts)
    found = {}
    for name, function in facts.functions.items():
        if "." in name:
            continue  # (a method: `self.frozen()` is not followed)
        kind = grad_off_kind(model, function)
        if kind:
            found[id(function)] = kind
    return found


def grad_off_kind(model, function: ast.AST) -> str:
    """"decorator" when `grad_off_decorator(function)`, "context" when `grad_off_context(function)`, else ""."""
    if grad_off_decorator(model, function):
        return "decorator"
    return "context" if grad_off_context(model, function) else ""


def _local_helper(model, facts: ScriptFacts, expr: ast.AST, helpers: dict) -> str:
    """The kind in `helpers` of the def of this module that `expr` (`frozen()`, `no_autograd`) is, or names, or ""."""
    name = expr.func if isinstance(expr, ast.Call) else expr
    if not isinstance(name, ast.Name):
        return ""
    function = facts.functions.get(name.id)
    bindings = model.reaching(name.id, name)
    if function is None or len(bindings) != 1 or bindings[0].node is not function:
        return ""
    return helpers.get(id(function), "")


def _imported_grad_helper(facts: ScriptFacts, ctx: Context) -> Optional[tuple]:
    """(local name, "context" | "decorator") of the first `with helper():` around the place, or
    decorator of its function (`@no_autograd`; `@frozen()` is a context manager used as one), that
    is a name imported from the project (not a library's)."""
    from ..sources.names import dotted, is_library

    decorators = getattr(ctx.function, "decorator_list", ())
    candidates = [(item.context_expr, "context") for w in ctx.withs for item in w.items
                  if isinstance(item.context_expr, ast.Call)]
    candidates += [(d, "context" if isinstance(d, ast.Call) else "decorator") for d in decorators]
    for expr, kind in candidates:
        name = expr.func if isinstance(expr, ast.Call) else expr
        resolved = facts.resolve(name) if isinstance(name, (ast.Name, ast.Attribute)) else None
        local = dotted(name)
        if resolved and local and not is_library(resolved):
            return local, kind
    return None


def grad_off_decorator(model, function: ast.AST) -> bool:
    """A decorator that runs what it decorates with autograd off: `def no_autograd(fn):` of one
    parameter, whose every `return` (at least its last statement) gives a def nested in it
    (`wrapper`, with `functools.wraps(fn)` or not) that calls `fn`, every use of `fn` in it being such
    a call inside a `with` that turns autograd off (`torch.inference_mode()`, `no_grad()`,
    `set_grad_enabled(False)`), and nothing in it turning autograd back on."""
    if not isinstance(function, ast.FunctionDef) or not function.body or not isinstance(function.body[-1], ast.Return):
        return False
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if len(positional) != 1 or args.vararg or args.kwarg or args.kwonlyargs:
        return False
    wrapped = positional[0].arg
    inner = {s.name: s for s in function.body if isinstance(s, ast.FunctionDef)}
    returns = [n for n in _own_nodes(function) if isinstance(n, ast.Return)]
    names = {r.value.id for r in returns if isinstance(r.value, ast.Name)}
    if len(names) != 1 or len(returns) != sum(isinstance(r.value, ast.Name) for r in returns):
        return False
    wrapper = inner.get(names.pop())
    if wrapper is None or any(isinstance(s, ast.FunctionDef) and s.name == wrapper.name and s is not wrapper
                              for s in function.body):
        return False
    uses = _GradOffUses(model, wrapped)
    for stmt in wrapper.body:
        uses.visit(stmt, False)
    return uses.calls > 0 and uses.ok


class _GradOffUses:
    """Counts the calls of `name` under a grad-off `with` in a def's body; `ok` turns False at any other
    use of `name`, at a use inside a nested def or lambda, or at a call that turns autograd on."""

    def __init__(self, model, name: str):
        self.model, self.name, self.calls, self.ok = model, name, 0, True

    def visit(self, node: ast.AST, off: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if any(isinstance(n, ast.Name) and n.id == self.name for n in ast.walk(node)):
                self.ok = False
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.visit(item, off)
            inside = off or any(_turns_grad_off(self.model, item.context_expr) for item in node.items)
            for stmt in node.body:
                self.visit(stmt, inside)
            return
        if isinstance(node, ast.Call):
            if _turns_grad_on(self.model, node):
                self.ok = False
            if isinstance(node.func, ast.Name) and node.func.id == self.name:
                if off:
                    self.calls += 1
                else:
                    self.ok = False
                for child in (*node.args, *node.keywords):
                    self.visit(child, off)
                return
        if isinstance(node, ast.Name) and node.id == self.name:
            self.ok = False  # (handed on, rebound, or called outside the grad-off block)
            return
        for child in ast.iter_child_nodes(node):
            self.visit(child, off)


def _turns_grad_on(model, call: ast.Call) -> bool:
    """A call that may turn autograd on: `enable_grad()`, `set_grad_enabled(...)` of anything but False."""
    from .objects import callee_name

    name = callee_name(model, call)
    if name.endswith("enable_grad"):
        return True
    return name.endswith("set_grad_enabled") and not (call.args and literal(call.args[0]) is False)


def _own_nodes(function: ast.AST):
    """The nodes of a def's body, not those of a def, lambda or class nested in it."""
    todo = list(getattr(function, "body", ()))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def grad_off_context(model, function: ast.AST) -> bool:
    """A `@contextlib.contextmanager` whose `with` body runs with autograd off: one `yield` (no
    `yield from`), reached only through `try` bodies and `with` blocks (no branch or loop), with
    autograd turned off on the way to it (a `torch.set_grad_enabled(False)` statement, or a `with
    torch.no_grad():` around it) and not turned on again after that (what it restores after the
    yield does not matter)."""
    from .objects import callee_name

    if not isinstance(function, ast.FunctionDef) or not any(
            callee_name(model, d) == "contextlib.contextmanager" for d in function.decorator_list):
        return False
    yields = [n for n in _own_nodes(function) if isinstance(n, (ast.Yield, ast.YieldFrom))]
    if len(yields) != 1 or not isinstance(yields[0], ast.Yield):
        return False
    at = (yields[0].lineno, yields[0].col_offset)
    block, off = function.body, False
    while True:
        hit = _holding(block, at)
        if hit is None:
            return False
        index, stmt = hit
        for before in block[:index]:
            if (isinstance(before, ast.Expr) and isinstance(before.value, ast.Call)
                    and callee_name(model, before.value).endswith("set_grad_enabled")
                    and before.value.args and literal(before.value.args[0]) is False):
                off = True
            elif any(isinstance(n, ast.Call) and _turns_grad_on(model, n) for n in ast.walk(before)):
                off = False
        if isinstance(stmt, (ast.Expr, ast.Assign)) and stmt.value is yields[0]:
            return off
        if isinstance(stmt, ast.Try) and _holding(stmt.body, at) is not None:
            block = stmt.body
        elif isinstance(stmt, ast.With) and _holding(stmt.body, at) is not None:
            if any(_turns_grad_off(model, item.context_expr) for item in stmt.items):
                off = True
            elif any(isinstance(n, ast.Call) and _turns_grad_on(model, n) for item in stmt.items
                     for n in ast.walk(item.context_expr)):
                off = False
            block = stmt.body
        else:
            return False


def _grad_off_for_the_script(facts: ScriptFacts) -> bool:
    """`torch.set_grad_enabled(False)` as a statement of the module's top level, and nothing turns
    autograd back on anywhere in it (no `set_grad_enabled` with another value, no `enable_grad`)."""
    if "set_grad_enabled" not in facts.text:
        return False
    sites = facts.calls_to("torch.set_grad_enabled")
    top = [s for s in sites if s.ctx.function is None and not s.ctx.guards and s.node.args
           and isinstance(s.node.args[0], ast.Constant) and s.node.args[0].value is False
           and any(isinstance(stmt, ast.Expr) and stmt.value is s.node for stmt in facts.tree.body)]
    return bool(top) and len(top) == len(sites) and not facts.calls_to("torch.enable_grad")


def exclusive(a: Context, b: Context) -> bool:
    """The two places sit in different branches of one `if`: never both run."""
    branches = dict((id(node), body) for node, body in a.guards)
    return any(id(node) in branches and branches[id(node)] != body for node, body in b.guards)


_SETUP_METHODS = ("__init__", "setup", "configure_model", "__post_init__")


def runs_before(a: ast.AST, a_ctx: Context, b: ast.AST, b_ctx: Context) -> bool:
    """`a` runs before `b`: earlier in the same function, or in the constructor/`setup` of the
    class whose other method holds `b` (an object is built before its methods are called)."""
    if a_ctx.function is b_ctx.function:
        return (a.lineno, a.col_offset) < (b.lineno, b.col_offset)
    if a_ctx.class_ is not None and a_ctx.class_ is b_ctx.class_:
        a_name = getattr(a_ctx.function, "name", "")
        b_name = getattr(b_ctx.function, "name", "")
        return a_name in _SETUP_METHODS and b_name not in _SETUP_METHODS
    return False


# -- who runs a place ---------------------------------------------------------------------------

def _selects_rank_zero(tests: _RankTests, test: ast.AST) -> bool:
    """`rank == 0`, `is_main`, `not rank`, or an `and` with one of them: only rank 0 passes."""
    test = tests._followed(test)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_selects_rank_zero(tests, v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _callee_or_name(test.operand) in _BARE_RANKS
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In):
        return tests.mentions_rank(test.left) and _rank_zero_or_none(test.comparators[0])  # `local_rank in [-1, 0]`
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        left, right = test.left, test.comparators[0]  # `rank is 0`: CPython's small ints are one object
        return (_is_zero(right) and tests.mentions_rank(left)) or (_is_zero(left) and tests.mentions_rank(right))
    return isinstance(test, (ast.Name, ast.Attribute, ast.Call)) and tests._names_main(test)


def _selects_other_ranks(tests: _RankTests, test: ast.AST) -> bool:
    """`rank != 0`, `rank > 0`, `not is_main`, `if rank:`: every rank but 0 passes (an `or` with one
    of them: the ranks that fail it are rank 0 or fewer; an `and`: each part must be one)."""
    test = tests._followed(test)
    if isinstance(test, ast.BoolOp):
        parts = [_selects_other_ranks(tests, v) for v in test.values]
        return any(parts) if isinstance(test.op, ast.Or) else all(parts)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _selects_rank_zero(tests, test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, left, right = test.ops[0], test.left, test.comparators[0]
        if isinstance(op, ast.NotIn):
            return tests.mentions_rank(left) and _rank_zero_or_none(right)  # `local_rank not in [-1, 0]`
        if tests.mentions_rank(left) and not tests.mentions_rank(right):
            return (isinstance(op, (ast.NotEq, ast.IsNot, ast.Gt)) and _is_zero(right)) or (
                isinstance(op, ast.GtE) and literal(right) == 1)
        if tests.mentions_rank(right) and not tests.mentions_rank(left):
            return (isinstance(op, (ast.NotEq, ast.IsNot, ast.Lt)) and _is_zero(left)) or (
                isinstance(op, ast.LtE) and literal(left) == 1)
        return False
    return _callee_or_name(test) in _BARE_RANKS and tests.selects_some_ranks(test)


def _is_zero(node: ast.AST) -> bool:
    """The integer 0 (not `False`, which equals 0 but names a flag's other side)."""
    value = literal(node)
    return value == 0 and not isinstance(value, bool)


def _rank_zero_or_none(values: ast.AST) -> bool:
    """`[-1, 0]`, `(0,)`: rank 0, or -1 for a run without distributed (one process, rank 0's GPU)."""
    flat = _flat_constants(values)
    return bool(flat) and 0 in flat and all(c in (-1, 0) and not isinstance(c, bool) for c in flat)


def only_rank_zero(facts: ScriptFacts, node: ast.AST, depth: int = 0) -> bool:
    """Only rank 0 runs `node`: under `if rank == 0:` (or `is_main`, or the `else` of `if rank != 0`),
    after an early `if rank != 0: return` (`if not is_main_process(): return`) in front of it, or in
    a function of this module whose every call is itself reached by rank 0 only (`evaluate()`
    called under the gate)."""
    tests = rank_tests(facts)
    where = facts.context_of(node)
    if where is None:
        return False
    for guard, in_body in where.guards:
        if _selects_rank_zero(tests, guard.test) if in_body else (
                _selects_other_ranks(tests, guard.test) and tests.selects_some_ranks(guard.test)):
            return True
    function = where.function
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _selects_other_ranks(tests, stmt.test) for stmt, _ in tests.early_returns_before(node, function)):
        return True
    name = getattr(function, "name", None)
    if not name or depth > 2:
        return False
    calls = [s for s in facts.method_calls(name) if s.receiver in (None, "self")]
    return bool(calls) and all(only_rank_zero(facts, s.node, depth + 1) for s in calls)


def in_one_gpu_actor(facts: ScriptFacts, ctx: Context) -> bool:
    """Inside a Ray actor or task declared with `@ray.remote(num_gpus=...)`: Ray makes exactly the
    GPUs it grants visible, so `cuda:0` is the process's own GPU."""
    owners = [ctx.class_, ctx.function]
    for owner in owners:
        for dec in getattr(owner, "decorator_list", ()) or ():
            if isinstance(dec, ast.Call) and (facts.resolve(dec.func) or "") in ("ray.remote",) and any(
                    k.arg == "num_gpus" for k in dec.keywords):
                return True
    return False


def in_ray_actor(facts: ScriptFacts, ctx: Context) -> bool:
    """Inside a Ray actor class (`@ray.remote`, with or without resources: verl's RayWorkerGroup grants
    them with `.options(num_gpus=...)` where it starts it), or a one-GPU actor or task: Ray sets the
    GPUs each actor sees, so the actors of one process group never share a default device."""
    if in_one_gpu_actor(facts, ctx):
        return True
    for dec in getattr(ctx.class_, "decorator_list", ()) or ():
        target = dec.func if isinstance(dec, ast.Call) else dec
        if (facts.resolve(target) or "") == "ray.remote":
            return True
    return False


_PLACEMENTS = ("to", "cuda", "device", "set_device")
# A switch named for a parallel mode (`enable_fsdp`, `sharded`, `use_parallel`, `multi_gpu`, `args.dist`):
# with its other arm on the rank's GPU, it is the multi-process switch (a switch named otherwise,
# `use_amp`, may leave every rank on cuda:0: that is the bug).
_PARALLEL_WORDS = ("fsdp", "shard", "parallel", "multi", "dist")


def parallel_mode_switch(facts: ScriptFacts, guard: ast.If, branch: bool) -> bool:
    """Is `guard` the multi-process switch, seen from its `branch` arm: a test named for a parallel
    mode whose other arm places something on a rank's GPU (then this arm is the one-process one)?"""
    text = ast.unparse(guard.test).lower()
    if not any(word in text for word in _PARALLEL_WORDS):
        return False
    for statement in guard.orelse if branch else guard.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and last_name(node.func) in _PLACEMENTS and \
                    any(mentions_rank(facts, a) for a in [*node.args, *(k.value for k in node.keywords)]):
                return True
    return False


# A test of ZeRO stage 3 by name: DeepSpeed's `engine.zero_optimization_partition_weights()`,
# transformers' `is_deepspeed_zero3_enabled()`, a project's `is_zero3`, `args.zero3`.
_ZERO3_NAME = re.compile(r"^(is_|use_|using_|enable_)?(deepspeed_|ds_)?(zero_?3|zero_?stage_?3|stage_?3)(_enabled|_on)?$"
                         r"|partition_weights$", re.IGNORECASE)
_STAGE_NAME = re.compile(r"(^|_)(zero_?)?stage$", re.IGNORECASE)


def zero3_test(test: ast.AST) -> Optional[bool]:
    """True when `test` holds exactly when ZeRO stage 3 is on (`engine.zero_optimization_partition_weights()`,
    `is_deepspeed_zero3_enabled()`, `zero_stage == 3`, `cfg["zero_optimization"]["stage"] >= 3`), False when
    exactly when it is off (`not ...`, `stage != 3`, `stage < 3`), None for anything else."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = zero3_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Call) and not test.args and not test.keywords:
        test = test.func
    if isinstance(test, (ast.Name, ast.Attribute)):
        return True if _ZERO3_NAME.search(last_name(test) or "") else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value == 3 and type(test.ops[0]) in (ast.Eq, ast.GtE, ast.NotEq, ast.Lt):
        left = test.left.func if isinstance(test.left, ast.Call) and not test.left.args else test.left
        key = left.slice if isinstance(left, ast.Subscript) else None
        name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else last_name(left) or ""
        if _STAGE_NAME.search(name) or name.endswith("zero_optimization_stage"):
            return type(test.ops[0]) in (ast.Eq, ast.GtE)
    return None


def under_zero3(where: Context, function: Optional[ast.AST] = None) -> Optional[bool]:
    """True when the place runs only with ZeRO-3 on, False only with it off (by the `if` tests around it,
    inside `function` when given), None when neither shows."""
    for guard, in_body in where.guards:
        if function is not None and guard.lineno < function.lineno:
            continue
        on = zero3_test(guard.test)
        if on is not None:
            return on if in_body else not on
    return None
