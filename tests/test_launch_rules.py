"""DSL701–DSL703: launcher and framework agree on who starts the ranks, how many, and where they meet."""
from __future__ import annotations

LIGHTNING = "import lightning as L\n\ntrainer = L.Trainer(accelerator='gpu', devices={devices}, strategy='ddp'{extra})\ntrainer.fit(None)\n"
SPAWN = """import torch.distributed as dist
import torch.multiprocessing as mp


def main(rank, world):
    dist.init_process_group("nccl", rank=rank, world_size=world)


if __name__ == "__main__":
    mp.spawn(main, args=(4,), nprocs=4)
"""


def test_spawn_under_plain_python_is_one_launch(project):
    project.write({"run.sh": "python train.py\n", "train.py": SPAWN})
    assert project.codes() == []


def test_spawn_under_torchrun_is_a_double_launch(project):
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n", "train.py": SPAWN})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL701"]
    assert findings[0].path == "train.py" and findings[0].span.start.row == 10
    assert "4 x 4 = 16" in findings[0].message and findings[0].related[0][0] == "run.sh"


def test_lightning_joins_torchrun_deepspeed_and_srun(project):
    project.write({"run.sh": "torchrun --nproc_per_node 2 train.py\ndeepspeed --num_gpus 2 train.py\n"
                             "srun --ntasks-per-node 2 --nodes 1 python train.py\n",
                   "train.py": LIGHTNING.format(devices=2, extra="")})
    assert project.codes() == []


def test_lightning_under_mpirun_or_interactive_srun_spawns_again(project):
    project.write({"run.sh": "mpirun -np 2 python train.py\n", "train.py": LIGHTNING.format(devices=2, extra="")})
    assert project.codes() == ["DSL701"]
    project.write({"run.sh": "srun --job-name=interactive --ntasks-per-node 2 python train.py\n"})
    assert project.codes() == ["DSL701"]


def test_trainer_devices_disagree_with_torchrun(project):
    project.write({"run.sh": "torchrun --nproc_per_node 8 train.py\n", "train.py": LIGHTNING.format(devices=4, extra="")})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL702"]
    assert "devices=4 but the launcher starts 8 per node" in findings[0].message


def test_trainer_num_nodes_default_under_two_node_torchrun(project):
    project.write({"run.sh": "torchrun --nnodes 2 --nproc_per_node 4 train.py\n",
                   "train.py": LIGHTNING.format(devices=4, extra="")})
    assert project.codes() == ["DSL702"]
    project.write({"train.py": LIGHTNING.format(devices=4, extra=", num_nodes=2")})
    assert project.codes() == []


def test_port_guarded_by_the_environment_is_not_fixed(project):
    script = SPAWN.replace('    mp.spawn', '    if "MASTER_PORT" not in os.environ:\n        os.environ["MASTER_PORT"] = "29500"\n    mp.spawn').replace("import torch.distributed", "import os\nimport torch.distributed")
    project.write({"train.py": script})
    assert project.codes() == []
    project.write({"train.py": script.replace('    if "MASTER_PORT" not in os.environ:\n        os.environ', '    os.environ')})
    assert project.codes() == ["DSL703"]


def test_fixed_port_in_sbatch_only_without_exclusive(project):
    job = "#!/bin/bash\n#SBATCH --nodes=1\n{extra}torchrun --nproc_per_node 4 --master_port 29501 train.py\n"
    project.write({"job.sbatch": job.format(extra="")})
    assert project.codes() == ["DSL703"]
    project.write({"job.sbatch": job.format(extra="#SBATCH --exclusive\n")})
    assert project.codes() == []


def test_spawn_only_without_a_launcher_is_not_a_double_launch(project):
    script = SPAWN.replace("    mp.spawn(main, args=(4,), nprocs=4)",
                           "    import os\n    if 'LOCAL_RANK' in os.environ:\n        main(int(os.environ['RANK']), 4)\n"
                           "    else:\n        mp.spawn(main, args=(4,), nprocs=4)")
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n", "train.py": script})
    assert "DSL701" not in project.codes()


def test_fixed_port_in_unit_tests_is_not_reported(project):
    """torchtitan's unit tests each pin their own port (tcp://localhost:12356, 12357, ...) on purpose."""
    test = ('import torch.distributed as dist\n\n\ndef test_loss():\n'
            '    dist.init_process_group("gloo", init_method="tcp://localhost:12358", rank=0, world_size=2)\n')
    project.write({"tests/unit_tests/test_loss.py": test, "train.py": test.replace("def test_loss", "def main")})
    found = [(f.path, f.code) for f in project.check(select=["DSL703"]).findings]
    assert found == [("train.py", "DSL703")]


def test_an_explicit_one_thread_on_the_launch_line_starves_the_cpu_optimizer(project):
    config = ('{"train_micro_batch_size_per_gpu": 4, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, '
              '"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}')
    script = ("import argparse\nimport deepspeed\n\nparser = argparse.ArgumentParser()\n"
              "parser = deepspeed.add_config_arguments(parser)\nargs = parser.parse_args()\n"
              "engine, *_ = deepspeed.initialize(args=args, model=None, model_parameters=[])\n")
    launch = ("start() {\n    exec env OMP_NUM_THREADS=1 torchrun --standalone --nproc_per_node=4 \\\n"
              "        train.py --deepspeed_config ds.json\n}\nstart\n")
    project.write({"train.py": script, "ds.json": config, "launch.sh": launch})
    found = [(f.path, f.span.start.row) for f in project.check().findings if f.code == "DSL202"]
    assert found == [("launch.sh", 2)]
    project.write({"launch.sh": launch.replace("OMP_NUM_THREADS=1", "OMP_NUM_THREADS=8")})
    assert "DSL202" not in project.codes()
    project.write({"launch.sh": launch})
    assert "DSL202" not in project.codes(**{"cpu-cores": 4})  # one core per rank is all there is
