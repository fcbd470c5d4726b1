"""Autograd turned off by the project's own helpers (facts/conditions.py: grad_off_decorator,
grad_off_context; FunctionSummary.grad_off_decorator / grad_off_context for those of another module):
a decorator whose wrapper calls the method inside `with torch.inference_mode():` (DSL401), and a
`@contextmanager` that calls `torch.set_grad_enabled(False)` before its one yield (DSL402)."""
from __future__ import annotations

import ast

from dslint.facts.bindings import semantic_model
from dslint.facts.conditions import grad_off_kind
from dslint.facts.script import build_script_facts


def rows(project, code):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


# -- DSL401: an evaluation method under a project decorator ------------------------------------------

DECORATOR = '''import functools

import torch


def no_autograd(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
BODY
    return wrapper
'''
INFERENCE = "        with torch.inference_mode():\n            return fn(*args, **kwargs)"

VALIDATION = '''import torch
import torch.nn.functional as F

IMPORT


class Validation:
    def __init__(self, dev_loader):
        self.dev_loader = dev_loader

    @no_autograd
    def on_epoch_end(self, trainer):
        model = trainer.model
        model.eval()
        loss_sum = torch.zeros(())
        for x, y in self.dev_loader:
            loss_sum += F.cross_entropy(model(x), y, reduction="sum")
        return loss_sum.item()
'''
FORWARD_ROW = 17


def test_a_method_under_an_imported_decorator_that_runs_it_in_inference_mode_is_silent(project):
    project.write({"asr/__init__.py": "", "asr/utils.py": DECORATOR.replace("BODY", INFERENCE),
                   "asr/validation.py": VALIDATION.replace("IMPORT", "from asr.utils import no_autograd")})
    assert rows(project, "DSL401") == []


def test_a_method_under_a_decorator_of_its_own_module_is_silent(project):
    for body in (INFERENCE, "        with torch.no_grad():\n            out = fn(*args, **kwargs)\n        return out",
                 "        with torch.set_grad_enabled(False):\n            return fn(*args, **kwargs)"):
        code = VALIDATION.replace("IMPORT", DECORATOR.replace("BODY", body).replace("import torch\n", ""))
        project.write({"validation.py": code})
        assert rows(project, "DSL401") == [], body


def test_a_decorator_that_calls_the_method_outside_its_grad_off_block_is_still_reported(project):
    outside = "        with torch.inference_mode():\n            pass\n        return fn(*args, **kwargs)"
    switched_on = "        with torch.inference_mode():\n            with torch.enable_grad():\n                return fn(*args)"
    for body in (outside, switched_on, "        return fn(*args, **kwargs)"):
        project.write({"asr/__init__.py": "", "asr/utils.py": DECORATOR.replace("BODY", body),
                       "asr/validation.py": VALIDATION.replace("IMPORT", "from asr.utils import no_autograd")})
        assert rows(project, "DSL401") == [FORWARD_ROW], body


# -- DSL402: a teacher forward inside a project context manager ----------------------------------------

FROZEN = '''import contextlib

import torch


@contextlib.contextmanager
def frozen():
BODY
'''
SETS_AND_RESTORES = ("    previous = torch.is_grad_enabled()\n    torch.set_grad_enabled(False)\n    try:\n        yield\n"
                     "    finally:\n        torch.set_grad_enabled(previous)")

STEP = '''import torch
import torch.nn.functional as F

IMPORT


class DistillStep:
    def __init__(self, student, teacher, optimizer):
        self.student = student
        self.teacher = teacher.eval()
        self.optimizer = optimizer

    def __call__(self, images, labels):
        with frozen():
            teacher_logits = self.teacher(images)
        student_logits = self.student(images)
        loss = F.kl_div(F.log_softmax(student_logits, -1), F.softmax(teacher_logits, -1)) + F.cross_entropy(
            student_logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()
'''
TEACHER_ROW = 15


def test_a_teacher_forward_under_an_imported_context_manager_that_turns_grad_off_is_silent(project):
    project.write({"distill/__init__.py": "", "distill/grad.py": FROZEN.replace("BODY", SETS_AND_RESTORES),
                   "distill/step.py": STEP.replace("IMPORT", "from distill.grad import frozen")})
    assert rows(project, "DSL402") == []


def test_a_teacher_forward_under_a_context_manager_of_its_own_module_is_silent(project):
    for body in (SETS_AND_RESTORES, "    with torch.no_grad():\n        yield"):
        code = STEP.replace("IMPORT", FROZEN.replace("BODY", body).replace("import torch\n", ""))
        project.write({"step.py": code})
        assert rows(project, "DSL402") == [], body


def test_a_context_manager_that_may_leave_grad_on_is_still_reported(project):
    bodies = ("    if torch.cuda.is_available():\n        torch.set_grad_enabled(False)\n    yield",  # a branch
              "    torch.set_grad_enabled(False)\n    torch.set_grad_enabled(True)\n    yield",  # turned on again
              "    torch.set_grad_enabled(False)\n    try:\n        yield\n    except RuntimeError:\n        yield",
              "    yield\n    torch.set_grad_enabled(False)")  # after its yield only
    for body in bodies:
        project.write({"distill/__init__.py": "", "distill/grad.py": FROZEN.replace("BODY", body),
                       "distill/step.py": STEP.replace("IMPORT", "from distill.grad import frozen")})
        assert rows(project, "DSL402") == [TEACHER_ROW], body


def test_an_imported_class_named_like_the_context_manager_is_still_reported(project):
    project.write({"distill/__init__.py": "",
                   "distill/grad.py": "class frozen:\n    def __enter__(self):\n        return self\n\n"
                                      "    def __exit__(self, *exc):\n        return False\n",
                   "distill/step.py": STEP.replace("IMPORT", "from distill.grad import frozen")})
    assert rows(project, "DSL402") == [TEACHER_ROW]


# -- facts/conditions.py: the two shapes ---------------------------------------------------------------

def _kind(code, name):
    facts = build_script_facts("m.py", code, ast.parse(code))
    function = next(n for n in ast.walk(facts.tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return grad_off_kind(semantic_model(facts), function)


def test_grad_off_kind_reads_the_decorator_and_the_context_manager():
    assert _kind(DECORATOR.replace("BODY", INFERENCE), "no_autograd") == "decorator"
    assert _kind(FROZEN.replace("BODY", SETS_AND_RESTORES), "frozen") == "context"
    # a wrapper that hands the function on instead of calling it; a generator that is no context manager
    handed_on = "        with torch.no_grad():\n            return run(fn, *args)"
    assert _kind(DECORATOR.replace("BODY", handed_on), "no_autograd") == ""
    plain = FROZEN.replace("@contextlib.contextmanager\n", "").replace("BODY", SETS_AND_RESTORES)
    assert _kind(plain, "frozen") == ""
