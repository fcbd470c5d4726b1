"""The one-walk facts and the memoised queries give what the plain definitions give.

The walk in facts/script.py resolves call names and records assignments inline (no
`imports.resolve`/`dotted`/`_record_assignment` call per node), and `_is_parser` answers once per
parser value; these tests recompute the same facts the slow, obvious way and compare.
"""
from __future__ import annotations

import ast
import collections
import textwrap
from pathlib import Path

import pytest

from dslint.facts.bindings import semantic_model
from dslint.facts.script import assigned_name, build_script_facts
from dslint.facts.values import argparse_defaults
from dslint.sources.names import dotted

ROOT = Path(__file__).resolve().parents[1]

TRICKY = textwrap.dedent("""
    import os, torch
    import torch.distributed as dist
    from torch.utils.data import DataLoader as DL
    from . import helpers

    a = b = DL(ds)
    x, (y, self.z) = torch.load("f"), 1
    n: int = int(os.environ["RANK"])
    q: int
    obj.attr.deep = 3
    f()(1).g()
    (lambda: dist.barrier())()
    [dist.all_reduce(t) for t in ts]
    class Model(torch.nn.Module):
        w = torch.zeros(3)
        def forward(self, x, scale=torch.ones(1), *, k=os.getenv("K")):
            self.out = self.layer.forward(x)
            with torch.no_grad():
                if dist.get_rank() == 0:
                    dist.barrier()
                else:
                    helpers.sync(x)
            for i in range(3):
                while i:
                    i -= 1
            return self.out
""")


def _sources() -> list[tuple[str, str]]:
    found = [("<tricky>", TRICKY)]
    for path in sorted((ROOT / "examples").rglob("*.py")) + sorted((ROOT / "src" / "dslint" / "facts").glob("*.py")):
        found.append((str(path), path.read_text(encoding="utf-8")))
    return found


@pytest.fixture(scope="module", params=_sources(), ids=lambda s: Path(s[0]).name)
def built(request):
    path, text = request.param
    tree = ast.parse(text)
    return tree, build_script_facts(path, text, tree)


def test_call_sites_match_resolve_and_dotted(built):
    tree, facts = built
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert sorted(map(id, calls)) == sorted(id(s.node) for s in facts.calls)
    for site in facts.calls:
        func = site.node.func
        assert site.qualname == facts.imports.resolve(func), ast.unparse(func)
        if isinstance(func, ast.Attribute):
            assert (site.attr, site.receiver) == (func.attr, dotted(func.value)), ast.unparse(func)
        elif isinstance(func, ast.Name):
            assert (site.attr, site.receiver) == (func.id, None)
        else:
            assert (site.attr, site.receiver) == ("", None)
        assert facts.context_of(site.node) is site.ctx


def _expected_assignments(tree: ast.Module) -> collections.Counter:
    expected = collections.Counter()

    def record(target, value, node):
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                record(element, value, node)
        elif dotted(target):
            expected[(dotted(target), id(value), id(node))] += 1

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                record(target, node.value, node)
    return expected


def test_assignments_match_every_target(built):
    tree, facts = built
    got = collections.Counter((a.name, id(a.value), id(a.node)) for a in facts.assignments)
    assert got == _expected_assignments(tree)
    for assignment in facts.assignments:
        assert facts.context_of(assignment.node) is assignment.ctx


def test_tricky_contexts():
    tree = ast.parse(TRICKY)
    facts = build_script_facts("t.py", TRICKY, tree)
    barrier = next(s for s in facts.calls_to("torch.distributed.barrier") if s.ctx.guards)
    (guard, in_body), = barrier.ctx.guards
    assert in_body and isinstance(guard, ast.If) and barrier.ctx.class_.name == "Model"
    assert barrier.ctx.function.name == "forward" and len(barrier.ctx.withs) == 1
    sync = facts.method_calls("sync")[0]
    assert sync.ctx.guards == ((guard, False),) and sync.receiver == "helpers" and sync.qualname is None
    default = facts.calls_to("torch.ones")[0]
    assert default.ctx.function is None and default.ctx.class_.name == "Model"
    assert [a.name for a in facts.assignments if a.name in ("a", "b", "x", "y", "self.z", "n")] == [
        "a", "b", "x", "y", "self.z", "n"]
    assert not facts.assignments_to("q")


PARSERS = textwrap.dedent("""
    import argparse
    parser = argparse.ArgumentParser()
    fake = Registry()
    group = parser.add_argument_group("g")
    parser.add_argument("--a", default=1)
    fake.add_argument("--b", default=2)
    group.add_argument("--c", default=3)
    parser.add_argument("--e")
    fake.add_argument("--f")

    def add(p):
        p.add_argument("--d", default=4)
        p.add_argument("--g", default=5)

    add(parser)

    def other(p):
        p.add_argument("--h", default=6)

    other(fake)
""")


def test_parser_memo_keeps_each_parser_apart():
    tree = ast.parse(PARSERS)
    facts = build_script_facts("p.py", PARSERS, tree)
    defaults = argparse_defaults(semantic_model(facts))
    assert sorted(defaults) == ["a", "c", "d", "e", "g"]
    assert ast.literal_eval(defaults["c"]) == 3 and defaults["e"] is None


def test_parent_map_is_ast_walks(built):
    tree, facts = built
    model = semantic_model(facts)
    expected = {}
    for holder in ast.walk(tree):
        for child in ast.iter_child_nodes(holder):
            if not isinstance(child, ast.expr_context):
                expected[id(child)] = holder
    assert model.parent_of(tree) is None
    assert model._parents.keys() == expected.keys()
    assert all(model._parents[key] is holder for key, holder in expected.items())


def test_assigned_name_from_the_call_sites_context(built):
    _, facts = built
    from_sites = [assigned_name(facts, site.node, site.ctx) for site in facts.calls]
    assert from_sites == [assigned_name(facts, site.node) for site in facts.calls]
    if facts.path == "<tricky>":
        assert "a" not in from_sites and from_sites.count("n") == 1  # `a = b = DL(ds)`: two targets
