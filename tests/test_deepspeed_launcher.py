"""DeepSpeed's own launcher: --num_gpus/--num_nodes, --include/--exclude and hostfiles -> processes per
node and world size, as deepspeed/launcher/runner.py main computes them; unknown stays unknown."""
from __future__ import annotations

from pathlib import Path

import pytest

from dslint import engine
from dslint.facts.link import describe_setups, link_setups
from dslint.settings import Settings
from dslint.sources.launch import parse_launch_file
from dslint.sources.launch.facts import parse_hostfile

TRAIN = ("import argparse, deepspeed\np = argparse.ArgumentParser()\np = deepspeed.add_config_arguments(p)\n"
         "args = p.parse_args()\nengine, *_ = deepspeed.initialize(args=args, model=None)\n")
HOSTFILE = "# two DGX nodes\nworker-1 slots=4\n\nworker-2 slots=4\n"


def _world(line: str):
    command = parse_launch_file(line).commands[-1]
    return command.nproc_per_node, command.nnodes, command.world_size, command.reasons


@pytest.mark.parametrize("line,expected", [
    ("deepspeed --num_gpus 8 --num_nodes 2 pretrain_gpt.py --deepspeed_config ds.json\n", (8, 2, 16)),
    ("deepspeed --num_gpus=2 main.py\n", (2, 1, 2)),
    ("deepspeed --include localhost:0,1,2,3 --master_port 29501 train.py\n", (4, 1, 4)),
    ("deepspeed --include=localhost:1,3 train.py\n", (2, 1, 2)),
    ("deepspeed -i 'worker-0:0,1@worker-1:0,1' train.py\n", (2, 2, 4)),
    ("CUDA_VISIBLE_DEVICES=4,5 deepspeed train.py\n", (2, 1, 2)),
    ("export CUDA_VISIBLE_DEVICES=0,1,2\ndeepspeed train.py --deepspeed\n", (3, 1, 3)),
    # --num_gpus wins over CUDA_VISIBLE_DEVICES (runner.py ignores the variable when a resource option is given)
    ("CUDA_VISIBLE_DEVICES=2,3 deepspeed --num_gpus 1 train.py\n", (1, 1, 1)),
    ("deepspeed --num_g 4 train.py\n", (4, 1, 4)),  # argparse's abbreviation of --num_gpus
])
def test_known_worlds(line, expected):
    assert _world(line)[:3] == expected


def test_hosts_with_different_slot_counts_give_a_world_but_no_per_node_count():
    per_node, nodes, world, reasons = _world("deepspeed -H hostfile --include 'host1:0,1@host2:2' train.py\n")
    assert (per_node, nodes, world) == (None, 2, 3)
    assert reasons["nproc_per_node"] == "deepspeed gives the hosts different numbers of processes: [2, 1]"


@pytest.mark.parametrize("line,fact,reason", [
    ("deepspeed train.py --deepspeed_config ds.json\n", "nproc_per_node",
     "deepspeed starts one process per visible GPU on each host"),
    ("deepspeed --num_nodes 2 train.py\n", "nproc_per_node", "deepspeed starts one process per visible GPU on each host"),
    ("deepspeed --include localhost train.py\n", "nproc_per_node",
     "deepspeed --include leaves a host whose GPUs the files do not show"),
    ("deepspeed --exclude localhost:0 train.py\n", "nproc_per_node",
     "deepspeed --exclude leaves a host whose GPUs the files do not show"),
    ("deepspeed --include localhost:0,1 --num_gpus 2 train.py\n", "num_gpus",
     "deepspeed refuses --num_nodes/--num_gpus together with --include/--exclude"),
    ("deepspeed --num_gpus $NGPU train.py\n", "nproc_per_node", "deepspeed --num_gpus is not a literal"),
    ("deepspeed --hostfile /etc/ds/hostfile train.py\n", "nnodes", "every host of the hostfile, which dslint did not read"),
])
def test_unknown_worlds_stay_unknown_with_a_reason(line, fact, reason):
    world, reasons = _world(line)[2:]
    assert world is None
    assert reasons[fact] == reason


def test_num_nodes_without_a_hostfile_means_the_default_one():
    per_node, nodes, world, reasons = _world("deepspeed --num_nodes 2 --num_gpus 8 train.py\n")
    assert (per_node, nodes, world) == (8, 2, 16)
    assert "nnodes" not in reasons


def test_parse_hostfile_reads_slots_like_the_runner():
    assert parse_hostfile(HOSTFILE) == {"worker-1": 4, "worker-2": 4}
    assert parse_hostfile("worker-1 slots=4 max_slots=8\n") == {"worker-1": 4}
    assert parse_hostfile("worker-1\n") is None  # runner.py: "Hostfile contains a bad entry"
    assert parse_hostfile("a slots=2\na slots=2\n") is None  # the same host twice
    assert parse_hostfile("# empty\n") is None


def _setups(root: Path, files: dict, **settings):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    values = Settings.model_validate(settings)
    sources, _ = engine.discover([str(root)], values, root)
    project = engine.build_project(root, engine.check_files(sources, values))
    return project, values, link_setups(project, values)


@pytest.mark.parametrize("options,expected", [
    ("", (2, 4, 8)),
    ("--num_nodes 1", (1, 4, 4)),
    ("--num_gpus 2", (2, 2, 4)),
    ("--num_nodes=1 --num_gpus=1", (1, 1, 1)),
    ("--include worker-2:0,1", (1, 2, 2)),
    ("--exclude worker-2", (1, 4, 4)),
    ("--exclude worker-1:0,1,2,3", (1, 4, 4)),
])
def test_hostfile_in_the_repository_gives_the_world(tmp_path, options, expected):
    _, _, [setup] = _setups(tmp_path, {"hostfile": HOSTFILE, "train.py": TRAIN,
                                       "run.sh": f"deepspeed --hostfile hostfile {options} train.py\n"})
    assert (setup.nodes, setup.procs_per_node, setup.world_size) == expected


def test_hostfile_next_to_the_launch_script_and_uneven_slots(tmp_path):
    files = {"scripts/hostfile": "node-a slots=8\nnode-b slots=4\n", "train.py": TRAIN,
             "scripts/run.sh": "deepspeed -H hostfile --master_port 29600 ../train.py --deepspeed\n"}
    _, _, [setup] = _setups(tmp_path, files)
    assert (setup.nodes, setup.procs_per_node, setup.world_size) == (2, None, 12)
    assert setup.notes["nproc_per_node"] == "deepspeed gives the hosts different numbers of processes: [8, 4]"


def test_a_hostfile_the_runner_refuses_or_that_is_missing_leaves_the_world_unknown(tmp_path):
    files = {"hostfile": "worker-1\n", "train.py": TRAIN, "run.sh": "deepspeed --hostfile hostfile train.py\n",
             "other.sh": "deepspeed --hostfile conf/missing_hostfile train.py\n"}
    setups = _setups(tmp_path, files)[2]
    by_launch = {setup.launch_path.rsplit("/", 1)[-1]: setup for setup in setups}
    bad, missing = by_launch["run.sh"], by_launch["other.sh"]
    assert (bad.nodes, bad.world_size) == (None, None)
    assert bad.notes["nnodes"] == "every host of the hostfile: 'hostfile' is a hostfile deepspeed refuses"
    assert (missing.nodes, missing.world_size) == (None, None)
    assert missing.notes["nnodes"].startswith("every host of the hostfile: 'conf/missing_hostfile' is not found")


def test_all_visible_gpus_are_unknown_unless_settings_give_the_count(tmp_path):
    files = {"train.py": TRAIN, "run.sh": "deepspeed train.py --deepspeed\n"}
    _, _, [setup] = _setups(tmp_path, files)
    assert (setup.nodes, setup.procs_per_node, setup.world_size) == (1, None, None)
    _, _, [setup] = _setups(tmp_path, files, **{"nproc-per-node": 8})
    assert (setup.nodes, setup.procs_per_node, setup.world_size) == (1, 8, 8)


def test_show_setup_prints_the_hostfile_world(tmp_path):
    project, settings, _ = _setups(tmp_path, {"hostfile": HOSTFILE, "train.py": TRAIN,
                                              "run.sh": "deepspeed --hostfile=hostfile train.py\n"})
    assert "world size      8" in describe_setups(project, settings)


@pytest.mark.parametrize("options,exported", [
    ("", True),  # two hosts: runner.py's multi-node branch exports .deepspeed_env on each
    ("--include worker-1:0,1,2,3", False),  # one host: the local launch never reads it
])
def test_a_deepspeed_env_file_gives_the_threads_only_to_a_multi_node_launch(tmp_path, options, exported):
    _, _, [setup] = _setups(tmp_path, {"hostfile": HOSTFILE, "train.py": TRAIN, ".deepspeed_env": "NCCL_DEBUG=WARN\n"
                                       "OMP_NUM_THREADS=12\n", "run.sh": f"deepspeed --hostfile hostfile {options} train.py\n"})
    command = setup.command
    assert (command.omp_num_threads_set, command.omp_num_threads) == ((True, "12") if exported else (False, None))
