"""facts/link.py: launch line -> script -> config, and what --show-setup prints."""
from __future__ import annotations

from pathlib import Path

from dslint import engine
from dslint.facts.link import describe_setups, link_setups
from dslint.settings import Settings


def _project(root: Path, **settings):
    values = Settings.model_validate(settings)
    sources, _ = engine.discover([str(root)], values, root)
    return engine.build_project(root, engine.check_files(sources, values)), values


def test_deepspeed_config_argument_from_add_config_arguments(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/run.sh").write_text("cd ..\ndeepspeed --num_gpus 4 --num_nodes 1 train.py --deepspeed --deepspeed_config cfg/z2.json\n")
    (tmp_path / "train.py").write_text("import argparse, deepspeed\np = argparse.ArgumentParser()\n"
                                       "p = deepspeed.add_config_arguments(p)\nargs = p.parse_args()\n"
                                       "engine, *_ = deepspeed.initialize(args=args, model=None)\n")
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg/z2.json").write_text('{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2}}')
    project, settings = _project(tmp_path)
    [setup] = link_setups(project, settings)
    assert setup.config.path.endswith("cfg/z2.json") and setup.world_size == 4 and setup.spawner == "launcher"
    text = describe_setups(project, settings)
    assert "world size      4" in text and "z2.json" in text and "all cores" in text


def test_srun_under_sbatch_gives_nodes_and_tasks(tmp_path):
    (tmp_path / "job.slurm").write_text("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\nsrun python train.py\n")
    (tmp_path / "train.py").write_text("import torch.distributed as dist\ndist.init_process_group('nccl')\n")
    project, settings = _project(tmp_path)
    [setup] = link_setups(project, settings)
    assert (setup.nodes, setup.procs_per_node, setup.world_size, setup.spawner) == (2, 8, 16, "launcher")


def test_lightning_python_launch_and_strategy_config(tmp_path):
    (tmp_path / "run.sh").write_text("python fit.py\n")
    (tmp_path / "fit.py").write_text("import lightning as L\nL.Trainer(devices=4, num_nodes=1, strategy='deepspeed_stage_3_offload').fit(None)\n")
    project, settings = _project(tmp_path)
    [setup] = link_setups(project, settings)
    assert setup.procs_per_node == 4 and setup.spawner == "framework" and setup.config.consumer == "lightning"
    assert setup.offload_devices() == ("cpu", "cpu")
    assert setup.threads_per_rank == "cores // devices"


def test_unknown_facts_stay_unknown_and_settings_fill_them(tmp_path):
    (tmp_path / "run.sh").write_text("torchrun --nproc_per_node=$NGPU train.py\n")
    (tmp_path / "train.py").write_text("import deepspeed\ndeepspeed.initialize(model=None, config=CONFIG)\n")
    project, settings = _project(tmp_path)
    [setup] = link_setups(project, settings)
    assert setup.procs_per_node is None and setup.world_size is None and setup.config.path is None
    assert "unknown" in describe_setups(project, settings)
    project, settings = _project(tmp_path, **{"nproc-per-node": 8})
    [setup] = link_setups(project, settings)
    assert setup.world_size == 8 and setup.notes["nproc_per_node"] == "nproc-per-node in [tool.dslint]"


def test_accelerate_config_file_gives_processes_and_the_deepspeed_config(tmp_path):
    import pytest

    pytest.importorskip("yaml")
    (tmp_path / "run.sh").write_text("accelerate launch --config_file acc.yaml train.py\n")
    (tmp_path / "acc.yaml").write_text("distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 8\n"
                                       "deepspeed_config:\n  deepspeed_config_file: ds.json\n")
    (tmp_path / "train.py").write_text("from accelerate import Accelerator\nacc = Accelerator()\n")
    (tmp_path / "ds.json").write_text('{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}')
    project, settings = _project(tmp_path)
    [setup] = link_setups(project, settings)
    assert (setup.procs_per_node, setup.world_size, setup.config.consumer) == (8, 8, "accelerate")
    assert setup.config.path.endswith("ds.json")
