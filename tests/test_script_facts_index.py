"""ScriptFacts' node index and `context_of`, which is built lazily from that index."""
import ast
import textwrap

from dslint.facts.script import _NOT_INDEXED, build_script_facts

SCRIPT = textwrap.dedent("""
    import torch
    import torch.distributed as dist

    class Trainer(Base, metaclass=Meta):
        lr = 0.1

        @decorator(torch.device("cuda"))
        def step(self, batch, scale=torch.ones(2)):
            with torch.no_grad():
                for x in batch[1:]:
                    if dist.get_rank() == 0:
                        y = x.cuda() * 2
                    else:
                        y = lambda z: z.to("cpu")
            while self.lr > 0:
                self.lr -= 1

    model = torch.nn.Linear(2, 2).cuda()
""")


def _facts():
    return build_script_facts("train.py", SCRIPT, ast.parse(SCRIPT))


def test_every_indexed_node_is_visited_once():
    facts = _facts()
    # `withitem` is not recorded: the walk goes straight to each item's context expression.
    skipped = (ast.Module, ast.withitem) + _NOT_INDEXED
    expected = [n for n in ast.walk(facts.tree) if not isinstance(n, skipped)]
    indexed = [n for entries in facts.nodes.values() for n, _ in entries]
    assert len(indexed) == len(expected)
    assert {id(n) for n in indexed} == {id(n) for n in expected}


def test_context_of_gives_each_indexed_nodes_own_context():
    facts = _facts()
    for entries in facts.nodes.values():
        for node, ctx in entries:
            assert facts.context_of(node) is ctx


def test_context_of_records_enclosing_function_loops_guards_and_withs():
    facts = _facts()
    cuda = next(c for c in facts.method_calls("cuda") if c.receiver == "x")
    where = facts.context_of(cuda.node)
    assert where.function is facts.functions["Trainer.step"]
    assert where.class_ is facts.classes["Trainer"]
    assert [type(n) for n in where.loops] == [ast.For]
    assert [(type(n), body) for n, body in where.guards] == [(ast.If, True)]
    assert [type(n) for n in where.withs] == [ast.With]
    assert isinstance(where.parent, ast.BinOp)
    to = facts.method_calls("to")[0]
    assert isinstance(facts.context_of(to.node).function, ast.Lambda)
    assert facts.context_of(facts.of_type(ast.Assign)[-1][0]).at_import_time


def test_context_of_is_none_for_unindexed_and_foreign_nodes():
    facts = _facts()
    name = next(n for n in ast.walk(facts.tree) if isinstance(n, ast.Name))
    assert facts.context_of(name) is None
    assert facts.context_of(ast.parse("x.y").body[0]) is None
    empty = build_script_facts("empty.py", "", ast.parse(""))
    assert empty.context_of(name) is None
