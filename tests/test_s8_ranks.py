"""The rank carried as a field of a dataclass the program builds (DSL103 and the rank facts under it)."""
from __future__ import annotations

DISTENV = ("import os\nfrom dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass DistEnv:\n"
           "    rank: int\n    local_rank: int\n\n    @classmethod\n    def from_env(cls):\n"
           "        return cls(rank=int(os.environ['RANK']), local_rank=int(os.environ['LOCAL_RANK']))\n")
MAIN = ("import torch\nimport torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n"
        "IMPORT\n\ndef main():\n    env = BUILD\n    torch.cuda.set_device(env.FIELD)\n"
        "    dist.init_process_group('nccl')\n    model = DDP(torch.nn.Linear(4, 4).cuda())\n\n\n"
        "if __name__ == '__main__':\n    main()\n")
SBATCH = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\n"
          "srun torchrun --nnodes 2 --nproc_per_node 8 train.py\n")


def rows(project, files: dict) -> list:
    project.write({"job.sbatch": SBATCH, **files})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL103"]).findings]


def main(build="DistEnv.from_env()", field="rank", imported=True):
    return MAIN.replace("IMPORT", "from common.distenv import DistEnv\n" if imported else "").replace(
        "BUILD", build).replace("FIELD", field)


def test_the_global_rank_as_a_field_of_a_dataclass_built_by_a_classmethod_of_another_module(project):
    found = rows(project, {"train.py": main(), "common/__init__.py": "", "common/distenv.py": DISTENV})
    assert found == [("train.py", 9)]


def test_its_local_rank_field_is_the_right_index(project):
    assert rows(project, {"train.py": main(field="local_rank"), "common/__init__.py": "",
                          "common/distenv.py": DISTENV}) == []


def test_the_same_dataclass_in_the_script_built_directly_or_by_its_classmethod(project):
    for build in ("DistEnv.from_env()", "DistEnv(rank=int(os.environ['RANK']), local_rank=0)"):
        text = DISTENV + "\n\n" + main(build=build, imported=False)
        found = rows(project, {"train.py": text})
        assert [path for path, _ in found] == ["train.py"], build


def test_a_plain_class_whose_init_may_store_anything_is_not_read(project):
    plain = DISTENV.replace("@dataclass(frozen=True)\n", "").replace(
        "    rank: int\n    local_rank: int\n", "    def __init__(self, rank, local_rank):\n"
        "        self.rank = rank % 8\n        self.local_rank = local_rank\n")
    assert rows(project, {"train.py": main(), "common/__init__.py": "", "common/distenv.py": plain}) == []


def test_get_rank_of_the_group_init_process_group_returns_is_the_global_rank(project):
    text = ("import torch\nimport torch.distributed as dist\n\n"
            "group = dist.init_process_group('nccl')\ntorch.cuda.set_device(dist.get_rank(group))\n")
    assert rows(project, {"train.py": text}) == [("train.py", 5)]
    other = text.replace("dist.get_rank(group)", "dist.get_rank(dist.new_group([0, 1]))")
    assert rows(project, {"train.py": other}) == []
