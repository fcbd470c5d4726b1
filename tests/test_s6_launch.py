"""The launch layer and the pinned frameworks: Callback hooks the pinned Lightning no longer calls,
the dependency files nearest a script."""
from __future__ import annotations

from dslint.facts.dependencies import oldest_allowed

SAVER = """import lightning.pytorch as pl
from lightning.pytorch.callbacks import Callback


class SnapshotOnStop(Callback):
    def __init__(self, path):
        self.path = path

    def {hook}(self, trainer, pl_module{extra}):
        if trainer.is_global_zero:
            trainer.save_checkpoint(self.path)


def main(model):
    trainer = pl.Trainer(accelerator="gpu", devices=8, strategy="fsdp", callbacks=[SnapshotOnStop("last.ckpt")])
    trainer.fit(model)
"""


def saver(hook="on_keyboard_interrupt", extra=""):
    return SAVER.format(hook=hook, extra=extra)


def test_the_oldest_release_comes_from_the_files_nearest_the_script(tmp_path):
    (tmp_path / "requirements.txt").write_text("lightning>=2.0\n")
    demo = tmp_path / "recipes" / "demo"
    demo.mkdir(parents=True)
    assert oldest_allowed(tmp_path, "lightning", demo) == (2, 0)
    (tmp_path / "recipes" / "environment.yml").write_text("dependencies:\n  - pytorch-lightning=1.6.5\n")
    assert oldest_allowed(tmp_path, "lightning", demo) == (1, 6, 5)
    (demo / "requirements.txt").write_text("torch\nlightning>=1.8,<2.1\n")
    assert oldest_allowed(tmp_path, "lightning", demo) == (1, 8)


def test_a_file_without_a_lower_bound_leaves_the_oldest_release_unknown(tmp_path):
    (tmp_path / "requirements.txt").write_text("lightning<3\n")
    assert oldest_allowed(tmp_path, "lightning", tmp_path) is None
    (tmp_path / "requirements-dev.txt").write_text("lightning==2.3.0\n")
    assert oldest_allowed(tmp_path, "lightning", tmp_path) is None  # (either file may be the one installed)
    (tmp_path / "requirements.txt").write_text("lightning>=2.1\n")
    assert oldest_allowed(tmp_path, "lightning", tmp_path) == (2, 1)


def test_no_file_names_the_framework(tmp_path):
    (tmp_path / "requirements.txt").write_text("lightning-bolts>=0.7\ntorch==2.3\n")
    assert oldest_allowed(tmp_path, "lightning", tmp_path) is None


def test_a_save_in_a_hook_the_pinned_lightning_never_calls_is_dead_code(project):
    project.write({"examples/demo/train.py": saver(), "examples/demo/requirements.txt": "lightning==2.2.0\n"})
    assert "DSL502" not in project.codes()
    project.write({"examples/demo/train.py": saver("on_exception", ", exception")})
    assert "DSL502" in project.codes()


def test_a_removed_hook_is_kept_when_the_release_is_unknown_or_still_calls_it(project):
    project.write({"train.py": saver("on_epoch_end")})
    assert "DSL502" in project.codes()  # no pin: which releases run is unknown
    project.write({"requirements.txt": "pytorch-lightning>=1.7\n"})
    assert "DSL502" in project.codes()  # 1.7 still calls on_epoch_end (removed in 1.8)
    project.write({"requirements.txt": "pytorch-lightning>=1.8\n"})
    assert "DSL502" not in project.codes()


def test_the_root_pin_yields_to_the_one_beside_the_script(project):
    project.write({"requirements.txt": "lightning>=2.1\n", "examples/old/train.py": saver(),
                   "examples/old/environment.yaml": "dependencies:\n  - pip:\n    - lightning==2.1.0\n"})
    assert "DSL502" not in project.codes()
    project.write({"examples/old/environment.yaml": "dependencies:\n  - pip:\n    - pytorch-lightning==1.6.5\n"})
    assert "DSL502" in project.codes()  # 1.6.5 calls on_keyboard_interrupt


def test_a_removed_hook_the_project_calls_itself_runs(project):
    text = saver() + "\n\ndef stop(callback, trainer, model):\n    callback.on_keyboard_interrupt(trainer, model)\n"
    project.write({"train.py": text, "requirements.txt": "lightning==2.2.0\n"})
    assert "DSL502" in project.codes()


TRAIN = """import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
"""
JOB = """#!/bin/bash
#SBATCH --nodes=1
#SBATCH --gpus-per-node=4
torchrun {options} --nproc_per_node 4 --master_port 29512 train.py
"""


def test_a_standalone_or_c10d_torchrun_does_not_meet_at_its_master_port(project):
    project.write({"train.py": TRAIN, "job.sbatch": JOB.format(options="")})
    assert "DSL703" in project.codes()
    for options in ("--standalone", "--rdzv_backend=c10d --rdzv_endpoint=localhost:0", "--rdzv-backend c10d",
                    "--rdzv-endpoint node0:29400"):
        project.write({"job.sbatch": JOB.format(options=options)})
        assert "DSL703" not in project.codes(), options
    project.write({"job.sbatch": JOB.format(options="--rdzv_backend static")})
    assert "DSL703" in project.codes()
    project.write({"job.sbatch": JOB.replace("torchrun", "PET_STANDALONE=1 torchrun").format(options="")})
    assert "DSL703" not in project.codes()


LOADER = """import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("nccl")
shards = list(range(4096))
loader = DataLoader(shards, batch_size=16, sampler=DistributedSampler(shards), num_workers={workers})
"""


def test_a_worker_count_bounded_by_a_literal_is_not_sized_for_the_machine(project):
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    for workers in ("min(6, os.cpu_count())", "min(os.cpu_count() or 1, 6)", "os.cpu_count() // 4"):
        project.write({"train.py": LOADER.format(workers=workers)})
        assert "DSL204" not in project.codes(), workers
    for workers in ("os.cpu_count() - 2", "max(2, os.cpu_count() - 1)", "os.cpu_count() or 2"):
        project.write({"train.py": LOADER.format(workers=workers)})
        assert "DSL204" in project.codes(), workers


def test_a_bounded_worker_count_is_checked_against_known_cores(project):
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n",
                   "train.py": LOADER.format(workers="min(6, os.cpu_count())")})
    assert "DSL204" in project.codes(cpu_cores=16)  # 4 ranks x 6 workers on 16 cores
    assert "DSL204" not in project.codes(cpu_cores=64)


def test_options_kept_in_variables_that_a_quoted_assignment_joins(project):
    from dslint.sources.launch.parse import parse_launch_file

    text = ('HOSTS="--hostfile=hosts.txt"\nBIND="--bind_cores_to_rank"\nDS_ARGS="$HOSTS ${BIND}"\n'
            "deepspeed $DS_ARGS pretrain.py\n")
    launcher = parse_launch_file(text).commands[0].launcher("deepspeed")
    assert [(o.key, o.value) for o in launcher.option_list] == [("hostfile", "hosts.txt"), ("bind_cores_to_rank", None)]
    project.write({"hosts.txt": "node-a slots=8\nnode-b slots=8\n", "launch.sh": text,
                   "pretrain.py": "import deepspeed\ndeepspeed.init_distributed()\n"})
    assert "DSL205" in project.codes()
    impi = text.replace('${BIND}"', '${BIND} $RUNNER"').replace("DS_ARGS=", 'RUNNER="--launcher impi"\nDS_ARGS=')
    project.write({"launch.sh": impi})
    assert "DSL205" not in project.codes()


def _torchrun(text):
    from dslint.sources.launch.parse import parse_launch_file

    command = parse_launch_file(text).commands[-1]
    return [(o.key, o.value) for o in command.launcher("torchrun").option_list], command.nproc_per_node


def test_launcher_options_kept_in_a_bash_array():
    text = ("GPUS=8\nDIST=(\n    --nproc_per_node $GPUS   # one per GPU\n    --nnodes 1\n)\n"
            'DIST+=(--master_port 29533)\ntorchrun "${DIST[@]}" finetune.py --lr 1e-5\n')
    assert _torchrun(text) == ([("nproc_per_node", "8"), ("nnodes", "1"), ("master_port", "29533")], 8)
    assert _torchrun(text.replace('"${DIST[@]}"', "${DIST[*]}"))[1] == 8
    assert _torchrun(text.replace('"${DIST[@]}"', "$DIST 4"))[1] == 4  # `$DIST` is the first element


def test_an_array_element_dslint_cannot_split_is_a_word_it_cannot_read():
    options, nproc = _torchrun('DIST=(--nnodes 1 "$EXTRA ARGS")\ntorchrun ${DIST[@]} --nproc_per_node 2 train.py\n')
    assert options[0] == ("nnodes", "1") and nproc == 2
    _, nproc = _torchrun('DIST=(--nnodes 1 "$EXTRA")\ntorchrun --nproc_per_node 2 ${DIST[@]} train.py\n')
    assert nproc is None  # ($EXTRA may set it again)
    _, nproc = _torchrun('DIST=(--nproc_per_node 4)\nunset DIST\ntorchrun --nproc_per_node 2 ${DIST[@]} train.py\n')
    assert nproc is None


RECIPE = """import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def recipe_main(cfg_path):
    dist.init_process_group("nccl")
    rows = list(range(512))
    return DataLoader(rows, batch_size=4, sampler=DistributedSampler(rows), num_workers=os.cpu_count())


if __name__ == "__main__":
    recipe_main("configs/sft.yaml")
"""


def test_tune_run_with_torchrun_options_starts_the_ranks_of_a_recipe_file(project):
    project.write({"recipes/sft.py": RECIPE,
                   "finetune.sh": "tune run --nnodes 1 --nproc_per_node 4 recipes/sft.py --config configs/sft.yaml\n"})
    assert "DSL204" in project.codes()  # 4 ranks per node, each sized for the machine
    project.write({"finetune.sh": "tune run recipes/sft.py --config configs/sft.yaml epochs=1\n"})
    assert "DSL204" not in project.codes()  # no torchrun option: one process


def test_tune_run_reads_as_torchrun_only_when_it_is_given_a_torchrun_option():
    from dslint.sources.launch.parse import parse_launch_file

    text = ("tune run --nproc_per_node 8 full_finetune_distributed --config llama3/8B_full\n"
            "tune run lora_finetune_single_device --config my.yaml\n"
            "tune run --nproc_per_node 2 --master_port 29533 recipes/dpo.py --config dpo.yaml\n")
    first, single, custom = parse_launch_file(text).commands
    assert [lc.kind for lc in first.launchers] == ["torchrun"] and first.nproc_per_node == 8
    assert first.module == "full_finetune_distributed" and first.script is None
    assert [a.value for a in first.script_args] == ["--config", "llama3/8B_full"]
    assert [lc.kind for lc in single.launchers] == ["python"] and single.module == "lora_finetune_single_device"
    assert custom.script == "recipes/dpo.py" and custom.master_port is None  # (standalone: a free port)


def test_no_ssh_nodes_run_their_own_local_launcher_which_binds(project):
    # (runner.py: multi_node_exec needs ssh; with --no_ssh each node's local launch gets --bind_cores_to_rank)
    launch = "deepspeed --hostfile hosts.txt --bind_cores_to_rank pretrain.py\n"
    project.write({"hosts.txt": "node-a slots=8\nnode-b slots=8\n", "launch.sh": launch,
                   "pretrain.py": "import deepspeed\ndeepspeed.init_distributed()\n"})
    assert "DSL205" in project.codes()
    project.write({"launch.sh": launch.replace("--hostfile", "--no_ssh --node_rank $NODE_RANK --hostfile")})
    assert "DSL205" not in project.codes()


def test_a_cd_to_a_container_folder_this_machine_lacks_keeps_the_scripts_found(project):
    from dslint.facts.link import link_setups

    project.write({"k8s/entrypoint.sh": "cd /nonexistent-workspace-dslint\nexec torchrun --nproc_per_node 8 train.py\n",
                   "train.py": "import torch.distributed as dist\ndist.init_process_group('nccl')\n"})
    setups = link_setups(project.check().project)
    assert [s.script_path.rsplit("/", 1)[-1] for s in setups] == ["train.py"] and setups[0].procs_per_node == 8
