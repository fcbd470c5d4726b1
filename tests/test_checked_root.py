"""A project checked from another working directory (`dslint check ../other/project`) links its
launch files as when checked from inside it: a launch file's relative paths may be relative to
any folder up to the checked one, not only up to the working directory."""
from __future__ import annotations

import subprocess
import sys

FILES = {
    "slurm/job.sbatch": "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\n"
                        "srun torchrun --nnodes=4 --nproc_per_node=8 train.py --deepspeed ds_config.json\n",
    "train.py": "import argparse, deepspeed\np = argparse.ArgumentParser()\np.add_argument('--deepspeed')\n"
                "args = p.parse_args()\nengine, *_ = deepspeed.initialize(model=None, config=args.deepspeed)\n",
    "ds_config.json": '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,\n'
                      ' "gradient_accumulation_steps": 1}\n',
}


def _check(cwd, target) -> str:
    proc = subprocess.run([sys.executable, "-m", "dslint", "check", str(target), "--no-cache", "-o", "concise"],
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def test_a_project_checked_from_elsewhere_links_like_from_inside(tmp_path):
    project, elsewhere = tmp_path / "deep" / "project", tmp_path / "elsewhere"
    for name, text in FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    elsewhere.mkdir()
    inside = _check(project, ".")
    assert "ds_config.json:1:2: DSL610" in inside  # 4 x 1 x 32 = 128, not 64
    outside = _check(elsewhere, project)
    assert f"{project}/ds_config.json:1:2: DSL610" in outside


def test_a_launch_outside_every_checked_folder_still_stays_unlinked(tmp_path):
    """Only folders the run was given widen the search: the launch's own folder and the working
    directory remain the others."""
    project = tmp_path / "project"
    for name, text in FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    (tmp_path / "elsewhere").mkdir()
    # only the sbatch folder is given: train.py above it is not part of the run
    assert "DSL610" not in _check(tmp_path / "elsewhere", project / "slurm")
