"""`torch` bound only through a star import of a project module (`from lib.util import *`, whose
chain imports torch): the module reads torch's own names (facts/script.py, sources/names.py)."""
from __future__ import annotations

import ast

from dslint.facts.script import build_script_facts

EVAL = ("from lib.util import *\n\n\n"
        "def validate(model, loader):\n"
        "    model.eval()\n"
        "    with torch.no_grad():\n"
        "        for batch in loader:\n"
        "            out = model(batch)\n")


def _facts(text: str):
    return build_script_facts("m.py", text, ast.parse(text))


def test_torch_through_a_star_import_resolves_as_torch():
    facts = _facts(EVAL)
    assert [s.qualname for s in facts.calls if s.attr == "no_grad"] == ["torch.no_grad"]
    assert facts.uses("torch")


def test_a_module_binding_torch_itself_keeps_its_binding():
    assert [s.qualname for s in _facts("torch = None\n" + EVAL).calls if s.attr == "no_grad"] == [None]
    assert [s.qualname for s in _facts(EVAL.replace("from lib.util import *\n", "")).calls
            if s.attr == "no_grad"] == [None]


def test_the_forward_under_a_starred_no_grad_is_not_an_eval_with_grad(project):
    loop = ("\n\ndef main():\n    torch.distributed.init_process_group('nccl')\n"
            "    model = torch.nn.Linear(2, 2)\n    for epoch in range(3):\n        validate(model, [])\n\n\nmain()\n")
    project.write({"lib/__init__.py": "", "lib/util.py": "import torch\nimport torch.distributed as dist\n",
                   "train.py": EVAL + loop})
    assert [f.code for f in project.check(select=["DSL401"]).findings] == []
    project.write({"train.py": EVAL.replace("    with torch.no_grad():\n", "    if True:\n") + loop})
    assert [f.code for f in project.check(select=["DSL401"]).findings] == ["DSL401"]
