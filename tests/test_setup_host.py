"""DSL201–DSL205: threads, binding, pinned memory and loader workers across launch line and script."""
from __future__ import annotations

from dslint.docs import rule_doc

TRAIN = """import deepspeed
import torch

model = torch.nn.Linear(8, 8)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
"""
OFFLOAD = '{"train_micro_batch_size_per_gpu": 2, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, ' \
          '"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}'
NO_OFFLOAD = '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}'


def test_deepspeed_launcher_without_binding_gets_the_flag(project):
    project.write({"run.sh": "#!/bin/bash\nNCCL_DEBUG=INFO deepspeed --num_gpus 4 train.py --epochs 3\n",
                   "train.py": TRAIN, "ds.json": OFFLOAD})
    assert project.codes() == ["DSL201"]
    project.fix()
    assert project.read("run.sh") == "#!/bin/bash\nNCCL_DEBUG=INFO deepspeed --bind_cores_to_rank --num_gpus 4 train.py --epochs 3\n"
    project.fix()
    assert project.codes() == []


def test_no_offload_or_thread_limit_or_one_rank_is_clean(project):
    project.write({"a.sh": "deepspeed --num_gpus 4 train.py\n", "train.py": TRAIN, "ds.json": NO_OFFLOAD})
    assert project.codes() == []
    project.write({"a.sh": "OMP_NUM_THREADS=8 deepspeed --num_gpus 4 train.py\n", "ds.json": OFFLOAD})
    assert project.codes() == []
    project.write({"a.sh": "deepspeed --num_gpus 1 train.py\n"})
    assert project.codes() == []


def test_unknown_gpu_count_says_nothing_until_settings_give_it(project):
    project.write({"a.sh": "deepspeed train.py\n", "train.py": TRAIN, "ds.json": OFFLOAD})
    assert project.codes() == []
    assert project.codes(**{"nproc-per-node": 8}) == ["DSL201"]


def test_torchrun_default_threads_fix_uses_cpu_cores_setting(project):
    project.write({"train.sh": "export NCCL_DEBUG=WARN\ntorchrun --nnodes 1 --nproc_per_node=4 train.py\n",
                   "train.py": TRAIN, "ds.json": OFFLOAD})
    assert project.codes() == ["DSL202"]
    project.fix(**{"cpu-cores": 64})
    assert project.read("train.sh") == "export NCCL_DEBUG=WARN\nOMP_NUM_THREADS=16 torchrun --nnodes 1 --nproc_per_node=4 train.py\n"
    assert project.codes() == []


def test_torchrun_with_threads_set_in_the_script_is_clean(project):
    project.write({"train.sh": "torchrun --nproc_per_node=4 train.py\n",
                   "train.py": "import os\nos.environ['OMP_NUM_THREADS'] = '8'\n" + TRAIN, "ds.json": OFFLOAD})
    assert project.codes() == []


def test_makefile_recipe_is_reported_without_a_fix(project):
    project.write({"Makefile": "train:\n\ttorchrun --nproc_per_node=4 train.py\n", "train.py": TRAIN, "ds.json": OFFLOAD})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL202"] and findings[0].fix is None


def test_lightning_offload_under_torchrun_is_starved(project):
    project.write({"run.sh": "torchrun --nproc_per_node 2 train.py\n",
                   "train.py": "import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n"
                               "trainer = L.Trainer(devices=2, strategy=DeepSpeedStrategy(stage=2, offload_optimizer=True, pin_memory=True))\n"})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL202"]
    assert "torchrun sets OMP_NUM_THREADS=1" in findings[0].message
    assert "1.11 s against 0.64 s" in rule_doc("DSL202")  # the measurement lives in the rule's document


def test_pytorch_lightning_string_fix_imports_from_pytorch_lightning(project):
    project.write({"train.py": "import pytorch_lightning as pl\n\ntrainer = pl.Trainer(devices=4, strategy='deepspeed_stage_2_offload')\n"})
    assert project.codes() == ["DSL203"]
    project.fix()
    assert project.read("train.py") == (
        "import pytorch_lightning as pl\nfrom pytorch_lightning.strategies import DeepSpeedStrategy\n\n"
        "trainer = pl.Trainer(devices=4, strategy=DeepSpeedStrategy(stage=2, offload_optimizer=True, pin_memory=True))\n")
    assert project.codes() == []


def test_strategy_with_config_or_explicit_pin_memory_is_clean(project):
    project.write({"train.py": "import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n"
                               "a = L.Trainer(strategy=DeepSpeedStrategy(offload_optimizer=True, pin_memory=False))\n"
                               "b = L.Trainer(strategy=DeepSpeedStrategy(config='ds.json', offload_optimizer=True))\n"
                               "c = L.Trainer(strategy='deepspeed_stage_3')\n"})
    assert project.codes() == []


def test_literal_workers_need_the_core_count(project):
    project.write({"run.sh": "torchrun --nproc_per_node 8 train.py\n",
                   "train.py": "import torch.distributed as dist\nfrom torch.utils.data import DataLoader, DistributedSampler\n"
                               "dist.init_process_group('nccl')\nds = list(range(10))\n"
                               "loader = DataLoader(ds, sampler=DistributedSampler(ds), num_workers=8)\n"})
    assert project.codes() == []
    findings = project.check(**{"cpu-cores": 32}).findings
    assert [f.code for f in findings] == ["DSL204"] and "64 workers for 32 cores" in findings[0].message


def test_bind_cores_multinode(project):
    project.write({"a.sh": "deepspeed --hostfile hosts --bind_cores_to_rank train.py\n"})
    assert project.codes() == ["DSL205"]
    project.write({"a.sh": "deepspeed --hostfile hosts --launcher impi --bind_cores_to_rank train.py\n"})
    assert project.codes() == []
    project.write({"a.sh": "deepspeed --num_gpus 8 --bind_cores_to_rank train.py\n"})
    assert project.codes() == []


def test_threads_exported_by_a_shell_file_the_launch_sources(project):
    launch = "#!/bin/bash\nsource scripts/env.sh\ntorchrun --nproc_per_node=4 train.py\n"
    project.write({"run.sh": launch, "train.py": TRAIN, "ds.json": OFFLOAD,
                   "scripts/env.sh": "export NCCL_DEBUG=WARN\nexport OMP_NUM_THREADS=12\n"})
    assert project.codes() == []
    project.write({"scripts/env.sh": "export NCCL_DEBUG=WARN\n"})
    assert project.codes() == ["DSL202"]
    project.write({"run.sh": launch.replace("source scripts/env.sh", ". scripts/missing.sh")})
    assert project.codes() == ["DSL202"]  # (a file the repository does not have: nothing known to set it)
