"""DSL301 on a Dataset class whose constructor keeps the rank's share of the data (`self.items =
items[rank::world]`): no DistributedSampler is missing, whether the class is in the loader's module or another."""
from __future__ import annotations

DS = ("import torch.distributed as dist\nfrom torch.utils.data import Dataset\n\n\nclass Shard(Dataset):\n"
      "    def __init__(self, items):\n        rank, world = dist.get_rank(), dist.get_world_size()\n"
      "        self.items = KEEP\n\n    def __len__(self):\n        return len(self.items)\n\n"
      "    def __getitem__(self, i):\n        return self.items[i]\n")
TRAIN = ("import os\n\nimport torch\nimport torch.distributed as dist\nfrom torch.utils.data import DataLoader\n"
         "IMPORT\n\ndist.init_process_group('nccl')\ntorch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
         "loader = DataLoader(Shard(list(range(1000))), batch_size=8, shuffle=True)\n"
         "for epoch in range(3):\n    for b in loader:\n        pass\n")


def codes(project, keep="items[rank::world]", local=False):
    if local:
        body = DS.replace("KEEP", keep).replace("import torch.distributed as dist\n", "")
        train = TRAIN.replace("IMPORT", body.replace("from torch.utils.data import Dataset\n", "from torch.utils.data import Dataset"))
        project.write({"train.py": train, "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    else:
        project.write({"ds.py": DS.replace("KEEP", keep), "train.py": TRAIN.replace("IMPORT", "from ds import Shard"),
                       "run.sh": "torchrun --nproc_per_node 4 train.py\n"})
    return [f.code for f in project.check(select=["DSL301"]).findings]


def test_a_dataset_of_another_module_that_keeps_the_rank_share(project):
    assert codes(project) == []
    assert codes(project, keep="items") == ["DSL301"]


def test_a_dataset_of_the_same_module_that_keeps_the_rank_share(project):
    assert codes(project, local=True) == []
    assert codes(project, keep="items[::2]", local=True) == ["DSL301"]
