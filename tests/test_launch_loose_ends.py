"""The launch layer's loose ends (issue 11): launcher knowledge read from the one LAUNCHERS table, and
`cd "$(dirname "$0")"` as the launch file's own folder."""
from __future__ import annotations

import pytest

from dslint.facts.link import link_setups
from dslint.sources.launch import launchers
from dslint.sources.launch import parse_launch_file
from dslint.sources.launch.markdown import has_launch_block

DS_SCRIPT = ("import argparse, deepspeed\np = argparse.ArgumentParser()\np = deepspeed.add_config_arguments(p)\n"
             "args = p.parse_args()\nengine, *_ = deepspeed.initialize(args=args, model=None)\n")


# -- DSL202 reads the launchers' OMP behaviour from the table ---------------------------------

def test_dsl202_considers_exactly_the_launchers_whose_table_row_may_set_one_thread():
    from dslint.rules import host

    expected = {kind for kind, spec in launchers.LAUNCHERS.items()
                if spec.omp_default in (launchers.OMP_ONE_IF_SEVERAL, launchers.OMP_THREADS_OPTION)}
    assert host.ONE_THREAD_LAUNCHERS == frozenset(expected)
    assert {"torchrun", "torch.distributed.launch", "accelerate"} <= host.ONE_THREAD_LAUNCHERS
    assert not {"deepspeed", "lightning", "srun", "mpirun", "python"} & host.ONE_THREAD_LAUNCHERS


# -- Markdown reads the launcher words of the table -------------------------------------------

@pytest.mark.parametrize("line", [
    "orterun -np 4 python train.py",  # a launcher of the table the old word list lacked
    "mpiexec -n 2 python train.py",
    "lightning run model --devices 2 train.py",
])
def test_an_untagged_readme_block_starting_with_any_table_launcher_is_a_launch_block(line):
    assert has_launch_block(f"# Training\n\n```\n{line}\n```\n")


def test_an_untagged_block_of_other_commands_is_not_a_launch_block():
    assert not has_launch_block("```\npip install -r requirements.txt\ngit clone repo\n```\n")


# -- cd to the launch file's own folder -------------------------------------------------------

@pytest.mark.parametrize("cd", [
    'cd "$(dirname "$0")"',
    "cd $(dirname $0)",
    'cd "${0%/*}"',
    "cd ${0%/*}",
    'cd "$(dirname "${BASH_SOURCE[0]}")"',
    "cd `dirname $0`",
    'cd "$(cd "$(dirname "$0")" && pwd)"',
    'cd "$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )"',
    'cd "$(dirname "$(realpath "$0")")"',
    'HERE="$(dirname "$0")"\ncd "$HERE"',
    'HERE=$(cd $(dirname $0); pwd)\ncd $HERE',
])
def test_cd_to_the_scripts_own_folder_is_that_folder(cd):
    [command] = parse_launch_file(f"#!/bin/bash\n{cd}\ntorchrun --nproc_per_node 2 train.py\n").commands
    assert command.cwd is not None
    assert (command.cwd.value, command.cwd.script_relative) == (".", True)


def test_a_path_after_the_scripts_folder_and_a_later_cd_join_it():
    script = 'cd "$(dirname "$0")"/../..\npython a.py\ncd sub\npython b.py\ncd ${0%/*}/x\npython c.py\n'
    assert [(c.script, c.cwd.value, c.cwd.script_relative) for c in parse_launch_file(script).commands] == [
        ("a.py", "../..", True), ("b.py", "../../sub", True), ("c.py", "x", True)]


@pytest.mark.parametrize("cd", [
    'cd "$(dirname "$1")"',  # an argument's folder, not the script's
    'cd "$(dirname "$0")/$SUB"',  # what follows is not known
    "cd $(git rev-parse --show-toplevel)",
    'cd "$(dirname "$0")"/$(date)',
])
def test_other_substitutions_leave_the_folder_unknown(cd):
    [command] = parse_launch_file(f"{cd}\npython train.py\n").commands
    assert command.cwd is not None and command.cwd.value is None


def test_the_scripts_folder_is_used_only_by_cd():
    [command] = parse_launch_file('HERE="$(dirname "$0")"\ntorchrun --nproc_per_node 2 "$HERE/train.py"\n').commands
    assert command.script is None  # unknown as a path, as before: only cd gives it a meaning
    assert "HERE" not in parse_launch_file('HERE="$(dirname "$0")"\npython x.py\n').variables


def test_dollar_zero_in_a_readme_block_is_the_shell_not_a_script_folder():
    text = '# Run\n\n```bash\ncd "$(dirname "$0")"\ntorchrun --nproc_per_node 2 train.py\n```\n'
    [command] = parse_launch_file(text, "README.md").commands
    assert command.cwd is not None and command.cwd.value is None


def test_a_launch_after_cd_to_its_own_folder_links_only_beside_it(project):
    # Run from the repository root as `bash scripts/zero/run.sh`: the script and config are found in
    # scripts/zero, never in a folder above it that holds the same names.
    project.write({
        "scripts/zero/run.sh": '#!/bin/bash\ncd "$(dirname "$0")"\n'
                               "deepspeed --num_gpus 4 train.py --deepspeed_config ds.json\n",
        "scripts/zero/train.py": DS_SCRIPT,
        "scripts/zero/ds.json": '{"train_batch_size": 16, "zero_optimization": {"stage": 2}}',
        "scripts/train.py": DS_SCRIPT,
        "train.py": DS_SCRIPT,
        "ds.json": '{"train_batch_size": 64, "zero_optimization": {"stage": 3}}',
    })
    result = project.check()
    [setup] = [s for s in link_setups(result.project) if s.command is not None]
    assert (setup.script_path, setup.config.path) == ("scripts/zero/train.py", "scripts/zero/ds.json")


def test_cd_above_its_own_folder_links_from_there(project):
    project.write({
        "examples/bert/scripts/run.sh": '#!/bin/bash\ncd "$(dirname "$0")/.."\n'
                                        "deepspeed --num_gpus 2 train.py --deepspeed_config ds.json\n",
        "examples/bert/train.py": DS_SCRIPT,
        "examples/bert/ds.json": '{"train_batch_size": 16, "zero_optimization": {"stage": 1}}',
        "examples/bert/scripts/train.py": DS_SCRIPT,  # in the script's own folder: not where it runs
    })
    result = project.check()
    [setup] = [s for s in link_setups(result.project) if s.command is not None]
    assert (setup.script_path, setup.config.path) == ("examples/bert/train.py", "examples/bert/ds.json")


def test_a_cd_in_one_readme_block_does_not_move_the_next_block(project):
    # SimPO's README: an install block clones another repository and cds into it; the training
    # block after it runs from the repository's own folder.
    project.write({
        "README.md": "## Install\n\n```shell\ngit clone https://github.com/huggingface/alignment-handbook.git\n"
                     "cd ./alignment-handbook/\npython -m pip install .\n```\n\n## Train\n\n```shell\n"
                     "accelerate launch --num_processes 4 scripts/run.py recipes/a.yaml\n```\n",
        "scripts/run.py": "import torch\nfrom accelerate import Accelerator\naccelerator = Accelerator()\n",
    })
    result = project.check()
    [command] = [c for c in result.project.launches["README.md"].commands if c.script == "scripts/run.py"]
    assert command.cwd is None
    [setup] = [s for s in link_setups(result.project) if s.command is not None and s.script_path]
    assert setup.script_path == "scripts/run.py"
