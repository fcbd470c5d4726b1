"""DSL401: a model frozen tensor by tensor (`for p in model.parameters(): p.requires_grad = False`) records
no graph, as one frozen with `.requires_grad_(False)`."""
from __future__ import annotations

EXPORT = """import torch


def export(net):
    net.eval()
FREEZE    x = torch.rand(1, 8)
    for _ in range(3):
        net(x)
"""


def _codes(project, freeze):
    project.write({"export.py": EXPORT.replace("FREEZE", freeze)})
    return [f.code for f in project.check(select=["DSL401"]).findings]


def test_a_per_parameter_freeze_is_a_freeze(project):
    assert _codes(project, "    for p in net.parameters():\n        p.requires_grad = False\n") == []


def test_without_it_the_forward_records_its_graph(project):
    assert _codes(project, "") == ["DSL401"]


def test_a_with_of_a_factory_chosen_between_no_grad_and_inference_mode_is_off(project):
    chosen = ("    off = torch.inference_mode if net.training else torch.no_grad\n"
              "    with off():\n        for _ in range(3):\n            net(torch.rand(1, 8))\n")
    project.write({"export.py": "import torch\n\n\ndef export(net):\n    net.eval()\n" + chosen})
    assert [f.code for f in project.check(select=["DSL401"]).findings] == []
    project.write({"export.py": "import torch\n\n\ndef export(net):\n    net.eval()\n"
                   + chosen.replace("torch.no_grad", "torch.enable_grad")})
    assert [f.code for f in project.check(select=["DSL401"]).findings] == ["DSL401"]
