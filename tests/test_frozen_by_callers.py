"""DSL402 on a model that is a parameter of a training function: the callers in other modules decide too.
A caller that freezes a model (itself, or through a project helper of a module that does) may have frozen
the one it passes, so the finding waits for the project phase."""
from __future__ import annotations

ENGINE = ("import torch.nn.functional as F\n\n\n"
          "def train_one_epoch(student, teacher, loader, optimizer):\n"
          "    student.train()\n"
          "    teacher.eval()\n"
          "    for x, y in loader:\n"
          "        soft = teacher(x)\n"
          "        loss = F.kl_div(student(x).log_softmax(-1), soft.log_softmax(-1), log_target=True)\n"
          "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n")
HELPER = ("def freeze(module):\n    module.eval()\n    module.requires_grad_(False)\n    return module\n")
TRAIN = ("import torch\n\nfrom engine import train_one_epoch\nfrom utils.torch_utils import freeze\n\n"
         "student, teacher = torch.nn.Linear(2, 2), TEACHER\n"
         "optimizer = torch.optim.SGD(student.parameters(), lr=0.1)\n"
         "train_one_epoch(student, teacher, [], optimizer)\n")


def rows(project, teacher, helper=HELPER):
    project.write({"engine.py": ENGINE, "utils/__init__.py": "", "utils/torch_utils.py": helper,
                   "train.py": TRAIN.replace("TEACHER", teacher)})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL402"]).findings if f.code == "DSL402"]


def test_a_teacher_the_caller_froze_with_a_project_helper_is_not_reported(project):
    assert rows(project, "freeze(torch.nn.Linear(2, 2))") == []
    assert rows(project, "torch.nn.Linear(2, 2).requires_grad_(False)") == []


def test_a_teacher_no_caller_freezes_is_reported(project):
    assert rows(project, "freeze(torch.nn.Linear(2, 2))", helper="def freeze(module):\n    return module.eval()\n") \
        == [("engine.py", 8)]
