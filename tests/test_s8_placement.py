"""Facts of the eighth session for the placement rules: the --local_rank a launcher passes itself
(DSL101), the spawn index handed to init_process_group through a helper (DSL103), and a
CUDA_VISIBLE_DEVICES pin in a function only the module's own `__main__` block calls (DSL106)."""
from __future__ import annotations

import pytest


def rows(project, code):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


# -- DSL101: the launcher passes --local_rank itself --------------------------------------------------

LOCAL_RANK = ("import argparse\nimport os\n\nimport torch\nimport torch.distributed as dist\n\n"
              "parser = argparse.ArgumentParser()\nparser.add_argument(OPTION, type=int, default=0)\n"
              "args = parser.parse_args()\n\n\ndef main():\n    torch.cuda.set_device(args.local_rank)\n"
              "    if int(os.environ.get('WORLD_SIZE', 1)) > 1:\n"
              "        dist.init_process_group(backend='nccl', init_method='env://')\n\n\n"
              "if __name__ == '__main__':\n    main()\n")


@pytest.mark.parametrize("line", [
    "python -m torch.distributed.launch --nproc_per_node=4 train.py --data-dir x",
    "deepspeed --num_gpus 4 train.py --data-dir x",
])
@pytest.mark.parametrize("option", ["'--local_rank'", "'--local-rank'"])
def test_a_local_rank_option_the_launcher_passes_is_not_its_default(project, line, option):
    project.write({"run.sh": f"#!/bin/sh\n{line}\n", "train.py": LOCAL_RANK.replace("OPTION", option)})
    assert rows(project, "DSL101") == []


@pytest.mark.parametrize("line", [
    "torchrun --nproc_per_node=4 train.py --data-dir x",
    "python -m torch.distributed.launch --use_env --nproc_per_node=4 train.py --data-dir x",
    "python -m torch.distributed.launch --use-env --nproc_per_node=4 train.py --data-dir x",
    "deepspeed --no_local_rank --num_gpus 4 train.py --data-dir x",
])
def test_a_local_rank_option_no_launcher_passes_keeps_its_default(project, line):
    project.write({"run.sh": f"#!/bin/sh\n{line}\n", "train.py": LOCAL_RANK.replace("OPTION", "'--local_rank'")})
    assert rows(project, "DSL101") == [13]


def test_the_launcher_passes_only_the_local_rank_option(project):
    project.write({"run.sh": "#!/bin/sh\npython -m torch.distributed.launch --nproc_per_node=4 train.py\n",
                   "train.py": LOCAL_RANK.replace("OPTION", "'--gpu'").replace("args.local_rank", "args.gpu")})
    assert rows(project, "DSL101") == [13]


def test_passed_local_rank_reads_the_launcher_table():
    from dslint.facts.option_defaults import launcher_passes
    from dslint.sources.launch.launchers import passed_local_rank

    class Launcher:
        def __init__(self, kind, options=()):
            self.kind, self.options = kind, dict.fromkeys(options)

    assert passed_local_rank([Launcher("torch.distributed.launch")]) == ("--local-rank", "--local_rank")
    assert passed_local_rank([Launcher("torch.distributed.launch", ["use_env"])]) == ()
    assert passed_local_rank([Launcher("deepspeed", ["no_local_rank"])]) == ()
    assert passed_local_rank([Launcher("torchrun")]) == ()
    assert passed_local_rank([Launcher("srun"), Launcher("torch.distributed.launch")]) == ("--local-rank", "--local_rank")
    assert launcher_passes([Launcher("deepspeed")], ("--local-rank",))
    assert not launcher_passes([Launcher("deepspeed")], ("--rank",))


# -- DSL103: the spawn index reaches init_process_group through a helper --------------------------------

SPAWN = ("import os\n\nimport torch\nimport torch.distributed as dist\nimport torch.multiprocessing as mp\n\n\n"
         "def setup_ddp(rank, world_size):\n    dist.init_process_group('nccl', rank=RANK, world_size=world_size)\n\n\n"
         "def run_ddp(rank, world_size):\n    setup_ddp(rank, world_size)\n"
         "    torch.cuda.set_device(torch.device('cuda', dist.get_rank()))\n"
         "    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda())\n\n\n"
         "def run_training(num_gpus=1):\n    if num_gpus > 1:\n        os.environ['MASTER_ADDR'] = 'localhost'\n"
         "        mp.spawn(run_ddp, args=(num_gpus,), nprocs=num_gpus, join=True)\n\n\n"
         "if __name__ == '__main__':\n    run_training(torch.cuda.device_count())\n")


def test_the_global_rank_of_a_group_a_helper_builds_from_the_spawn_index_is_local(project):
    project.write({"train.py": SPAWN.replace("RANK", "rank")})
    assert rows(project, "DSL103") == []
    project.write({"train.py": SPAWN.replace("RANK", "rank").replace("setup_ddp(rank, world_size)\n    torch",
                                                                     "setup_ddp(world_size=world_size, rank=rank)\n    torch")})
    assert rows(project, "DSL103") == []


def test_a_helper_given_another_rank_is_still_reported(project):
    project.write({"train.py": SPAWN.replace("RANK", "rank").replace("setup_ddp(rank, world_size)\n    torch",
                                                                     "setup_ddp(rank + 8, world_size)\n    torch")})
    assert rows(project, "DSL103") == [14]
    project.write({"train.py": SPAWN.replace("RANK", "int(os.environ['RANK'])")})
    assert rows(project, "DSL103") == [14]
    # a second caller of the helper passes something else
    project.write({"train.py": SPAWN.replace("RANK", "rank") + "    setup_ddp(int(os.environ['RANK']), 2)\n"})
    assert rows(project, "DSL103") == [14]


# -- DSL106: a pin in a function that only the module's __main__ block calls ----------------------------

PREP = ("import os\nimport torch\n\n\nclass Data:\n    def gt_database(self):\n        return torch.zeros(3).cuda()\n\n\n"
        "def create_infos():\n    data = Data()\n    os.environ['CUDA_VISIBLE_DEVICES'] = '-1'\n    print('infos')\n"
        "    os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n    data.gt_database()\n\n\n"
        "if __name__ == '__main__':\n    create_infos()\n")
TRAIN = ("import os\nimport torch\nimport torch.distributed as dist\nfrom pkg.prep import Data\n\n"
         "if __name__ == '__main__':\n    dist.init_process_group('nccl')\n"
         "    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n    data = Data()\n"
         "    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda())\n")


def test_a_pin_in_a_function_only_the_modules_main_block_calls_is_its_own_program(project):
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n", "train.py": TRAIN,
                   "pkg/__init__.py": "", "pkg/prep.py": PREP})
    assert rows(project, "DSL106") == []


def test_a_pin_in_a_function_the_multi_rank_program_calls_is_still_reported(project):
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n",
                   "train.py": TRAIN.replace("import Data", "import Data, create_infos") + "    create_infos()\n",
                   "pkg/__init__.py": "", "pkg/prep.py": PREP})
    assert rows(project, "DSL106") == [14]
    # called from elsewhere in its own module than the __main__ block: every program that imports it
    project.write({"run.sh": "torchrun --nproc_per_node 4 train.py\n", "train.py": TRAIN,
                   "pkg/__init__.py": "", "pkg/prep.py": PREP.replace("class Data:", "def build():\n"
                                                                     "    create_infos()\n\n\nclass Data:")})
    assert rows(project, "DSL106") == [18]


# -- DSL103: a trainer module whose programs start their ranks with single-host mp.spawn -----------------

TRAINER = ("import torch\nimport torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n\n"
           "class Trainer:\n    def __init__(self):\n        self.is_ddp = dist.is_available() and dist.is_initialized()\n"
           "        self.local_rank = 0 if not self.is_ddp else dist.get_rank()\n\n"
           "    def initialize(self):\n        self.network = torch.nn.Linear(8, 8).cuda()\n        if self.is_ddp:\n"
           "            self.network = DDP(self.network, device_ids=[self.local_rank])\n")
RUNNER = SPAWN.replace("RANK", "rank").replace(
    "import torch.multiprocessing as mp\n", "import torch.multiprocessing as mp\n\nfrom trainer import Trainer\n").replace(
    "    torch.cuda.set_device(torch.device('cuda', dist.get_rank()))\n", "    Trainer().initialize()\n")


def test_a_trainer_whose_programs_spawn_their_ranks_on_one_host_uses_the_local_gpu(project):
    project.write({"run.py": RUNNER, "trainer.py": TRAINER})
    assert rows(project, "DSL103") == []


def test_a_trainer_in_a_launched_or_multi_node_program_is_still_reported(project):
    project.write({"run.py": RUNNER.replace("rank=rank", "rank=int(os.environ['NODE']) * 8 + rank"),
                   "trainer.py": TRAINER})
    assert rows(project, "DSL103") == [14]
    project.write({"run.py": RUNNER, "trainer.py": TRAINER, "run.sh": "torchrun --nnodes 2 --nproc_per_node 4 run.py\n"})
    assert rows(project, "DSL103") == [14]
