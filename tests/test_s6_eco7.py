"""A saved command-line namespace holds no tensor (facts/loaded_values.py `saved_namespace`, for the
module's own loads and for another module's), and a rank-0 branch that hands on a function whose
collectives match the other ranks' (a server callback: facts/collectives.py `_hands_on`); the
"fail" wording for a call in the `else` of a rank test."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from dslint import engine
from dslint.facts.bindings import semantic_model
from dslint.facts.collectives import find_gated_collectives
from dslint.facts.loaded_values import saved_namespace
from dslint.facts.script import build_script_facts
from dslint.settings import Settings


def _findings(tmp_path: Path, files: dict, code: str) -> list:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    findings = engine.check([str(tmp_path)], Settings.model_validate({}), root=tmp_path, use_cache=False).findings
    return [(Path(f.path).name, f.span.start.row, f.message) for f in findings if f.code == code]


def _facts(text: str):
    return build_script_facts("m.py", text, ast.parse(text))


# -- 1. the saved value is a namespace -----------------------------------------------------------

def _saved(text: str) -> bool:
    facts = _facts(text)
    site = facts.calls_to("torch.save")[0]
    return saved_namespace(semantic_model(facts), site.argument(0, "obj"))


OPTIONS = '''import argparse
import torch


def options():
    p = argparse.ArgumentParser()
    p.add_argument("--width", type=int, default=4)
    return p
'''


@pytest.mark.parametrize("body", [
    "hp = options().parse_args()\ntorch.save(hp, 'hp.bin')\n",
    "def keep(model_hp, d):\n    torch.save(model_hp, d + '/hp.bin')\n\nkeep(options().parse_args(), 'out')\n",
    "hp = options().parse_args()\ntorch.save(vars(hp), 'hp.bin')\n",
    "hp, rest = options().parse_known_args()\ntorch.save(hp.__dict__, 'hp.bin')\n",
    "torch.save(argparse.Namespace(width=4, tag=None, sizes=[1, 2]), 'hp.bin')\n",
    "hp = options().parse_args()\nhp.width = hp.width * 2\nhp.device = torch.device('cuda')\ntorch.save(hp, 'hp.bin')\n",
])
def test_a_namespace_is_tensor_free(body):
    assert _saved(OPTIONS + body)


@pytest.mark.parametrize("body", [
    # a field that may hold a tensor
    "hp = options().parse_args()\nhp.mean = torch.zeros(3)\ntorch.save(hp, 'hp.bin')\n",
    "hp = options().parse_args()\nhp.scale = hp.scale.cuda()\ntorch.save(hp, 'hp.bin')\n",
    # a Namespace of values it cannot read
    "def keep(w):\n    torch.save(argparse.Namespace(weights=w), 'hp.bin')\n",
    # one caller passes something else
    "def keep(model_hp):\n    torch.save(model_hp, 'hp.bin')\n\nkeep(options().parse_args())\nkeep(torch.nn.Linear(2, 2))\n",
    # bound to a namespace on one path only
    "import sys\nhp = options().parse_args()\nif sys.argv:\n    hp = torch.load('old.bin')\ntorch.save(hp, 'hp.bin')\n",
    "def keep(model_hp):\n    torch.save(model_hp, 'hp.bin')\n",
])
def test_anything_else_is_not(body):
    assert not _saved(OPTIONS + body)


LAUNCH = {"go.sh": "torchrun --nproc_per_node=4 fit.py\ntorchrun --nproc_per_node=4 score.py\n"}
SCORE = '''import os
import torch
import torch.distributed as dist


def score(run_dir):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    hparams = torch.load(os.path.join(run_dir, "hparams.bin"))
    return hparams.width


if __name__ == "__main__":
    score("runs/a")
'''
FIT = '''import argparse
import os
import torch
import torch.distributed as dist


def fit(model_opts):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    if dist.get_rank() == 0:
        torch.save(SAVED, os.path.join(model_opts.run_dir, "hparams.bin"))


def cli():
    p = argparse.ArgumentParser()
    p.add_argument("--run_dir", default="runs/a")
    return p.parse_args()


if __name__ == "__main__":
    fit(cli())
'''


@pytest.mark.parametrize("saved, flagged", [("model_opts", False), ("vars(model_opts)", False),
                                            ("make_model().state_dict()", True)])
def test_another_module_saving_a_namespace_clears_the_load(tmp_path, saved, flagged):
    files = {**LAUNCH, "score.py": SCORE, "fit.py": FIT.replace("SAVED", saved)}
    assert bool(_findings(tmp_path, files, "DSL102")) is flagged


SAME = '''import argparse
import os
import torch
import torch.distributed as dist


def keep(model_opts, d):
    torch.save(model_opts, os.path.join(d, "hparams.bin"))


def main(opts):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    if dist.get_rank() == 0:
        keep(opts, opts.run_dir)
    dist.barrier()
    again = torch.load(os.path.join(opts.run_dir, "hparams.bin"))
    return again


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--run_dir", default="runs/a")
    main(p.parse_args())
'''


def test_the_module_saving_a_namespace_clears_its_own_load(tmp_path):
    files = {"go.sh": "torchrun --nproc_per_node=4 both.py\n", "both.py": SAME}
    assert _findings(tmp_path, files, "DSL102") == []
    other = SAME.replace("main(p.parse_args())", "main(p.parse_args())\n    keep(torch.nn.Linear(2, 2), 'x')")
    assert _findings(tmp_path, {"both.py": other}, "DSL102") != []


# -- 2. the rank-0 branch hands on a function that matches -------------------------------------------

SERVE = '''import torch
import torch.distributed as dist
import web


def handle(request):
    payload = [request]
    dist.broadcast_object_list(payload, src=0)
    return CALLBACK_RESULT


def other(request):
    return request


def make_app():
    app = web.App()
    app.route("/run", HANDLER)
    return app


def follow():
    while True:
        payload = [None]
        dist.broadcast_object_list(payload, src=0)


def main():
    dist.init_process_group("nccl")
    if dist.get_rank() == 0:
        make_app().serve()
    else:
        FOLLOWER
'''


def _gated(text: str) -> list:
    return sorted(call.node.lineno for call in find_gated_collectives(_facts(text)))


@pytest.mark.parametrize("follower", ["follow()", "while True:\n            dist.broadcast_object_list([None], src=0)"])
def test_a_callback_the_rank_0_branch_registers_matches_the_others(follower):
    text = SERVE.replace("HANDLER", "handle").replace("CALLBACK_RESULT", "payload").replace("FOLLOWER", follower)
    assert _gated(text) == []


@pytest.mark.parametrize("follower", ["follow()", "while True:\n            dist.broadcast_object_list([None], src=0)"])
def test_a_callback_without_collectives_does_not(follower):
    text = SERVE.replace("HANDLER", "other").replace("CALLBACK_RESULT", "payload").replace("FOLLOWER", follower)
    assert len(_gated(text)) == 1


def test_a_callback_of_another_kind_does_not():
    text = SERVE.replace("HANDLER", "handle").replace("FOLLOWER", "follow()").replace(
        "dist.broadcast_object_list(payload, src=0)\n    return", "dcp.save(payload, checkpoint_id='x')\n    return")
    text = text.replace("import web", "import web\nimport torch.distributed.checkpoint as dcp")
    assert len(_gated(text)) == 1


METHODS = '''import torch.distributed as dist
import flask


class Server:
    def step(self, request):
        box = [request]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def quiet(self, request):
        return request

    def app(self):
        app = flask.Flask("m")
        app.add_url_rule("/", view_func=self.HANDLER)
        return app

    def wait(self):
        while True:
            dist.broadcast_object_list([None], src=0)

    def run(self):
        if dist.get_rank() == 0:
            self.app().run()
        else:
            self.wait()
'''


@pytest.mark.parametrize("handler, gated", [("step", 0), ("quiet", 1)])
def test_a_method_the_rank_0_branch_registers_matches_the_others(handler, gated):
    assert len(_gated(METHODS.replace("HANDLER", handler))) == gated


# -- 3. the wording of a call in the `else` -------------------------------------------------------

ELSE = '''import torch.distributed as dist


def wait():
    dist.barrier()


def main():
    dist.init_process_group("nccl")
    if dist.get_rank() == 0:
        print("leader")
    else:
        CALL
'''


@pytest.mark.parametrize("call", ["wait()", "dist.barrier()"])
def test_a_call_in_the_else_runs_on_the_ranks_that_fail_the_test(tmp_path, call):
    found = _findings(tmp_path, {"go.sh": "torchrun --nproc_per_node=2 m.py\n", "m.py": ELSE.replace("CALL", call)},
                      "DSL501")
    assert len(found) == 1 and "ranks that fail `if dist.get_rank() == 0`" in found[0][2]


def test_a_call_in_the_body_runs_on_the_ranks_that_pass_it(tmp_path):
    text = ELSE.replace('print("leader")', "wait()").replace("CALL", 'print("follower")')
    found = _findings(tmp_path, {"m.py": text}, "DSL501")
    assert len(found) == 1 and "ranks that pass `if dist.get_rank() == 0`" in found[0][2]


def test_an_imported_helper_called_in_the_else_says_fail(tmp_path):
    files = {"helpers.py": "import torch.distributed as dist\n\n\ndef wait():\n    dist.barrier()\n",
             "m.py": ELSE.replace("import torch.distributed as dist", "import torch.distributed as dist\n"
                                  "from helpers import wait").replace("def wait():\n    dist.barrier()\n", "")
             .replace("CALL", "wait()")}
    found = _findings(tmp_path, files, "DSL501")
    assert len(found) == 1 and "ranks that fail `if dist.get_rank() == 0`" in found[0][2]
