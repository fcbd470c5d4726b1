"""The pre-commit hooks, run for real: `pre-commit try-repo` against this checkout.

try-repo clones the hook repository at its HEAD, so the test first commits a snapshot of the
*working tree* (tracked and untracked, not ignored) into a temporary repository: the hooks under
test are the current code, committed or not. pre-commit then builds its own virtualenv and
pip-installs that snapshot (about a minute here, from the configured package index and wheel
folder), which is why the test is marked slow: `-m "not slow"` skips it, `./dev/test` runs it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

TRAIN = '''import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group(backend="nccl")
state = torch.load("ckpt.pt")
dataset = list(range(100))
sampler = DistributedSampler(dataset, shuffle=True)
loader = DataLoader(dataset, batch_size=8, sampler=sampler)
for epoch in range(3):
    for batch in loader:
        pass
'''
CONFIG = '{\n  "train_micro_batch_size_per_gpu": 4,\n  "zero_optimization": {"stage": 2}\n}\n'
LAUNCH = "torchrun --nproc_per_node=2 train.py --deepspeed_config ds_config.json\n"
GIT = ["git", "-c", "user.name=dslint tests", "-c", "user.email=tests@dslint.invalid", "-c", "commit.gpgsign=false"]


def git(folder: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=folder, check=True, capture_output=True, text=True).stdout


def snapshot_of_working_tree(target: Path) -> Path:
    """A git repository holding exactly the files of this checkout's working tree."""
    files = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, files):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git(target, "init", "-q")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "snapshot of the working tree")
    return target


def try_repo(project: Path, hooks: Path, hook: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}
    return subprocess.run([str(PRE_COMMIT), "try-repo", str(hooks), hook, "--all-files"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=900)


def expected_fix(tmp_path: Path) -> str:
    """What `dslint fix` (this code, in-process) makes of the broken script."""
    from dslint import engine
    from dslint.settings import Settings

    folder = tmp_path / "expected"
    folder.mkdir()
    for name, text in (("train.py", TRAIN), ("ds_config.json", CONFIG), ("launch.sh", LAUNCH)):
        (folder / name).write_text(text)
    engine.fix([str(folder)], Settings(), root=folder)
    return (folder / "train.py").read_text()


@pytest.mark.skipif(not PRE_COMMIT.exists() or shutil.which("git") is None, reason="needs pre-commit and git")
def test_check_and_fix_hooks_on_a_broken_training_setup(tmp_path):
    hooks = snapshot_of_working_tree(tmp_path / "dslint-snapshot")
    project = tmp_path / "project"
    project.mkdir()
    for name, text in (("train.py", TRAIN), ("ds_config.json", CONFIG), ("launch.sh", LAUNCH),
                       ("package.json", '{"name": "not a deepspeed config"}\n'), ("README.md", "# demo\n")):
        (project / name).write_text(text)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "broken setup")
    home = tmp_path / "pre-commit-home"

    check = try_repo(project, hooks, "dslint", home)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "dslint" in check.stdout and "Failed" in check.stdout
    assert "DSL102" in check.stdout and "DSL302" in check.stdout
    assert (project / "train.py").read_text() == TRAIN  # the check hook never writes

    fix = try_repo(project, hooks, "dslint-fix", home)
    assert fix.returncode == 1, fix.stdout + fix.stderr
    assert "files were modified by this hook" in fix.stdout
    fixed = (project / "train.py").read_text()
    assert fixed == expected_fix(tmp_path)
    assert 'torch.load("ckpt.pt", map_location="cpu")' in fixed and "sampler.set_epoch(epoch)" in fixed
    assert (project / "ds_config.json").read_text() == CONFIG

    git(project, "add", "-A")
    again = try_repo(project, hooks, "dslint-fix", home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Passed" in again.stdout
    clean = try_repo(project, hooks, "dslint", home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
