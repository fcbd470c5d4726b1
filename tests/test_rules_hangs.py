"""DSL501/DSL502: collectives and all-rank checkpoint APIs reached by some ranks only."""
from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "scripts_mem_hangs"
HEADER = "import torch\nimport torch.distributed as dist\n\n\n"


def rows(project, code):
    return [(f.span.start.row, f.code) for f in project.check(select=[code]).findings if f.code == code]


def fixture(project, name):
    return project.write({name: (FIXTURES / name).read_text()})


def test_barrier_under_rank_zero_is_flagged(project):
    project.write({"train.py": HEADER + "def main():\n    if dist.get_rank() == 0:\n        prep()\n        dist.barrier()\n"})
    assert rows(project, "DSL501") == [(8, "DSL501")]


def test_download_first_barrier_pair_is_not_flagged(project):
    fixture(project, "hf_download_first.py")
    assert rows(project, "DSL501") == []


def test_conditions_every_rank_agrees_on_are_not_rank_gates(project):
    project.write({"train.py": HEADER + (
        "def main(args, rank, group_ranks, g, lora_rank):\n"
        "    if args.local_rank != -1:\n        dist.barrier()\n"
        "    if rank in group_ranks:\n        dist.all_reduce(x)\n"
        "    if rank == 0:\n        dist.all_reduce(x, group=g)\n"
        "    if lora_rank > 0:\n        dist.all_reduce(x)\n"
        "    if rank == 0:\n        dist.broadcast(x, 0)\n    else:\n        dist.broadcast(x, 0)\n"
        "    if rank == 0:\n        dist.send(x, 1)\n"
    )})
    assert rows(project, "DSL501") == []


def test_collective_inside_a_helper_is_flagged_at_the_gated_call(project):
    fixture(project, "deepspeed_rank0_save.py")
    findings = [f for f in project.check(select=["DSL501"]).findings]
    assert [(f.span.start.row, f.code) for f in findings] == [(34, "DSL501")]
    assert "evaluate() (it reaches dist.all_reduce on line 19)" in findings[0].message


def test_rank_zero_save_checkpoint_and_early_return_are_flagged(project):
    fixture(project, "deepspeed_rank0_save.py")
    assert rows(project, "DSL502") == [(12, "DSL502"), (31, "DSL502")]


def test_lightning_synced_logging_all_gather_log_dir_and_save_checkpoint(project):
    fixture(project, "lightning_rank_zero.py")
    assert rows(project, "DSL501") == [(15, "DSL501"), (22, "DSL501"), (30, "DSL501")]
    assert rows(project, "DSL502") == [(29, "DSL502")]


def test_pytorch_lightning_namespace_and_aliases(project):
    project.write({"model.py": (
        "import pytorch_lightning as pl\nfrom pytorch_lightning.utilities import rank_zero_only as rzo\n\n\n"
        "class M(pl.LightningModule):\n    @rzo\n    def report(self, x):\n        self.log('x', x, sync_dist=True)\n"
    )})
    assert rows(project, "DSL501") == [(8, "DSL501")]


def test_accelerate_wait_and_gather_flagged_save_state_only_with_sharding(project):
    fixture(project, "accelerate_main_process.py")
    assert rows(project, "DSL501") == [(13, "DSL501"), (14, "DSL501")]
    assert rows(project, "DSL502") == []
    text = (FIXTURES / "accelerate_main_process.py").read_text().replace("from accelerate.utils import DistributedType",
                                                                         "from accelerate.utils import DeepSpeedPlugin")
    project.write({"accelerate_main_process.py": text})
    assert rows(project, "DSL502") == [(15, "DSL502")]


def test_accelerate_save_let_through_for_deepspeed_is_not_flagged(project):
    project.write({"train.py": (
        "from accelerate import Accelerator, DeepSpeedPlugin\nfrom accelerate.utils import DistributedType\n\n"
        "accelerator = Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=3))\n"
        "if accelerator.is_main_process or accelerator.distributed_type == DistributedType.DEEPSPEED:\n"
        "    accelerator.save_state('ckpt')\n"
    )})
    assert rows(project, "DSL502") == []


def test_barrier_fix_moves_it_after_the_branch_and_is_idempotent(project):
    project.write({"train.py": HEADER + (
        "def main():\n    if dist.get_rank() == 0:  # rank 0 prepares\n        prep()\n        dist.barrier()\n"
        "    train()\n"
    )})
    project.fix(unsafe=True, select=["DSL501"])
    expected = HEADER + ("def main():\n    if dist.get_rank() == 0:  # rank 0 prepares\n        prep()\n"
                         "    dist.barrier()\n    train()\n")
    assert project.read("train.py") == expected
    project.fix(unsafe=True, select=["DSL501"])
    assert project.read("train.py") == expected


def test_save_fix_replaces_a_branch_that_only_saves(project):
    source = ("import deepspeed\nimport torch.distributed as dist\n\nengine, _, _, _ = deepspeed.initialize(model=m)\n"
              "# save at the end\nif dist.get_rank() == 0:\n    engine.save_checkpoint('out')\nprint('done')\n")
    project.write({"train.py": source})
    project.fix(unsafe=True, select=["DSL502"])
    expected = ("import deepspeed\nimport torch.distributed as dist\n\nengine, _, _, _ = deepspeed.initialize(model=m)\n"
                "# save at the end\nengine.save_checkpoint('out')\nprint('done')\n")
    assert project.read("train.py") == expected
    project.fix(unsafe=True, select=["DSL502"])
    assert project.read("train.py") == expected


def test_no_fix_when_the_condition_reads_more_than_the_rank(project):
    fixture(project, "deepspeed_rank0_save.py")
    findings = project.check(select=["DSL502"]).findings
    assert [f.fix is None for f in findings] == [True, True]


def test_non_deepspeed_save_checkpoint_is_not_an_engine(project):
    project.write({"train.py": HEADER + "def main(rank, saver):\n    if rank == 0:\n        saver.save_checkpoint('x')\n"})
    assert rows(project, "DSL502") == []


def test_condition_that_lets_fsdp_ranks_through_is_not_flagged(project):
    project.write({"train.py": (
        "from accelerate import Accelerator\n\naccelerator = Accelerator()\n"
        "is_fsdp = getattr(accelerator.state, 'fsdp_plugin', None) is not None\n"
        "if accelerator.is_main_process or is_fsdp:\n    if step % 500 == 0:\n        accelerator.save_state('ckpt')\n"
    )})
    assert rows(project, "DSL502") == []


def test_diffusers_style_save_state_with_deepspeed_support_is_flagged(project):
    project.write({"train.py": (
        "from accelerate import Accelerator\nfrom accelerate.state import AcceleratorState\n\n"
        "accelerator = Accelerator()\ndeepspeed_plugin = AcceleratorState().deepspeed_plugin\n"
        "if step % 500 == 0:\n    if accelerator.is_main_process:\n        accelerator.save_state('ckpt')\n"
    )})
    assert rows(project, "DSL502") == [(8, "DSL502")]


def test_custom_strategy_rank_zero_helper_gates(project):
    # OpenRLHF-style strategy object: `if strategy.is_rank_0(): dist.barrier()`
    project.write({"train.py": HEADER + "def main(strategy):\n    if strategy.is_rank_0():\n        prep()\n        dist.barrier()\n"})
    assert rows(project, "DSL501") == [(8, "DSL501")]
