"""facts/bindings.py: scopes, which binding reaches a use, and following values through bindings."""
import ast
import gc
import sys
import textwrap
import weakref

import pytest

from dslint.engine import drop_caches as _drop_caches
from dslint.facts.bindings import SemanticModel, iter_scopes, semantic_model
from dslint.facts.script import build_script_facts


def _model(source: str):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    return SemanticModel(build_script_facts("train.py", source, tree)), tree, source


def _line(source: str, text: str) -> int:
    """1-based number of the one line of `source` that contains `text`."""
    found = [i for i, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(found) == 1, (text, found)
    return found[0]


def _name(tree, source: str, line_text: str, name: str, nth: int = 0) -> ast.Name:
    """The `nth` load of `name` on the line containing `line_text`."""
    line = _line(source, line_text)
    found = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and n.lineno == line
                    and isinstance(n.ctx, ast.Load)), key=lambda n: n.col_offset)
    return found[nth]


def _lines(bindings) -> list:
    return [(b.kind, b.line) for b in bindings]


# -- shadowing and flow ---------------------------------------------------------------------------
def test_parameter_shadows_module_global_rank():
    model, tree, src = _model("""
        import os
        import torch

        rank = int(os.environ["RANK"])

        def setup(rank, world_size):
            torch.cuda.set_device(rank)

        def log():
            print(rank)
    """)
    inside = _name(tree, src, "set_device(rank)", "rank")
    (binding,) = model.reaching("rank", inside)
    assert binding.kind == "parameter" and binding.position == 0 and binding.scope.node.name == "setup"
    assert model.value_of(inside) is inside  # a parameter: nothing to follow
    outside = _name(tree, src, "print(rank)", "rank")
    (global_rank,) = model.reaching("rank", outside)
    assert global_rank.kind == "assignment" and global_rank.line == _line(src, "rank = int")
    assert ast.unparse(model.value_of(outside)) == "os.environ['RANK']"  # through int(...)


def test_rebinding_by_wrapper_reaches_later_use():
    model, tree, src = _model("""
        from torch.nn.parallel import DistributedDataParallel as DDP

        model = Net()
        model = DDP(model, device_ids=[0])
        model.module.generate()

        def evaluate():
            net = Net()
            net = DDP(net)
            return net.module.generate()
    """)
    use = _name(tree, src, "model.module.generate()", "model")
    binding = model.binding_of(use)
    assert binding.line == _line(src, "model = DDP(")
    assert model.resolve(binding.value.func) == "torch.nn.parallel.DistributedDataParallel"
    wrapped = _name(tree, src, "model = DDP(", "model")  # the argument is still the Net()
    assert ast.unparse(model.value_of(wrapped)) == "Net()"
    in_function = _name(tree, src, "return net.module", "net")
    assert ast.unparse(model.value_of(in_function)) == "DDP(net)"


def test_rank_test_stored_in_variable_is_followed():
    model, tree, src = _model("""
        import torch.distributed as dist

        def train():
            is_main = dist.get_rank() == 0
            if is_main:
                save()
    """)
    test = _name(tree, src, "if is_main:", "is_main")
    value = model.value_of(test)
    assert isinstance(value, ast.Compare) and ast.unparse(value) == "dist.get_rank() == 0"
    assert model.resolve(value.left.func) == "torch.distributed.get_rank"


def test_branch_bindings_all_reach_after_the_if():
    model, tree, src = _model("""
        def pick(args):
            device = "cpu"
            if args.cuda:
                device = "cuda"
            use(device)
            device = "meta"
            use(device)
    """)
    uses = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "device"
                   and isinstance(n.ctx, ast.Load)), key=lambda n: n.lineno)
    after_if, after_meta = uses
    assert [ast.unparse(b.value) for b in model.reaching("device", after_if)] == ["'cpu'", "'cuda'"]
    assert model.binding_of(after_if) is None  # several reach
    assert [ast.unparse(b.value) for b in model.reaching("device", after_meta)] == ["'meta'"]
    assert [ast.unparse(v) for v in model.values_of(after_if)] == ["'cpu'", "'cuda'"]


def test_binding_in_the_other_branch_does_not_reach():
    model, tree, src = _model("""
        def main(args):
            if args.distributed:
                local_rank = int(os.environ["LOCAL_RANK"])
            else:
                print(local_rank)
    """)
    use = _name(tree, src, "print(local_rank)", "local_rank")
    assert model.reaching("local_rank", use) == []


def test_try_body_and_handler_both_reach_after_try():
    model, tree, src = _model("""
        def load(path):
            try:
                state = torch.load(path)
            except FileNotFoundError:
                state = None
            return state
    """)
    use = _name(tree, src, "return state", "state")
    assert _lines(model.reaching("state", use)) == [("assignment", 4), ("assignment", 6)]


def test_loop_carries_later_binding_back_to_its_top():
    model, tree, src = _model("""
        def train(loader):
            best = None
            for batch in loader:
                report(best)
                best = batch
            report(best)
    """)
    loads = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "best"
                    and isinstance(n.ctx, ast.Load)), key=lambda n: n.lineno)
    in_loop, after = loads
    assert _lines(model.reaching("best", in_loop)) == [("assignment", 3), ("assignment", 6)]
    assert _lines(model.reaching("best", after)) == [("assignment", 3), ("assignment", 6)]
    batch = _name(tree, src, "best = batch", "batch")
    (loop_var,) = model.reaching("batch", batch)
    assert loop_var.kind == "for" and ast.unparse(loop_var.iter) == "loader"


def test_binding_made_on_each_iteration_hides_the_later_one():
    model, tree, src = _model("""
        def train(loader):
            for batch in loader:
                out = model(batch)
                log(out)
                out = None
    """)
    use = _name(tree, src, "log(out)", "out")
    assert _lines(model.reaching("out", use)) == [("assignment", 4)]


def test_name_read_from_enclosing_function_sees_all_its_bindings():
    model, tree, src = _model("""
        def main():
            device = "cpu"
            def step():
                return device
            device = "cuda"
            return step
    """)
    use = _name(tree, src, "return device", "device")
    assert [ast.unparse(b.value) for b in model.reaching("device", use)] == ["'cpu'", "'cuda'"]


# -- scopes -----------------------------------------------------------------------------------------
def test_import_inside_function_is_scoped():
    model, tree, src = _model("""
        import torch

        def main():
            import torch.distributed as dist
            dist.init_process_group("nccl")

        def cleanup():
            dist.destroy_process_group()

        dist.barrier()
    """)
    calls = {n.func.attr: n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    inside = calls["init_process_group"]
    assert model.resolve(inside.func) == "torch.distributed.init_process_group"
    for attr in ("destroy_process_group", "barrier"):
        assert model.resolve(calls[attr].func) is None
    (binding,) = model.reaching("dist", inside.func.value)
    assert binding.kind == "import" and binding.qualname == "torch.distributed"
    assert [b.qualname for b in model.module.bindings["torch"]] == ["torch"]


def test_import_bindings_carry_canonical_qualified_names():
    model, _, _ = _model("""
        import torch.distributed as dist
        import torch.distributed
        import pytorch_lightning as pl
        from torch.nn.parallel.distributed import DistributedDataParallel as DDP
        from .utils import get_device
        from .. import config
        from os import *
    """)
    bindings = model.module.bindings
    assert bindings["dist"][0].qualname == "torch.distributed"
    assert bindings["torch"][0].qualname == "torch"
    assert bindings["pl"][0].qualname == "pytorch_lightning"
    assert bindings["DDP"][0].qualname == "torch.nn.parallel.DistributedDataParallel"
    assert (bindings["get_device"][0].kind, bindings["get_device"][0].qualname) == ("from-import", ".utils.get_device")
    assert bindings["config"][0].qualname == "..config"
    assert "*" not in bindings


def test_comprehension_scope_does_not_leak_and_first_iterable_is_outer():
    model, tree, src = _model("""
        rank = 3
        ranks = [rank * 2 for rank in range(rank)]
        print(rank)
        def collect(xs):
            return [(last := x) for x in xs], last
    """)
    inner, outer_iter = _name(tree, src, "ranks = [", "rank", 0), _name(tree, src, "ranks = [", "rank", 1)
    assert model.reaching("rank", inner)[0].kind == "comprehension"
    assert model.scope_of(inner).kind == "comprehension"
    assert model.reaching("rank", outer_iter)[0].kind == "assignment"
    assert model.scope_of(outer_iter).kind == "module"
    assert model.reaching("rank", _name(tree, src, "print(rank)", "rank"))[0].kind == "assignment"
    # A walrus in a comprehension binds in the enclosing function (PEP 572).
    last = _name(tree, src, "return [", "last")
    (walrus,) = model.reaching("last", last)
    assert walrus.kind == "walrus" and walrus.scope.kind == "function"


def test_class_scope_is_not_visible_from_methods():
    model, tree, src = _model("""
        lr = 0.1

        class Trainer:
            lr = 0.01
            scaled = lr * 2

            def step(self):
                return lr
    """)
    in_body = _name(tree, src, "scaled = lr", "lr")
    assert ast.unparse(model.value_of(in_body)) == "0.01"
    in_method = _name(tree, src, "return lr", "lr")
    assert ast.unparse(model.value_of(in_method)) == "0.1"
    assert model.scope_of(in_method).kind == "function" and model.class_of(in_method).name == "Trainer"


def test_global_declaration_binds_the_module_name():
    model, tree, src = _model("""
        best_acc = 0

        def validate(acc):
            global best_acc
            if acc > best_acc:
                best_acc = acc
            return best_acc

        def report():
            print(best_acc)
    """)
    kinds = [b.kind for b in model.module.bindings["best_acc"]]
    assert kinds == ["assignment", "global-assignment"]
    report = _name(tree, src, "print(best_acc)", "best_acc")
    assert _lines(model.reaching("best_acc", report)) == [("assignment", 2), ("global-assignment", 7)]
    test = _name(tree, src, "if acc > best_acc", "best_acc")
    assert _lines(model.reaching("best_acc", test)) == [("assignment", 2), ("global-assignment", 7)]
    assert model.scope_of(test).globals == {"best_acc"}


def test_global_assignment_is_known_before_the_declaring_function_is_asked():
    model, tree, src = _model("""
        args = None

        def main():
            print(args.lr)

        def parse():
            global args
            args = parser.parse_args()
    """)
    use = _name(tree, src, "print(args.lr)", "args")
    assert [b.kind for b in model.reaching("args", use)] == ["assignment", "global-assignment"]


def test_nonlocal_declaration_binds_the_enclosing_name():
    model, tree, src = _model("""
        def make_counter():
            count = 0
            def bump():
                nonlocal count
                count += 1
                return count
            return bump, count
    """)
    outer = _name(tree, src, "return bump, count", "count")
    assert [b.kind for b in model.reaching("count", outer)] == ["assignment", "augmented"]
    inner = _name(tree, src, "return count", "count")
    assert [b.kind for b in model.reaching("count", inner)] == ["augmented"]


def test_decorators_and_defaults_belong_to_the_enclosing_scope():
    model, tree, src = _model("""
        device = "cuda"

        class Runner(Base):
            @torch.no_grad()
            def run(self, x, device=device, fn=lambda y: y + 1):
                return x.to(device)
    """)
    run = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert model.scope_of(run.decorator_list[0]).kind == "class"
    default = run.args.defaults[0]
    assert model.scope_of(default).kind == "class"
    assert ast.unparse(model.value_of(default)) == "'cuda'"
    assert model.scope_of(run.args.defaults[1].body).kind == "lambda"
    assert model.scope_of(run.args.args[1]).kind == "function"
    assert model.scope_of(run).kind == "class"
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
    assert model.scope_of(cls.bases[0]).kind == "module"
    use = _name(tree, src, "return x.to(device)", "device")
    (param,) = model.reaching("device", use)
    assert param.kind == "parameter" and ast.unparse(param.default) == "device"
    assert model.function_of(use) is run and model.function_of(default) is None


def test_unpack_index():
    model, tree, src = _model("""
        import deepspeed

        engine, optimizer, _, scheduler = deepspeed.initialize(model=net, config="ds.json")
        (x, (y, z)) = 1, (2, "cuda:1")
        first, *rest, last = [1, 2, 3, 4]
        for step, (inputs, labels) in enumerate(loader):
            pass
        print(z, last, rest, engine)
    """)
    bindings = model.module.bindings
    assert [bindings[n][0].index for n in ("engine", "optimizer", "_", "scheduler")] == [(0,), (1,), (2,), (3,)]
    assert bindings["engine"][0].value is bindings["scheduler"][0].value
    assert (bindings["z"][0].index, bindings["labels"][0].index) == ((1, 1), (1, 1))
    assert (bindings["last"][0].index, bindings["rest"][0].value) == ((-1,), None)
    assert ast.unparse(model.value_of(_name(tree, src, "print(z", "z"))) == "'cuda:1'"
    assert ast.unparse(model.value_of(_name(tree, src, "print(z", "last"))) == "4"
    engine = _name(tree, src, "print(z", "engine")
    assert model.value_of(engine) is engine  # an element of a call's result: not followed
    assert [b.name for b in model.names_bound_to("deepspeed.initialize", 0)] == ["engine"]
    assert [b.name for b in model.names_bound_to("deepspeed.initialize", 3)] == ["scheduler"]
    assert [b.name for b in model.names_bound_to("deepspeed.initialize")] == ["engine", "optimizer", "_", "scheduler"]


# -- values -------------------------------------------------------------------------------------
def test_cycle_terminates():
    model, tree, src = _model("""
        a = b
        b = a

        def f():
            return a

        def g():
            global a, b
            a = b
            b = a
    """)
    use = _name(tree, src, "return a", "a")
    assert isinstance(model.value_of(use, hops=50), ast.Name)
    assert all(isinstance(v, ast.Name) for v in model.values_of(use, hops=50))


def test_self_attribute_assigned_in_init():
    model, tree, src = _model("""
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Trainer:
            def __init__(self, cfg, local_rank):
                self.device = torch.device("cuda", local_rank)
                self.model = build(cfg)
                self.model = DDP(self.model, device_ids=[local_rank])

            def fit(self, batch):
                out = self.model(batch.to(self.device))
                return self.model.module.generate(out)

            def reset(self):
                self.device = "cpu"
    """)
    generate = _line(src, "self.model.module.generate")
    use = next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "model" and n.lineno == generate)
    assert ast.unparse(model.value_of(use)) == "DDP(self.model, device_ids=[local_rank])"
    device = next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "device"
                  and isinstance(n.ctx, ast.Load) and n.lineno == _line(src, "out = self.model"))
    assert ast.unparse(model.value_of(device)) == "torch.device('cuda', local_rank)"  # __init__ preferred
    assert sorted(ast.unparse(v) for v in model.values_of(device)) == ["'cpu'", "torch.device('cuda', local_rank)"]
    # Within __init__, the argument of DDP(...) is the model assigned just before.
    inner = next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "model"
                 and isinstance(n.ctx, ast.Load) and n.lineno == _line(src, "self.model = DDP"))
    assert ast.unparse(model.value_of(inner)) == "build(cfg)"
    (wrapped,) = model.names_bound_to("torch.nn.parallel.DistributedDataParallel")
    assert (wrapped.name, wrapped.kind) == ("self.model", "assignment")
    assert [(u.lineno, u.attr) for u in model.uses_of(wrapped)] == [
        (_line(src, "self.model = DDP"), "model"), (_line(src, "out = self.model"), "model"), (generate, "model")]
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
    assert [b.line for b in model.attribute_bindings(cls, "device")] == [_line(src, "self.device = torch"),
                                                                         _line(src, 'self.device = "cpu"')]


def test_uses_of_follows_the_binding_not_the_name():
    model, tree, src = _model("""
        model = Net()
        model = DDP(model)
        model.module.generate()

        def evaluate(model):
            return model(x)

        def export():
            save(model)
    """)
    (ddp,) = [b for b in model.module.bindings["model"] if "DDP" in ast.unparse(b.value)]
    uses = model.uses_of(ddp)
    assert [u.lineno for u in uses] == [_line(src, "model.module.generate()"), _line(src, "save(model)")]
    # A function may run after every module-level binding, so export() may see either.
    (net,) = [b for b in model.module.bindings["model"] if "Net" in ast.unparse(b.value)]
    assert [u.lineno for u in model.uses_of(net)] == [_line(src, "model = DDP(model)"), _line(src, "save(model)")]


def test_resolve_agrees_with_import_table_on_a_training_script():
    source = textwrap.dedent("""
        import os
        import argparse
        import torch
        import torch.nn as nn
        import torch.distributed as dist
        import torch.multiprocessing as mp
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data import DataLoader
        from torch.utils.data.distributed import DistributedSampler
        import pytorch_lightning as pl
        import deepspeed
        from accelerate import Accelerator

        def worker(rank, world_size, args):
            os.environ["MASTER_ADDR"] = "localhost"
            dist.init_process_group("nccl", rank=rank, world_size=world_size)
            torch.cuda.set_device(rank)
            model = nn.Linear(10, 10).to(rank)
            model = DDP(model, device_ids=[rank])
            sampler = DistributedSampler(dataset)
            loader = DataLoader(dataset, sampler=sampler, batch_size=args.bs)
            for epoch in range(args.epochs):
                sampler.set_epoch(epoch)
                for x, y in loader:
                    loss = nn.functional.mse_loss(model(x.to(rank)), y.to(rank))
                    loss.backward()
            if dist.get_rank() == 0:
                torch.save(model.module.state_dict(), "m.pt")
            trainer = pl.Trainer(devices=2, strategy="ddp")
            engine, *_ = deepspeed.initialize(model=model)
            accelerator = Accelerator()
            dist.destroy_process_group()

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            args = parser.parse_args()
            mp.spawn(worker, args=(torch.cuda.device_count(), args), nprocs=torch.cuda.device_count())
    """)
    facts = build_script_facts("train.py", source, ast.parse(source))
    model = semantic_model(facts)
    compared = 0
    for node, _ in facts.of_type(ast.Attribute) + facts.of_type(ast.Call):
        expr = node.func if isinstance(node, ast.Call) else node
        assert model.resolve(expr) == facts.imports.resolve(expr), ast.unparse(expr)
        compared += facts.imports.resolve(expr) is not None
    assert compared > 30


def test_try_import_fallback_still_resolves_but_a_real_shadow_does_not():
    model, tree, src = _model("""
        try:
            import deepspeed
        except ImportError:
            deepspeed = None

        def main(dist):
            deepspeed.initialize(model=net)
            dist.barrier()
    """)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert [model.resolve(c.func) for c in calls] == ["deepspeed.initialize", None]


def test_calls_in_skips_nested_defs_and_lambdas():
    model, tree, src = _model("""
        def train(loader):
            setup()
            @register(name())
            def hook(x):
                inner()
            fn = lambda b: lazy(b)
            return [step(b) for b in loader]
    """)
    train = tree.body[0]
    assert [ast.unparse(c.func) for c in model.calls_in(train)] == ["setup", "register", "name", "step"]
    assert [ast.unparse(c.func) for c in model.calls_in(train.body[1])] == ["inner"]


# -- robustness and laziness ---------------------------------------------------------------------
def test_deep_expression_no_recursion_error():
    source = "a = 1\nb = " + " + ".join(["a"] * 5000) + "\nprint(b)\n"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(30000)  # only `ast.parse` needs it; the model must not
    try:
        tree = ast.parse(source)
    finally:
        sys.setrecursionlimit(limit)
    model = SemanticModel(build_script_facts("deep.py", source, tree))
    use = tree.body[2].value.args[0]
    assert isinstance(model.value_of(use), ast.BinOp)
    first_a = tree.body[1].value
    while isinstance(first_a, ast.BinOp):
        first_a = first_a.left
    assert len(model.uses_of(model.binding_of(first_a))) == 5000


def test_two_hundred_nested_ifs_no_recursion_error():
    # The parser refuses 100 indentation levels, so the tree is built directly.
    depth = 200

    def at(line, start, end):
        return dict(lineno=line, col_offset=start, end_lineno=line, end_col_offset=end)

    body: list = [ast.Assign(targets=[ast.Name("x", ast.Store(), **at(depth + 1, 0, 1))],
                             value=ast.Constant(1, **at(depth + 1, 4, 5)), **at(depth + 1, 0, 5)),
                  ast.Expr(ast.Name("x", ast.Load(), **at(depth + 2, 0, 1)), **at(depth + 2, 0, 1))]
    for i in range(depth, 0, -1):
        body = [ast.If(test=ast.Name("c", ast.Load(), **at(i, 3, 4)), body=body, orelse=[],
                       lineno=i, col_offset=0, end_lineno=depth + 2, end_col_offset=1)]
    tree = ast.Module(body=body, type_ignores=[])
    model = SemanticModel(tree)
    use = next(n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "x" and isinstance(n.ctx, ast.Load))
    (binding,) = model.reaching("x", use)
    assert len(binding._chain) == depth
    assert ast.unparse(model.value_of(use)) == "1"


def test_scopes_are_built_only_when_asked():
    model, tree, src = _model("""
        import torch

        def train():
            torch.cuda.set_device(0)

        def evaluate():
            return torch.zeros(1)
    """)
    train, evaluate = model.own_scope(tree.body[1]), model.own_scope(tree.body[2])
    assert not train._built and not evaluate._built  # locating them built only the module
    call = tree.body[1].body[0].value
    assert model.resolve(call.func) == "torch.cuda.set_device"
    assert train._built and not evaluate._built
    assert [s.kind for s in iter_scopes(model)] == ["module", "function", "function"]
    assert evaluate._built


def test_semantic_model_is_cached_on_the_facts_and_dropped_by_the_engine():
    source = "import torch\n"
    facts = build_script_facts("train.py", source, ast.parse(source))
    model = semantic_model(facts)
    assert semantic_model(facts) is model
    _drop_caches(facts)
    assert not hasattr(facts, "_semantic")
    assert semantic_model(facts) is not model


def test_dropping_the_model_frees_the_tree_without_the_cyclic_gc():
    source = textwrap.dedent("""
        import torch
        class T:
            def __init__(self):
                self.m = f()
            def g(self, x):
                return [self.m(y) for y in x]
    """)
    tree = ast.parse(source)
    alive = weakref.ref(tree)
    facts = build_script_facts("train.py", source, tree)
    model = semantic_model(facts)
    list(iter_scopes(model))
    model.names_bound_to("f")
    gc.disable()
    try:
        del model, tree
        _drop_caches(facts)
        del facts
        assert alive() is None
    finally:
        gc.enable()


def test_model_works_on_a_bare_tree():
    tree = ast.parse("import torch.distributed as dist\ndist.barrier()\n")
    model = SemanticModel(tree)
    assert model.resolve(tree.body[1].value.func) == "torch.distributed.barrier"


MATCH = "match cmd:\n    case {'rank': r, **rest} if r > 0:\n        print(r, rest)\n"


@pytest.mark.parametrize("source", ["", "x = 1\n", MATCH])
def test_small_and_unusual_modules(source):
    tree = ast.parse(source)
    model = SemanticModel(tree)
    list(iter_scopes(model))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            model.reaching(node.id, node)
    if "match" in source:
        use = next(n for n in ast.walk(tree)
                   if isinstance(n, ast.Name) and n.id == "rest" and isinstance(n.ctx, ast.Load))
        assert len(model.reaching("rest", use)) == 1
