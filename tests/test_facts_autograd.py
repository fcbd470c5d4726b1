"""facts/conditions.py, autograd state: `grad_disabled_at` (the place) and `autograd_off` (the place
or every caller of its function)."""
from __future__ import annotations

import ast
import textwrap

from dslint.facts.conditions import autograd_off, grad_disabled_at
from dslint.facts.script import build_script_facts


def _facts(source: str):
    source = textwrap.dedent(source).lstrip("\n")
    tree = ast.parse(source)
    return build_script_facts("train.py", source, tree), source


def _call(facts, source: str, line_text: str) -> ast.Call:
    """The outermost call on the one line containing `line_text`."""
    (line,) = [i for i, text in enumerate(source.splitlines(), 1) if line_text in text]
    calls = [n for n, _ in facts.of_type(ast.Call) if n.lineno == line]
    return min(calls, key=lambda n: n.col_offset)


def _off_here(facts, source: str, line_text: str) -> bool:
    return grad_disabled_at(facts, facts.context_of(_call(facts, source, line_text)))


# -- grad_disabled_at ------------------------------------------------------------------------------

FORMS = """
import torch
from torch import inference_mode


@torch.no_grad()
def decorated(model, x):
    return model(x)  # decorated


@inference_mode()
def decorated_by_import(model, x):
    return model(x)  # imported decorator


def contexts(model, x, training):
    with torch.no_grad():
        model(x)  # no_grad
    with torch.inference_mode():
        model(x)  # inference_mode
    with torch.set_grad_enabled(False):
        model(x)  # set_grad_enabled(False)
    with torch.set_grad_enabled(training):
        model(x)  # set_grad_enabled(training)
    with torch.set_grad_enabled(True):
        model(x)  # set_grad_enabled(True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        model(x)  # autocast
    model(x)  # nothing
"""


def test_no_grad_and_inference_mode_contexts_and_decorators():
    facts, src = _facts(FORMS)
    assert _off_here(facts, src, "# decorated")
    assert _off_here(facts, src, "# imported decorator")
    assert _off_here(facts, src, "# no_grad")
    assert _off_here(facts, src, "# inference_mode")


def test_set_grad_enabled_false_is_off_and_any_other_argument_is_not():
    facts, src = _facts(FORMS)
    assert _off_here(facts, src, "# set_grad_enabled(False)")
    assert not _off_here(facts, src, "# set_grad_enabled(training)")
    assert not _off_here(facts, src, "# set_grad_enabled(True)")
    assert not _off_here(facts, src, "# autocast")
    assert not _off_here(facts, src, "# nothing")


def test_a_context_manager_bound_to_a_name_is_read_through_the_binding():
    facts, src = _facts("""
        import contextlib
        import torch

        def evaluate(model, loader, use_amp):
            no_grad = torch.no_grad()
            frozen = torch.set_grad_enabled(False)
            amp = torch.autocast("cuda") if use_amp else contextlib.nullcontext()
            for batch in loader:
                with no_grad:
                    model(batch)  # bound no_grad
                with frozen, amp:
                    model(batch)  # bound set_grad_enabled
                with amp:
                    model(batch)  # bound autocast
    """)
    assert _off_here(facts, src, "# bound no_grad")
    assert _off_here(facts, src, "# bound set_grad_enabled")
    assert not _off_here(facts, src, "# bound autocast")


def test_a_no_grad_decorator_written_in_the_module_turns_autograd_off():
    # YOLOv5's utils/torch_utils.py and val.py
    facts, src = _facts("""
        import torch

        def smart_inference_mode(torch_1_9=True):
            def decorate(fn):
                return (torch.inference_mode if torch_1_9 else torch.no_grad)()(fn)
            return decorate

        def timed(fn):
            return fn

        @smart_inference_mode()
        def run(model, dataloader):
            for im, targets in dataloader:
                preds = model(im)  # yolo val

        @timed
        def train(model, dataloader):
            for im, targets in dataloader:
                model(im).sum().backward()  # timed
    """)
    assert _off_here(facts, src, "# yolo val")
    assert not _off_here(facts, src, "# timed")


def test_module_level_code_under_no_grad():
    facts, src = _facts("""
        import torch
        model = torch.hub.load("facebookresearch/dino:main", "dino_vits16").eval()
        with torch.inference_mode():
            features = model(torch.randn(1, 3, 224, 224))
        logits = model(torch.randn(1, 3, 224, 224))
    """)
    assert _off_here(facts, src, "features = model(")
    assert not _off_here(facts, src, "logits = model(")


# -- autograd_off: the place, or every caller -------------------------------------------------------

HELPERS = """
import torch


def forward_batch(model, batch):
    return model(batch["input_ids"])  # helper


def loss_of(model, batch):
    return model(batch["input_ids"]).mean()  # shared helper


def never_called(model, batch):
    return model(batch)  # never called


@torch.no_grad()
def validate(model, loader):
    for batch in loader:
        forward_batch(model, batch)
        loss_of(model, batch)


def train(model, loader, optimizer):
    for batch in loader:
        loss_of(model, batch).backward()
        optimizer.step()
"""


def test_a_helper_whose_every_call_is_under_no_grad_is_off():
    facts, src = _facts(HELPERS)
    assert autograd_off(facts, _call(facts, src, "# helper"))


def test_a_helper_also_called_from_training_is_on():
    facts, src = _facts(HELPERS)
    assert not autograd_off(facts, _call(facts, src, "# shared helper"))


def test_a_function_that_no_call_of_the_module_reaches_is_on():
    facts, src = _facts(HELPERS)
    assert not autograd_off(facts, _call(facts, src, "# never called"))


def test_methods_called_through_self_and_init_called_through_the_class():
    facts, src = _facts("""
        import torch

        class Evaluator:
            def __init__(self, model, batch):
                self.reference = model(batch)  # init

            def score(self, batch):
                return self.model(batch)  # method

            @torch.no_grad()
            def run(self, loader):
                return [self.score(batch) for batch in loader]

        def main(model, batch):
            with torch.no_grad():
                evaluator = Evaluator(model, batch)
            return evaluator
    """)
    assert autograd_off(facts, _call(facts, src, "# method"))
    assert autograd_off(facts, _call(facts, src, "# init"))


def test_helpers_are_followed_four_levels_up_and_no_further():
    facts, src = _facts("""
        import torch

        def level5(model, x):
            return model(x)  # five levels down

        def level4(model, x):
            return level5(model, x) + model(x)  # four levels down

        def level3(model, x):
            return level4(model, x)

        def level2(model, x):
            return level3(model, x)

        def level1(model, x):
            return level2(model, x)

        def evaluate(model, x):
            with torch.no_grad():
                return level1(model, x)
    """)
    four = [n for n, _ in facts.of_type(ast.Call) if ast.unparse(n) == "model(x)"
            and n.lineno == src.splitlines().index("    return level5(model, x) + model(x)  # four levels down") + 1]
    assert autograd_off(facts, four[0])
    assert not autograd_off(facts, _call(facts, src, "# five levels down"))


def test_a_node_the_facts_do_not_index_is_off():
    facts, src = _facts("""
        import torch
        model = torch.nn.Linear(2, 2)
    """)
    assert autograd_off(facts, ast.parse("model(x)").body[0].value)


# -- a rule that reads it ---------------------------------------------------------------------------

def test_ddp_module_call_under_set_grad_enabled_false_is_no_bypass(project):
    # DSL304 reads grad_disabled_at: a target computed with autograd off needs no DDP forward.
    train = textwrap.dedent("""
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        class Runner:
            def __init__(self, net, local_rank):
                self.model = DDP(net, device_ids=[local_rank])

            def train_step(self, x, x_aug):
                with torch.set_grad_enabled(False):
                    target = self.model.module(x_aug)
                loss = (self.model(x) - target).pow(2).mean()
                loss.backward()
    """).lstrip("\n")
    project.write({"train.py": train})
    assert project.codes(select=["DSL304"]) == []
    project.write({"train.py": train.replace("with torch.set_grad_enabled(False):", "with torch.set_grad_enabled(True):")})
    assert project.codes(select=["DSL304"]) == ["DSL304"]
