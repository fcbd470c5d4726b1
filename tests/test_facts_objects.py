"""facts/objects.py: which object an expression is, and which calls of the module reach a def."""
from __future__ import annotations

import ast

from dslint.facts.bindings import Binding
from dslint.facts.objects import (CallOf, arguments_for, callee_name, calls_of, class_lineage, module_name_at,
                                  object_of, object_with_arguments, passed_on, same_object, self_class)

from .test_bindings import _line, _model


def _node(tree, source: str, line_text: str, code: str, nth: int = 0) -> ast.AST:
    """The `nth` expression written `code` on the line containing `line_text` (loads only)."""
    line = _line(source, line_text)
    found = sorted((n for n in ast.walk(tree) if isinstance(n, ast.expr) and n.lineno == line
                    and not isinstance(getattr(n, "ctx", None), ast.Store) and ast.unparse(n) == code),
                   key=lambda n: n.col_offset)
    return found[nth]


def _def(tree, name: str) -> ast.AST:
    (found,) = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name]
    return found


# -- object_of --------------------------------------------------------------------------------------

KD = """
import torch
import torch.nn.functional as F
from transformers import AutoModelForSequenceClassification

device = torch.device("cuda")
teacher = AutoModelForSequenceClassification.from_pretrained("bert-large-uncased").cuda()
teacher = teacher.to(device).eval()
student = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)


def train_step(batch):
    student_logits = student(**batch).logits
    teacher_logits = teacher(**batch).logits
    loss = F.kl_div(student_logits.log_softmax(-1), teacher_logits.softmax(-1), reduction="batchmean")
    loss.backward()
"""


def test_a_model_is_the_call_that_built_it_through_to_cuda_and_eval_chains():
    model, tree, src = _model(KD)
    built = _node(tree, src, '"bert-large-uncased"', 'AutoModelForSequenceClassification.from_pretrained('
                  "'bert-large-uncased')")
    in_step = _node(tree, src, "teacher_logits = teacher", "teacher")
    assert object_of(model, in_step) is built
    assert object_of(model, _node(tree, src, "teacher = teacher.to", "teacher.to(device).eval()")) is built
    assert object_of(model, _node(tree, src, "teacher = teacher.to", "teacher")) is built


def test_two_models_built_by_two_calls_are_two_objects():
    model, tree, src = _model(KD)
    teacher = _node(tree, src, "teacher_logits = teacher", "teacher")
    student = _node(tree, src, "student_logits = student", "student")
    assert same_object(model, teacher, _node(tree, src, "teacher = teacher.to", "teacher"))
    assert not same_object(model, teacher, student)
    assert object_of(model, student) is _node(
        tree, src, '"bert-base-uncased"', "AutoModelForSequenceClassification.from_pretrained('bert-base-uncased')")


def test_a_parameter_is_its_own_object_and_not_the_global_it_shadows():
    model, tree, src = _model("""
        import torch
        model = torch.nn.Linear(8, 8)

        def evaluate(model, loader):
            for x in loader:
                model(x)

        model(torch.randn(2, 8))
    """)
    key = object_of(model, _node(tree, src, "        model(x)", "model"))
    assert isinstance(key, Binding) and (key.kind, key.name, key.position) == ("parameter", "model", 0)
    assert key.scope.node is _def(tree, "evaluate")
    assert object_of(model, _node(tree, src, "model(torch.randn", "model")) is _node(
        tree, src, "model = torch.nn", "torch.nn.Linear(8, 8)")


def test_self_attribute_set_in_init_is_what_init_assigned():
    model, tree, src = _model("""
        class Distiller:
            def __init__(self, student, teacher):
                self.student = student
                self.teacher = teacher.eval().requires_grad_(False)

            def training_step(self, batch):
                with_teacher = self.teacher(batch)
                return self.student(batch), with_teacher
    """)
    teacher = object_of(model, _node(tree, src, "with_teacher = self.teacher", "self.teacher"))
    assert isinstance(teacher, Binding) and (teacher.kind, teacher.name, teacher.position) == ("parameter", "teacher", 2)
    student = object_of(model, _node(tree, src, "return self.student", "self.student"))
    assert (student.kind, student.name, student.position) == ("parameter", "student", 1)


def test_self_attribute_assigned_nowhere_in_the_class_is_keyed_by_class_and_name():
    model, tree, src = _model("""
        from base import BaseTrainer

        class Trainer(BaseTrainer):
            def validate(self, batch):
                return self.model(batch)

            def test(self, batch):
                return self.model.module(batch)
    """)
    cls = _def(tree, "Trainer")
    assert object_of(model, _node(tree, src, "return self.model(batch)", "self.model")) == ("self", cls, "model")
    assert object_of(model, _node(tree, src, "self.model.module(batch)", "self.model.module")) == ("self", cls, "model")


def test_ddp_module_is_the_ddp_object_and_an_attribute_is_keyed_by_its_owner():
    model, tree, src = _model("""
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        def main(net, local_rank, batch):
            model = DDP(net.cuda(), device_ids=[local_rank])
            out = model.module(batch)
            features = model.module.backbone(batch)
            return model(batch), out, features
    """)
    wrapper = _node(tree, src, "model = DDP", "DDP(net.cuda(), device_ids=[local_rank])")
    assert object_of(model, _node(tree, src, "out = model.module", "model.module")) is wrapper
    assert same_object(model, _node(tree, src, "out = model.module", "model.module"),
                       _node(tree, src, "return model(batch)", "model"))
    assert object_of(model, _node(tree, src, "features =", "model.module.backbone")) == ("attr", wrapper, "backbone")


def test_a_name_bound_in_two_branches_is_no_known_object():
    model, tree, src = _model("""
        import torchvision

        def build(args):
            if args.arch == "resnet50":
                net = torchvision.models.resnet50()
            else:
                net = torchvision.models.vit_b_16()
            net.eval()
            return net
    """)
    net = _node(tree, src, "net.eval()", "net")
    assert object_of(model, net) is None
    assert not same_object(model, net, net)


def test_a_self_attribute_rebound_from_itself_in_setup_is_no_known_object():
    # `self.teacher = self.teacher.to(device)` in setup: the read in the step only comes back to the
    # same assignment; two such attributes must not pass for one object.
    model, tree, src = _model("""
        class Distiller:
            def __init__(self, teacher, student):
                self.teacher = teacher
                self.student = student

            def setup(self, device):
                self.teacher = self.teacher.to(device)
                self.student = self.student.to(device)

            def training_step(self, batch):
                return self.teacher(batch), self.student(batch)
    """)
    teacher = _node(tree, src, "return self.teacher", "self.teacher")
    student = _node(tree, src, "return self.teacher", "self.student")
    assert object_of(model, teacher) is None and object_of(model, student) is None
    assert not same_object(model, teacher, student)


def test_constants_and_subscripts_are_no_objects():
    model, tree, src = _model("""
        models = {"a": 1}
        first = models["a"]
        x = 3
    """)
    assert object_of(model, _node(tree, src, "first =", "models['a']")) is None
    assert object_of(model, _node(tree, src, "first =", "models")) is None  # a dict display is no module
    assert object_of(model, _node(tree, src, "x = 3", "3")) is None


# -- self_class -------------------------------------------------------------------------------------

def test_self_class_is_the_class_of_a_method_first_parameter_only():
    model, tree, src = _model("""
        class Evaluator:
            def run(self, model):
                return self, model

            @staticmethod
            def build(cfg):
                return cfg

        def helper(self):
            return self.name
    """)
    assert self_class(model, _node(tree, src, "return self, model", "self")) is _def(tree, "Evaluator")
    assert self_class(model, _node(tree, src, "return self, model", "model")) is None
    assert self_class(model, _node(tree, src, "return cfg", "cfg")) is None
    assert self_class(model, _node(tree, src, "return self.name", "self")) is None


# -- calls_of, arguments_for, object_with_arguments ---------------------------------------------

EVAL = """
import torch


def evaluate(model, loader, *, amp=False):
    return [model(x) for x in loader]


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    def validate(self, loader):
        return evaluate(self.model, loader)

    @staticmethod
    def score(outputs):
        return sum(outputs)

    def fit(self, val_loader, test_loader, more):
        teacher = torch.nn.Linear(4, 4)
        evaluate(teacher, val_loader, amp=True)
        evaluate(loader=test_loader, model=self.model)
        evaluate(*more)
        self.score(self.validate(val_loader))


def main(evaluate):
    trainer = Trainer(torch.nn.Linear(4, 4), [])
    evaluate(trainer.model, [])
"""


def test_calls_of_a_function_skip_a_parameter_that_shadows_it():
    model, tree, src = _model(EVAL)
    calls = calls_of(model, _def(tree, "evaluate"))
    assert [(call.lineno, skipped) for call, skipped in calls] == [
        (_line(src, "return evaluate(self.model, loader)"), 0), (_line(src, "evaluate(teacher, val_loader"), 0),
        (_line(src, "evaluate(loader=test_loader"), 0), (_line(src, "evaluate(*more)"), 0)]
    assert all(isinstance(c, CallOf) for c in calls)


def test_calls_of_methods_leave_out_self_and_init_is_called_by_the_class():
    model, tree, src = _model(EVAL)
    assert [(c.node.lineno, c.skipped) for c in calls_of(model, _def(tree, "validate"))] == [
        (_line(src, "self.score(self.validate"), 1)]
    assert [(c.node.lineno, c.skipped) for c in calls_of(model, _def(tree, "score"))] == [
        (_line(src, "self.score(self.validate"), 0)]
    assert [(c.node.lineno, c.skipped) for c in calls_of(model, _def(tree, "__init__"))] == [
        (_line(src, "trainer = Trainer("), 1)]
    assert calls_of(model, _def(tree, "main")) == []
    lam = ast.parse("f = lambda x: x").body[0].value
    assert calls_of(model, lam) == []


def test_arguments_for_a_parameter_by_position_and_keyword():
    model, tree, src = _model(EVAL)
    evaluate = _def(tree, "evaluate")
    assert [(call.lineno, ast.unparse(given)) for call, given in arguments_for(model, evaluate, "model")] == [
        (_line(src, "return evaluate(self.model"), "self.model"), (_line(src, "evaluate(teacher, val"), "teacher"),
        (_line(src, "evaluate(loader=test_loader"), "self.model")]
    assert [(call.lineno, ast.unparse(given)) for call, given in arguments_for(model, evaluate, "amp")] == [
        (_line(src, "evaluate(teacher, val"), "True")]
    assert arguments_for(model, evaluate, "missing") == []


def test_arguments_for_init_and_methods_count_from_after_self():
    model, tree, src = _model(EVAL)
    init = _def(tree, "__init__")
    assert [ast.unparse(given) for _, given in arguments_for(model, init, "model")] == ["torch.nn.Linear(4, 4)"]
    assert [ast.unparse(given) for _, given in arguments_for(model, init, "loader")] == ["[]"]
    assert arguments_for(model, init, "self") == []
    assert [ast.unparse(given) for _, given in arguments_for(model, _def(tree, "validate"), "loader")] == ["val_loader"]


def test_object_with_arguments_adds_what_the_callers_pass_for_a_parameter():
    model, tree, src = _model(EVAL)
    parameter = object_of(model, _node(tree, src, "return [model(x)", "model"))
    keys, calls = object_with_arguments(model, parameter)
    teacher = _node(tree, src, "teacher = torch.nn", "torch.nn.Linear(4, 4)")
    built = _node(tree, src, "trainer = Trainer(", "torch.nn.Linear(4, 4)")
    init_model = object_of(model, _node(tree, src, "self.model = model", "model"))
    assert init_model.kind == "parameter" and init_model.scope.node is _def(tree, "__init__")
    assert keys == {parameter, teacher, init_model}
    assert sorted(c.lineno for c in calls) == [_line(src, "return evaluate(self.model"),
                                                _line(src, "evaluate(teacher, val"), _line(src, "evaluate(loader=test")]
    built_keys, none = object_with_arguments(model, built)
    assert built_keys == {built} and none == set()


# -- passed_on ---------------------------------------------------------------------------------------

def test_a_def_handed_on_as_a_callback_is_passed_on():
    model, tree, src = _model("""
        from lightning.pytorch.callbacks import LambdaCallback

        def run_validation(trainer, module):
            module.eval()

        def evaluate(model, loader):
            return [model(x) for x in loader]

        class Loop:
            def step(self):
                return self.evaluate_all()

            def evaluate_all(self):
                return 0

            def hooks(self):
                return [self.step]

        callback = LambdaCallback(on_validation_start=run_validation)
        evaluate(None, [])
    """)
    assert passed_on(model, _def(tree, "run_validation"))
    assert not passed_on(model, _def(tree, "evaluate"))
    assert passed_on(model, _def(tree, "step"))
    assert not passed_on(model, _def(tree, "evaluate_all"))


# -- callee_name, module_name_at, class_lineage ----------------------------------------------------

def test_callee_name_reads_imports_and_defs_of_the_module():
    model, tree, src = _model("""
        import torch
        from torch import no_grad as ng

        def smart_inference_mode():
            return torch.inference_mode()

        @ng()
        @smart_inference_mode()
        @torch.autocast("cuda")
        @unknown
        def run(model, x):
            return model(x)
    """)
    run = _def(tree, "run")
    assert [callee_name(model, d) for d in run.decorator_list] == [
        "torch.no_grad", "smart_inference_mode", "torch.autocast", ""]


def test_module_name_at_is_the_import_alias_that_reaches_there():
    model, tree, src = _model("""
        import torch as th
        from torch import nn

        def evaluate(model, x):
            return model(x)

        def build():
            th = None

            def inner():
                return th
            return inner
    """)
    assert module_name_at(model, "torch", _def(tree, "evaluate")) == "th"
    assert module_name_at(model, "torch", _def(tree, "inner")) is None
    assert module_name_at(model, "torch.nn", _def(tree, "evaluate")) is None


def test_class_lineage_follows_the_local_bases_of_every_generation():
    model, tree, src = _model("""
        import lightning.pytorch as pl

        class Base(pl.LightningModule):
            pass

        class Mixin:
            pass

        class Mid(Base):
            pass

        class Model(Mixin, Mid):
            pass

        class Top(Model):
            pass

        class Leaf(Top):
            pass
    """)
    names = lambda classes: [c.name for c in classes]  # noqa: E731
    assert names(class_lineage(model, _def(tree, "Model"))) == ["Model", "Mixin", "Mid", "Base"]
    assert names(class_lineage(model, _def(tree, "Top"))) == ["Top", "Model", "Mixin", "Mid", "Base"]
    assert names(class_lineage(model, _def(tree, "Leaf"))) == ["Leaf", "Top", "Model", "Mixin", "Mid"]  # 4 generations
    assert names(class_lineage(model, _def(tree, "Base"))) == ["Base"]
