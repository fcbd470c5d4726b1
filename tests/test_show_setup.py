"""`dslint check --show-setup`: each fact of a setup with the file:line it comes from, and each fact
that stayed unknown with why (issue 11)."""
from __future__ import annotations

import subprocess
import sys

FILES = {
    "jobs/pretrain.slurm": "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\ncd training\n"
                           "srun torchrun --nnodes 2 --nproc_per_node 4 train.py --deepspeed_config configs/ds.json\n",
    "run_eval.sh": "deepspeed --num_gpus 2 training/train.py --deepspeed_config configs/missing.json\n"
                   "python tasks/main.py\n",
    "training/configs/ds.json": '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}\n',
    "training/train.py": "import argparse, deepspeed\np = argparse.ArgumentParser()\np = deepspeed.add_config_arguments(p)\n"
                         "args = p.parse_args()\nengine, *_ = deepspeed.initialize(args=args, model=None)\n",
    "tools/retro/main.py": "import deepspeed\ndeepspeed.init_distributed()\n",
}


def _show_setup(root) -> str:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    proc = subprocess.run([sys.executable, "-m", "dslint", "check", ".", "--show-setup", "--no-cache"], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _block(text: str, launched_by: str) -> list:
    for block in text.split("\n\n"):
        if f"launched by     {launched_by}" in block:
            return [line.strip() for line in block.splitlines()]
    raise AssertionError(f"no setup launched by {launched_by} in:\n{text}")


def test_show_setup_says_where_each_fact_comes_from(tmp_path):
    slurm = _block(_show_setup(tmp_path), "jobs/pretrain.slurm:5")
    assert slurm[0] == "Training setup: training/train.py"
    assert "script          'train.py' at jobs/pretrain.slurm:5, relative to jobs/training or training, " \
           "after `cd training` at jobs/pretrain.slurm:4" in slurm
    assert "nodes           2 (--nnodes=2 at jobs/pretrain.slurm:5)" in slurm
    assert "ranks per node  4 (--nproc_per_node=4 at jobs/pretrain.slurm:5)" in slurm
    assert "world size      8 (nodes x ranks per node)" in slurm
    [config] = [line for line in slurm if line.startswith("config ")]
    assert config.startswith("config          training/configs/ds.json via ")
    assert config.endswith("'configs/ds.json' at jobs/pretrain.slurm:5, training/train.py:5 [read by: deepspeed]")


def test_show_setup_says_which_facts_stayed_unknown_and_why(tmp_path):
    text = _show_setup(tmp_path)
    evaluation = _block(text, "run_eval.sh:1")
    assert "config          unknown ('configs/missing.json' is not found relative to ., training)" in evaluation
    assert "nodes           1 (the default of deepspeed)" in evaluation
    assert "Launch lines whose script stayed unknown (no setup is linked to them):\n" \
           "  run_eval.sh:2  'tasks/main.py' is not found relative to ." in text
    assert "tools/retro/main.py" not in text.split("Launch lines whose script")[1]


def test_show_setup_with_a_node_count_from_a_variable(tmp_path):
    """A node count the launch line reads from an unset variable is unknown, said with why (the
    explanation of it once crashed: it asked the setup for a field it does not have)."""
    (tmp_path / "run.sh").write_text("torchrun --nnodes=${NNODES} --nproc_per_node=8 train.py\n")
    (tmp_path / "train.py").write_text("import os, torch, torch.distributed as dist\n"
                                       "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
                                       "dist.init_process_group('nccl')\n")
    proc = subprocess.run([sys.executable, "-m", "dslint", "check", ".", "--show-setup", "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    block = _block(proc.stdout, "run.sh:1")
    assert "ranks per node  8 (--nproc_per_node=8 at run.sh:1)" in block
    [nodes] = [line for line in block if line.startswith("nodes ")]
    assert "unknown" in nodes


def test_a_fifo_named_as_a_hostfile_or_an_args_file_does_not_block_the_check(tmp_path):
    """Files the project phase reads beside the checked ones (a `deepspeed -H` hostfile, the
    TrainingArguments file a launch line names) are read as regular files only."""
    import os

    os.mkfifo(tmp_path / "hostfile")
    os.mkfifo(tmp_path / "args.json")
    (tmp_path / "run.sh").write_text("deepspeed -H hostfile train.py\ntorchrun --nproc_per_node=2 sft.py args.json\n")
    (tmp_path / "train.py").write_text("import deepspeed\nengine, *_ = deepspeed.initialize(model=None, config='ds.json')\n")
    (tmp_path / "sft.py").write_text("import sys\nfrom transformers import HfArgumentParser, TrainingArguments\n"
                                     "(args,) = HfArgumentParser(TrainingArguments).parse_json_file(sys.argv[1])\n")
    proc = subprocess.run([sys.executable, "-m", "dslint", "check", ".", "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
