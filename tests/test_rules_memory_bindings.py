"""DSL401, DSL402, DSL403 and DSL203 read models, autograd state and values through the facts layer."""
from __future__ import annotations


def rows(project, code):
    return [(f.path, f.span.start.row) for f in project.check(select=[code]).findings if f.code == code]


# -- DSL402: which model is the frozen one -----------------------------------------------------------

KD_SCRIPT = """import torch
import torch.nn.functional as F
from transformers import AutoModelForSequenceClassification

teacher = AutoModelForSequenceClassification.from_pretrained("bert-large-uncased").cuda()
teacher.eval()
student = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").cuda()
optimizer = torch.optim.AdamW(student.parameters(), lr=5e-5)


def train_step(batch):
    student_logits = student(**batch).logits
    teacher_logits = teacher(**batch).logits
    loss = F.kl_div(student_logits.log_softmax(-1), teacher_logits.softmax(-1), reduction="batchmean")
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
"""


def test_module_level_teacher_in_eval_mode_run_in_a_training_step(project):
    project.write({"kd.py": KD_SCRIPT})
    findings = project.check(select=["DSL402"]).findings
    assert [(f.path, f.span.start.row) for f in findings] == [("kd.py", 13)]
    assert findings[0].message.startswith("teacher is only in eval mode (line 6), yet train_step() records its graph")


def test_teacher_rebound_by_to_and_eval_chains_is_the_same_model(project):
    project.write({"kd.py": KD_SCRIPT.replace(
        '.from_pretrained("bert-large-uncased").cuda()\nteacher.eval()',
        '.from_pretrained("bert-large-uncased")\nteacher = teacher.to("cuda").eval()')})
    assert rows(project, "DSL402") == [("kd.py", 13)]


def test_teacher_given_to_the_optimizer_or_put_in_train_mode_is_not_frozen(project):
    project.write({
        "opt.py": KD_SCRIPT.replace("torch.optim.AdamW(student.parameters(), lr=5e-5)",
                                    "torch.optim.AdamW([*student.parameters(), *teacher.parameters()], lr=5e-5)"),
        "mode.py": KD_SCRIPT.replace("    loss.backward()\n", "    loss.backward()\n    teacher.train()\n"),
    })
    assert rows(project, "DSL402") == []


def test_a_parameter_shadowing_the_module_level_teacher_is_not_that_model(project):
    project.write({"kd.py": KD_SCRIPT.replace("def train_step(batch):", "def train_step(batch, teacher):")})
    assert rows(project, "DSL402") == []


LIT_KD = """import torch
import torch.nn.functional as F
import lightning as L


class Distill(L.LightningModule):
    def __init__(self, student, teacher):
        super().__init__()
        self.student = student
        self.teacher = teacher.eval()

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.student(x)
        soft = self.teacher(x).softmax(-1)
        return F.cross_entropy(logits, y) + F.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")

    def configure_optimizers(self):
        return torch.optim.AdamW(self.student.parameters(), lr=1e-4)
"""


def test_self_teacher_set_in_init_and_run_in_training_step(project):
    project.write({"distill.py": LIT_KD})
    assert rows(project, "DSL402") == [("distill.py", 15)]


def test_self_teacher_fix_freezes_it_where_it_is_put_in_eval_mode(project):
    project.write({"distill.py": LIT_KD})
    project.fix(unsafe=True, select=["DSL402"])
    expected = LIT_KD.replace("self.teacher = teacher.eval()", "self.teacher = teacher.eval().requires_grad_(False)")
    assert project.read("distill.py") == expected
    assert rows(project, "DSL402") == []


def test_self_teacher_trained_through_self_parameters_is_not_frozen(project):
    project.write({"distill.py": LIT_KD.replace("self.student.parameters()", "self.parameters()")})
    assert rows(project, "DSL402") == []


def test_teacher_passed_in_by_a_caller_that_trains_it_is_not_frozen(project):
    project.write({"train.py": """import torch
import torch.nn.functional as F


class Distiller:
    def __init__(self, student, teacher):
        self.student = student
        self.teacher = teacher
        self.teacher.eval()

    def step(self, x, optimizer):
        loss = F.mse_loss(self.student(x), self.teacher(x))
        loss.backward()
        optimizer.step()


def main(student, teacher, loader):
    optimizer = torch.optim.SGD(list(student.parameters()) + list(teacher.parameters()), lr=0.1)
    distiller = Distiller(student, teacher)
    for x in loader:
        distiller.step(x, optimizer)
"""})
    assert rows(project, "DSL402") == []


def test_model_put_in_eval_mode_after_its_training_forward_is_not_frozen(project):
    project.write({"train.py": """import torch.nn.functional as F


def train_epoch(model, loader, optimizer):
    for x, y in loader:
        F.mse_loss(model(x), y).backward()
        optimizer.step()
    model.eval()
"""})
    assert rows(project, "DSL402") == []


# -- DSL401: autograd state through grad_disabled_at and the callers ---------------------------------

def test_eval_helpers_under_no_grad_decorators_contexts_or_callers_are_not_flagged(project):
    project.write({"evaluate.py": """import torch
import torch.nn.functional as F


@torch.inference_mode()
def evaluate(model, val_loader):
    model.eval()
    return sum(F.cross_entropy(model(x), y) for x, y in val_loader)


def _forward_all(model, loader):
    model.eval()
    return [model(x) for x in loader]


def predict(model, loader):
    return _forward_all(model, loader)


def validate(model, val_loader):
    with torch.no_grad():
        return predict(model, val_loader)


def score(model, loader):
    grad_off = torch.set_grad_enabled(False)
    model.eval()
    with grad_off:
        return [model(x) for x in loader]
"""})
    assert rows(project, "DSL401") == []


def test_a_helper_with_one_caller_outside_no_grad_is_flagged(project):
    project.write({"evaluate.py": """import torch


def _forward_all(model, loader):
    model.eval()
    return [model(x) for x in loader]


def validate(model, val_loader):
    with torch.no_grad():
        return _forward_all(model, val_loader)


def report(model, test_loader):
    return _forward_all(model, test_loader)
"""})
    assert rows(project, "DSL401") == [("evaluate.py", 6)]


def test_methods_called_only_under_no_grad_by_their_class_are_not_flagged(project):
    project.write({"runner.py": """import torch


class Runner:
    def __init__(self, model, val_loader):
        self.model = model
        self.val_loader = val_loader

    def _validate(self):
        self.model.eval()
        return [self.model(x) for x in self.val_loader]

    def fit(self):
        with torch.no_grad():
            metrics = self._validate()
        self.model.train()
        return metrics
"""})
    assert rows(project, "DSL401") == []


def test_ddp_module_and_self_model_forwards_are_the_model_put_in_eval_mode(project):
    project.write({
        "ddp_eval.py": """import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def evaluate(model, val_loader):
    model = DDP(model)
    model.eval()
    return [model.module(x) for x in val_loader]
""",
        "runner.py": """import torch


class Evaluator:
    def __init__(self, model):
        self.model = model.cuda()

    def run(self, val_loader):
        self.model.eval()
        outputs = []
        for x in val_loader:
            outputs.append(self.model(x.cuda()))
        return outputs
""",
    })
    assert rows(project, "DSL401") == [("ddp_eval.py", 8), ("runner.py", 12)]


def test_a_forward_of_another_object_with_the_model_in_eval_mode_is_not_flagged(project):
    project.write({"ema.py": """import torch


def evaluate(model, ema_model, val_loader):
    model.eval()
    return [ema_model(x) for x in val_loader]
"""})
    assert rows(project, "DSL401") == []


# -- DSL403: values through bindings -----------------------------------------------------------------

INFERENCE = """import deepspeed
import torch

BATCH = 64
config = {config}
engine = deepspeed.init_inference(model, {call})
ids = torch.ones(BATCH, 35, dtype=torch.long)
loader = torch.utils.data.DataLoader(prompts, batch_size=BATCH)
"""


def test_kernel_injection_in_a_config_dict_bound_to_a_name(project):
    project.write({
        "a.py": INFERENCE.format(config="dict(dtype=torch.half, replace_with_kernel_inject=True)", call="config=config"),
        "b.py": INFERENCE.format(config='{"replace_with_kernel_inject": True}', call="config"),
        "c.py": INFERENCE.format(config="True", call="replace_with_kernel_inject=config"),
    })
    assert rows(project, "DSL403") == [("a.py", 6), ("b.py", 6), ("c.py", 6)]


def test_workspace_settings_that_cannot_be_seen_are_unknown(project):
    project.write({
        "kwargs.py": INFERENCE.format(config="dict(replace_with_kernel_inject=True)", call="**config"),
        "spread.py": INFERENCE.format(config="{**base, 'replace_with_kernel_inject': True}", call="config=config"),
        "changed.py": INFERENCE.format(config="dict(replace_with_kernel_inject=True)", call="config=config")
        + "config['max_out_tokens'] = 64\n",
        "bounded.py": INFERENCE.format(config="dict(replace_with_kernel_inject=True, max_out_tokens=96)",
                                       call="config=config"),
        "small.py": INFERENCE.format(config="dict(replace_with_kernel_inject=True)", call="config=config")
        .replace("BATCH = 64", "BATCH = 8"),
    })
    assert rows(project, "DSL403") == []


# -- DSL203: strategies through bindings -------------------------------------------------------------

def test_offload_strategy_string_bound_to_a_name_is_reported_at_the_trainer_and_fixed_at_the_string(project):
    source = ('import lightning as L\n\nstrategy = "deepspeed_stage_2_offload"\n'
              'trainer = L.Trainer(accelerator="gpu", devices=2, strategy=strategy)\n')
    project.write({"train.py": source})
    assert rows(project, "DSL203") == [("train.py", 4)]
    project.fix(select=["DSL203"])
    assert project.read("train.py") == (
        'import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n\n'
        'strategy = DeepSpeedStrategy(stage=2, offload_optimizer=True, pin_memory=True)\n'
        'trainer = L.Trainer(accelerator="gpu", devices=2, strategy=strategy)\n')
    assert rows(project, "DSL203") == []


def test_strategy_object_built_once_and_passed_to_the_trainer(project):
    source = ("import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n\n"
              "OFFLOAD = True\nstrategy = DeepSpeedStrategy(stage=3, offload_optimizer=OFFLOAD, offload_parameters=OFFLOAD)\n"
              "trainer = L.Trainer(devices=4, strategy=strategy)\n")
    project.write({"train.py": source})
    assert rows(project, "DSL203") == [("train.py", 5)]
    project.fix(select=["DSL203"])
    assert project.read("train.py") == source.replace("offload_parameters=OFFLOAD)",
                                                      "offload_parameters=OFFLOAD, pin_memory=True)")


def test_strategies_whose_pinning_cannot_be_seen_are_not_flagged(project):
    project.write({
        "param.py": ('import lightning as L\n\nstrategy = "deepspeed_stage_2_offload"\n\n\n'
                     'def make_trainer(strategy):\n    return L.Trainer(devices=2, strategy=strategy)\n'),
        "branch.py": ('import sys\nimport lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n\n'
                      'strategy = "deepspeed_stage_2_offload"\nif "--pin" in sys.argv:\n'
                      '    strategy = DeepSpeedStrategy(stage=2, offload_optimizer=True, pin_memory=True)\n'
                      'trainer = L.Trainer(devices=2, strategy=strategy)\n'),
        # (a `**` dict known by value is read, tests/test_keyword_splats.py; this one changes by a file's keys)
        "kwargs.py": ('import json\nimport lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n\n'
                      'ds = dict(stage=2, offload_optimizer=True)\nds.update(json.load(open("extra.json")))\n'
                      'trainer = L.Trainer(devices=2, strategy=DeepSpeedStrategy(**ds))\n'),
    })
    assert rows(project, "DSL203") == []


def test_linear_probing_keeps_the_trained_model_in_eval_mode_for_batchnorm(project):
    """moco's main_lincls.py: train() calls model.eval() (frozen BN statistics) and trains its fc:
    the only model the step runs is the one its backward trains."""
    project.write({"lincls.py": """import torch


def train(loader, model, criterion, optimizer):
    model.eval()
    for images, target in loader:
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""})
    assert "DSL402" not in project.codes()


ENGINE_HELPER = ("import deepspeed\n\n\ndef build_engine(model, tp):\n"
                 "    return deepspeed.init_inference(model, tensor_parallel={'tp_size': tp}, replace_with_kernel_inject=True)\n")
EVAL = ("import argparse\n\nimport torch\n\nfrom evalkit.engine import build_engine\n\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('--batch_size', type=int, default=BATCH)\n"
        "args = parser.parse_args()\nengine = build_engine(torch.nn.Linear(2, 2), 2)\n")


def test_an_inference_engine_a_helper_builds_for_callers_that_decode_large_batches(project):
    project.write({"evalkit/__init__.py": "", "evalkit/engine.py": ENGINE_HELPER, "eval.py": EVAL.replace("BATCH", "64")})
    findings = [f for f in project.check().findings if f.code == "DSL403"]
    assert [(f.path, f.span.start.row) for f in findings] == [("evalkit/engine.py", 5)]
    assert "at batch 64 (eval.py)" in findings[0].message
    project.write({"eval.py": EVAL.replace("BATCH", "4")})
    assert rows(project, "DSL403") == []
    project.write({"eval.py": EVAL.replace("BATCH", "64"),
                   "evalkit/engine.py": ENGINE_HELPER.replace("replace_with_kernel_inject=True", "replace_with_kernel_inject=True, max_out_tokens=2048")})
    assert rows(project, "DSL403") == []
