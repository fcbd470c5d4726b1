"""DSL401 (eval with autograd on) and DSL403 (unbounded DeepSpeed inference workspace)."""
from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "scripts_mem_hangs"


def rows(project, code):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


def test_eval_loops_flag_only_the_one_without_no_grad(project):
    project.write({"eval_loops.py": (FIXTURES / "eval_loops.py").read_text()})
    assert rows(project, "DSL401") == [9]


def test_lightning_module_methods_are_not_flagged(project):
    project.write({"model.py": (
        "import torch\nimport lightning as L\n\n\nclass M(L.LightningModule):\n"
        "    def on_validation_epoch_start(self):\n        self.net.eval()\n        self.net(torch.ones(1))\n"
    )})
    assert rows(project, "DSL401") == []


def test_a_function_passed_as_callback_is_not_flagged(project):
    project.write({"train.py": (
        "import torch\n\n\nclass Runner:\n    def evaluate(self):\n        self.model.eval()\n"
        "        return self.model(self.x)\n\n    def fit(self, trainer):\n        trainer.add_hook(self.evaluate)\n"
    )})
    assert rows(project, "DSL401") == []


def test_no_grad_fix_adds_the_decorator_after_existing_ones_and_is_idempotent(project):
    source = ("import torch as th\n\n\nclass Evaluator:\n    @staticmethod\n    def run(model, batches):\n"
              "        model.eval()\n        return [model(b) for b in batches]\n")
    project.write({"ev.py": source})
    project.fix(unsafe=True, select=["DSL401"])
    expected = source.replace("    @staticmethod\n", "    @staticmethod\n    @th.no_grad()\n")
    assert project.read("ev.py") == expected
    project.fix(unsafe=True, select=["DSL401"])
    assert project.read("ev.py") == expected
    assert rows(project, "DSL401") == []


def test_no_fix_is_offered_without_safe_fixes(project):
    project.write({"eval_loops.py": (FIXTURES / "eval_loops.py").read_text()})
    project.fix(unsafe=False, select=["DSL401"])
    assert project.read("eval_loops.py") == (FIXTURES / "eval_loops.py").read_text()


INFERENCE = """import argparse

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default={batch})
args = parser.parse_args()
engine = deepspeed.init_inference(model, dtype=torch.half, {extra})
"""


def test_kernel_injection_with_large_batch_and_no_max_out_tokens(project):
    project.write({"infer.py": INFERENCE.format(batch=150, extra="replace_with_kernel_inject=True")})
    assert rows(project, "DSL403") == [9]


def test_kernel_injection_in_a_literal_config_dict(project):
    project.write({"infer.py": INFERENCE.format(batch=64, extra='config={"replace_with_kernel_inject": True}')})
    assert rows(project, "DSL403") == [9]


def test_bounded_small_or_unknown_workspaces_are_not_flagged(project):
    project.write({
        "a.py": INFERENCE.format(batch=150, extra="replace_with_kernel_inject=True, max_tokens=80"),
        "b.py": INFERENCE.format(batch=4, extra="replace_with_kernel_inject=True"),
        "c.py": INFERENCE.format(batch=150, extra="replace_with_kernel_inject=args.kernel"),
        "d.py": INFERENCE.format(batch=150, extra='config="ds_inference.json"'),
        "e.py": "import diffusers\n" + INFERENCE.format(batch=150, extra="replace_with_kernel_inject=True"),
        "f.py": INFERENCE.format(batch=150, extra='config={"replace_with_kernel_inject": True, "max_out_tokens": 64}'),
    })
    assert rows(project, "DSL403") == []


DISTILL = """import torch
import torch.nn.functional as F


class Distiller:
    def __init__(self, student, teacher):
        self.student = student
        self.teacher = teacher.cuda()
        self.teacher.eval()

    def step(self, x, optimizer):
        s = self.student(x)
        t = self.teacher(x)
        loss = F.mse_loss(s, t)
        loss.backward()
        optimizer.step()
"""


def test_teacher_in_eval_run_with_grad_in_a_training_step(project):
    project.write({"distill.py": DISTILL})
    assert rows(project, "DSL402") == [13]


def test_teacher_under_no_grad_or_frozen_or_handed_on_is_not_flagged(project):
    project.write({
        "a.py": DISTILL.replace("        t = self.teacher(x)", "        with torch.no_grad():\n            t = self.teacher(x)"),
        "b.py": DISTILL.replace("        self.teacher.eval()", "        self.teacher.eval()\n        freeze(self.teacher)"),
        "c.py": DISTILL.replace("        self.teacher.eval()",
                                "        self.teacher.eval()\n        for p in self.teacher.parameters():\n"
                                "            p.requires_grad = False"),
        "d.py": DISTILL.replace("        loss.backward()\n", ""),
    })
    assert rows(project, "DSL402") == []


def test_lightning_training_step_counts_as_a_training_step(project):
    project.write({"lit.py": (
        "import torch\nimport lightning as L\n\n\nclass KD(L.LightningModule):\n"
        "    def __init__(self, teacher):\n        super().__init__()\n        self.teacher = teacher\n"
        "        self.teacher.eval()\n\n    def training_step(self, batch, i):\n"
        "        return (self.student(batch) - self.teacher(batch)).pow(2).mean()\n"
    )})
    assert rows(project, "DSL402") == [12]


def test_freeze_fix_chains_requires_grad_and_is_idempotent(project):
    project.write({"distill.py": DISTILL})
    project.fix(unsafe=True, select=["DSL402"])
    expected = DISTILL.replace("        self.teacher.eval()", "        self.teacher.eval().requires_grad_(False)")
    assert project.read("distill.py") == expected
    project.fix(unsafe=True, select=["DSL402"])
    assert project.read("distill.py") == expected


def test_report_2_shape_batch_of_repeated_prompts(project):
    project.write({"generate.py": (
        "import deepspeed\nimport torch\n\nengine = deepspeed.init_inference(model, dtype=torch.bfloat16, "
        "replace_with_kernel_inject=True)\nids = tokenizer(['Hello'] * 150, return_tensors='pt').input_ids\n"
    )})
    assert rows(project, "DSL403") == [4]


def test_evaluation_function_by_name_without_eval_call(project):
    project.write({"train.py": (
        "import torch\n\n\ndef validate(net, val_loader):\n    losses = []\n    for x, y in val_loader:\n"
        "        losses.append(torch.nn.functional.mse_loss(net(x), y))\n    return torch.stack(losses).mean()\n\n\n"
        "def test_forward(net):\n    for x in loader:\n        net(x)\n\n\n"
        "def sample(policy, prompts):\n    for p in prompts:\n        policy(p)\n"
    )})
    assert rows(project, "DSL401") == [7]


def test_module_level_inference_script(project):
    script = ("import torch\n\nmodel = torch.nn.Linear(8, 2)\nmodel.eval()\nfor x in batches:\n    print(model(x))\n")
    project.write({"infer.py": script,
                   "ok.py": script.replace("for x in batches:\n    print(model(x))",
                                           "with torch.inference_mode():\n    for x in batches:\n        print(model(x))"),
                   "trains.py": script + "model(x).sum().backward()\n"})
    assert [(f.path, f.span.start.row) for f in project.check(select=["DSL401"]).findings] == [("infer.py", 6)]
