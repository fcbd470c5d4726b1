"""Early returns as rank gates (which ranks reach a statement), a ZeRO-3 engine handed to another
module's save helper (DSL503), and srun's sure lower bound of tasks on a node (DSL701)."""
from __future__ import annotations

import ast
import json

from dslint.facts.conditions import only_rank_zero, rank_gate
from dslint.facts.script import build_script_facts

HEADER = "import os\n\nimport torch\nimport torch.distributed as dist\n\n\n"


def facts_of(body: str):
    text = HEADER + body
    return build_script_facts("t.py", text, ast.parse(text))


def call_on_row(facts, row: int) -> ast.Call:
    return next(site.node for site in facts.calls if site.node.lineno == row and site.attr != "get_rank")


def rows(project, code):
    return [(f.path, f.span.start.row) for f in project.check(select=[code]).findings if f.code == code]


# -- which ranks reach a statement ----------------------------------------------------------------

EARLY = (
    "def publish(step, buffers, rank):\n"        # 7
    "    for name, buf in buffers:\n"            # 8
    "        with torch.no_grad():\n"            # 9
    "            if rank > 0:\n"                 # 10
    "                return\n"                   # 11
    "            dist.broadcast(buf, 0)\n"       # 12: gated (inside the with, after the return)
    "    dist.broadcast(step, 0)\n"              # 13: a rank that never took the return gets here
    "\n"
    "\n"
    "def inner_def(rank):\n"                     # 16
    "    def later():\n"                         # 17
    "        if rank != 0:\n"                    # 18
    "            return\n"                       # 19
    "        print('rank 0')\n"                  # 20
    "    dist.barrier()\n"                       # 21: the nested def's return ends the nested def only
)


def test_an_early_return_inside_a_block_gates_the_rest_of_that_block_only():
    facts = facts_of(EARLY)
    gate = rank_gate(facts, call_on_row(facts, 12))
    assert gate is not None and "`if rank > 0: return` (line 10)" in gate.description
    assert rank_gate(facts, call_on_row(facts, 13)) is None
    assert rank_gate(facts, call_on_row(facts, 21)) is None
    assert only_rank_zero(facts, call_on_row(facts, 12))
    assert only_rank_zero(facts, call_on_row(facts, 20))
    assert not only_rank_zero(facts, call_on_row(facts, 13))


def test_only_rank_zero_reads_the_early_returns_that_let_rank_zero_through():
    facts = facts_of(
        "def a(args):\n    if args.local_rank not in [-1, 0]:\n        return None\n    return torch.load('a')\n"     # 7..10
        "def b():\n    if not dist.get_rank() == 0:\n        return\n    torch.load('b')\n"                         # 11..14
        "def c():\n    if dist.get_rank() >= 1 or os.environ.get('SKIP'):\n        return\n    torch.load('c')\n"   # 15..18
        "def d():\n    if dist.get_rank() == 0:\n        return\n    torch.load('d')\n"                             # 19..22
        "def e():\n    if dist.get_rank() != 0:\n        pass\n    else:\n        torch.load('e')\n"                # 23..27
        "def f(flag):\n    if dist.get_rank() != 0 and flag:\n        return\n    torch.load('f')\n"                # 28..31
        "def g():\n    if dist.get_rank() != 0:\n        raise SystemExit\n    torch.load('g')\n"                   # 32..35
    )
    ranks_zero = {row: only_rank_zero(facts, call_on_row(facts, row)) for row in (10, 14, 18, 22, 27, 31, 35)}
    # `rank == 0: return` leaves every other rank (the converse); `and flag` proves nothing; a
    # raise at the top of a function ends it as a return does
    assert ranks_zero == {10: True, 14: True, 18: True, 22: False, 27: True, 31: False, 35: True}


def test_collectives_after_an_early_return_hang_either_way(project):
    project.write({"train.py": HEADER + (
        "def sync(x, loader):\n"                       # 7
        "    for batch in loader:\n"                   # 8
        "        if dist.get_rank() == 0:\n"           # 9
        "            return\n"                         # 10
        "        dist.all_reduce(batch)\n"             # 11: rank 0 never joins
        "\n"
        "\n"
        "def main():\n"
        "    dist.init_process_group('nccl')\n"
        "    sync(None, [])\n"
    )})
    findings = [f for f in project.check(select=["DSL501"]).findings]
    assert [f.span.start.row for f in findings] == [11]
    assert "runs only on ranks that get past `if dist.get_rank() == 0: return`" in findings[0].message


def test_the_matching_collective_in_the_early_return_or_after_it_is_no_hang(project):
    project.write({"train.py": HEADER + (
        "def wait_for_download(rank):\n"
        "    if rank != 0:\n        dist.barrier()\n        return\n"
        "    download()\n    dist.barrier()\n"
        "\n"
        "\n"
        "def rank_zero_first(rank):\n"
        "    if rank == 0:\n        prepare()\n        dist.barrier()\n        return\n"
        "    dist.barrier()\n"
        "\n"
        "\n"
        "def main():\n    dist.init_process_group('nccl')\n    wait_for_download(dist.get_rank())\n"
    )})
    assert rows(project, "DSL501") == []


def test_a_deepspeed_save_after_a_nested_early_return_is_a_gated_checkpoint(project):
    project.write({"train.py": (
        "import deepspeed\nimport torch.distributed as dist\n\n\n"
        "def maybe_save(engine, step, every):\n"
        "    if step % every == 0:\n"
        "        if dist.get_rank() != 0:\n"
        "            return\n"
        "        engine.save_checkpoint('ckpt')\n"     # 9
        "    engine.save_checkpoint('last')\n"
    )})
    assert rows(project, "DSL502") == [("train.py", 9)]


def test_torch_load_after_an_early_return_of_the_other_ranks_is_not_flagged(project):
    project.write({"utils.py": "import torch.distributed as dist\n\n\ndef is_main_process():\n    return dist.get_rank() == 0\n",
                   "train.py": HEADER + (
        "from utils import is_main_process\n\n\n"
        "def restore(model, path):\n"
        "    if not is_main_process():\n        return\n"
        "    model.load_state_dict(torch.load(path))\n"
        "\n\n"
        "def restore_all(model, path):\n"
        "    if is_main_process():\n        return\n"
        "    model.load_state_dict(torch.load(path))\n"   # 19: every rank but 0 loads onto cuda:0
        "\n\n"
        "def main():\n"
        "    dist.init_process_group('nccl')\n"
        "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
        "    model = torch.nn.Linear(2, 2).cuda()\n"
        "    restore(model, 'w.pt')\n    restore_all(model, 'w.pt')\n"
        "\n\nif __name__ == '__main__':\n    main()\n"
    )})
    assert rows(project, "DSL102") == [("train.py", 19)]


# -- DSL503: the engine handed to a save helper of another module --------------------------------

EXPORT = (
    "import os\n\nimport torch\n\n\n"
    "def export_weights(model_engine, out_dir, *, rank=0):\n"
    "    if rank != 0:\n        return\n"
    "    os.makedirs(out_dir, exist_ok=True)\n"
    "    torch.save(model_engine.module.state_dict(), os.path.join(out_dir, 'model.bin'))\n"   # 10
)
GATHERED = (
    "import deepspeed\nimport torch\n\n\n"
    "def export_weights(model_engine, out_dir, *, rank=0):\n"
    "    params = list(model_engine.module.parameters())\n"
    "    with deepspeed.zero.GatheredParameters(params, modifier_rank=0):\n"
    "        if rank == 0:\n"
    "            torch.save(model_engine.module.state_dict(), out_dir + '/model.bin')\n"
)
TRAIN = (
    "import argparse\n\nimport deepspeed\nimport torch\nimport torch.distributed as dist\n\n"
    "from tools.export import export_weights\n\n\n"
    "def main():\n"
    "    net = torch.nn.Linear(4, 4)\n"
    "    {lhs}, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config='zero.json')\n"
    "    export_weights({arg}, 'out', rank=dist.get_rank())\n"
    "\n\nif __name__ == '__main__':\n    main()\n"
)


def zero_project(project, stage=3, export=EXPORT, lhs="ds_engine", arg="ds_engine"):
    return project.write({
        "tools/__init__.py": "", "tools/export.py": export, "train.py": TRAIN.format(lhs=lhs, arg=arg),
        "zero.json": json.dumps({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": stage}}),
        "run.sh": "deepspeed --num_gpus 4 train.py\n"})


def test_a_zero3_engine_passed_to_a_helper_that_saves_its_module_state_dict_is_flagged(project):
    findings = [f for f in zero_project(project).check(select=["DSL503"]).findings]
    assert [(f.path, f.span.start.row, f.span.start.column) for f in findings] == [("tools/export.py", 10, 16)]
    assert "model_engine.module.state_dict()" in findings[0].message and "train.py:13" in findings[0].message


def test_no_dsl503_for_stage_2_a_gathered_read_or_an_argument_that_is_no_engine(make_project):
    assert rows(zero_project(make_project("stage2"), stage=2), "DSL503") == []
    assert rows(zero_project(make_project("gathered"), export=GATHERED), "DSL503") == []
    # the helper gets the plain model, not the engine deepspeed.initialize returned
    assert rows(zero_project(make_project("plain"), arg="net"), "DSL503") == []


def test_a_helper_of_the_same_module_given_the_engine_is_flagged(project):
    project.write({"train.py": (
        "import deepspeed\nimport torch\n\n\n"
        "def dump(eng, path):\n    torch.save(eng.module.state_dict(), path)\n"    # 6
        "\n\n"
        "def dump_model(model, path):\n    torch.save(model.module.state_dict(), path)\n"
        "\n\n"
        "def main(net):\n"
        "    engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config='zero.json')\n"
        "    dump(engine, 'a.bin')\n    dump_model(net, 'b.bin')\n"
    ), "zero.json": '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}}',
        "run.sh": "deepspeed --num_gpus 4 train.py\n"})
    assert rows(project, "DSL503") == [("train.py", 6)]


# -- DSL701: srun --ntasks over --nodes -----------------------------------------------------------

def test_srun_torchrun_with_at_least_two_tasks_on_a_node_from_ntasks_and_nodes(make_project):
    job = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks={tasks}\n#SBATCH --gpus-per-node=8\n"
           "srun torchrun --nnodes 2 --nproc_per_node 8 train.py\n")
    train = HEADER + "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\ndist.init_process_group('nccl')\n"
    many = make_project("many").write({"a.sbatch": job.format(tasks=6), "train.py": train})
    findings = [f for f in many.check(select=["DSL701"]).findings]
    assert [(f.path, f.span.start.row) for f in findings] == [("a.sbatch", 3)]
    assert findings[0].message.startswith("at least 3 Slurm tasks on a node each run torchrun")
    one = make_project("one").write({"a.sbatch": job.format(tasks=2), "train.py": train})
    assert rows(one, "DSL701") == []
