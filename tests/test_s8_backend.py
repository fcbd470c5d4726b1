"""DSL104: a process group a helper of another module starts with its parameter's default backend."""
from __future__ import annotations

COMMS = ("import torch.distributed as dist\n\n\ndef setup(backend=\"nccl\"):\n"
         "    dist.init_process_group(backend=backend)\n    return dist.get_rank()\n")
TRAIN = "import torch\n\nimport comms\n\nrank = CALL\nmodel = torch.nn.Linear(4, 4).cuda()\n"


def codes(project, call, comms=COMMS):
    project.write({"comms.py": comms, "train.py": TRAIN.replace("CALL", call),
                   "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    return [f.code for f in project.check(select=["DSL104"]).findings]


def test_a_call_that_keeps_the_nccl_default(project):
    assert codes(project, "comms.setup()") == ["DSL104"]


def test_a_call_that_passes_the_backend_is_unknown(project):
    for call in ("comms.setup('gloo')", "comms.setup(backend=args.backend)", "comms.setup(*argv)"):
        assert codes(project, call) == [], call


def test_a_default_other_than_nccl(project):
    assert codes(project, "comms.setup()", COMMS.replace('"nccl"', '"gloo"')) == []
