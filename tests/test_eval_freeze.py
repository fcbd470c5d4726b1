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
