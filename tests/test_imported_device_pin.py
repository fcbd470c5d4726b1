"""DSL101: a module the script imports pins CUDA_VISIBLE_DEVICES per process at import time, so cuda:0 is
each rank's own GPU afterwards (the rule doc's per-rank CUDA_VISIBLE_DEVICES, done by a helper module)."""
from __future__ import annotations

PIN = ("import os\n\n_local_rank = os.environ.get('LOCAL_RANK')\n"
       "if _local_rank is not None:\n"
       "    os.environ['CUDA_VISIBLE_DEVICES'] = VALUE\n")
TRAIN = ("import gpu_pin  # noqa: F401\n\nimport torch\nimport torch.distributed as dist\n\n\n"
         "def main():\n"
         "    torch.cuda.set_device(0)\n"
         "    dist.init_process_group('nccl')\n"
         "    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2).cuda(), device_ids=[0])\n\n\n"
         "if __name__ == '__main__':\n    main()\n")


def rows(project, value):
    project.write({"gpu_pin.py": PIN.replace("VALUE", value), "train.py": TRAIN,
                   "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    return sorted({(f.path, f.span.start.row) for f in project.check(select=["DSL101"]).findings})


def test_a_per_process_pin_in_an_imported_module_makes_cuda_0_the_ranks_own(project):
    assert rows(project, "_local_rank") == []
    assert rows(project, "os.environ['GPUS'].split(',')[int(_local_rank)]") == []


def test_a_constant_pin_gives_every_rank_the_same_gpu(project):
    assert rows(project, "'0'") == [("train.py", 8), ("train.py", 10)]


HELPER = ("import os\n\n\ndef pin_visible_gpu(index, gpus):\n"
          "    os.environ['CUDA_VISIBLE_DEVICES'] = VALUE\n")
WORKER = ("import torch\nimport torch.distributed as dist\nimport torch.multiprocessing as mp\n\n"
          "from utils.env import pin_visible_gpu\n\n\n"
          "def worker(index, gpus):\n"
          "    pin_visible_gpu(index, gpus)\n"
          "    torch.cuda.set_device(0)\n"
          "    dist.init_process_group('nccl', rank=index, world_size=len(gpus))\n"
          "    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2).cuda(0), device_ids=[0])\n\n\n"
          "if __name__ == '__main__':\n    mp.spawn(worker, args=(['0', '1'],), nprocs=2)\n")


def helper_rows(project, value):
    project.write({"utils/__init__.py": "", "utils/env.py": HELPER.replace("VALUE", value), "train.py": WORKER})
    return sorted({(f.path, f.span.start.row) for f in project.check(select=["DSL101"]).findings})


def test_a_helper_of_another_module_pinning_the_gpu_it_is_given_makes_cuda_0_the_workers_own(project):
    assert helper_rows(project, "gpus[index]") == []


def test_a_helper_pinning_a_constant_gpu_does_not_excuse_cuda_0(project):
    assert helper_rows(project, "'0'") != []
