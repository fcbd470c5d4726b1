"""Facts from other modules that clear DSL102 and DSL301: a file saved as an LR scheduler's state, a
file written by torch's `dcp_to_torch_save` under a name another module's constant holds, and an
IterableDataset subclass imported from another module."""
from __future__ import annotations

HEAD = ("import os\nimport sys\n\nimport torch\nimport torch.distributed as dist\n\n\n"
        "def main():\n    dist.init_process_group('nccl')\n    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n")
TAIL = "\n\nif __name__ == '__main__':\n    main()\n"


def _rows(project, code):
    return [(f.path, f.span.start.row) for f in project.check(select=[code]).findings if f.code == code]


def test_an_lr_schedulers_state_holds_no_tensors(project):
    body = ("    model = torch.nn.Linear(8, 8).cuda()\n    opt = torch.optim.AdamW(model.parameters())\n"
            "    scheduler = torch.optim.lr_scheduler.LinearLR(opt, total_iters=10)\n"
            "    torch.save(scheduler.state_dict(), 'scheduler.pt')\n"
            "    scheduler.load_state_dict(torch.load('scheduler.pt'))\n")
    project.write({"train.py": HEAD + body + TAIL})
    assert _rows(project, "DSL102") == []
    project.write({"train.py": HEAD + body.replace("scheduler.state_dict()", "opt.state_dict()") + TAIL})
    assert _rows(project, "DSL102") == [("train.py", 15)]  # the optimizer's state holds GPU tensors


CKPT = ("from torch.distributed.checkpoint.format_utils import dcp_to_torch_save\n\nNAME = 'consolidated.pth'\n\n\n"
        "def consolidate(ckpt_dir):\n    dcp_to_torch_save(ckpt_dir, f'{ckpt_dir}/{NAME}')\n")
EVAL = HEAD + ("    if dist.get_rank() == 0:\n        consolidate(sys.argv[1])\n    dist.barrier()\n"
               "    state = torch.load(os.path.join(sys.argv[1], NAME), weights_only=True)\n") + TAIL


def test_a_consolidated_checkpoint_of_dcp_to_torch_save_holds_cpu_tensors(project):
    project.write({"ckpt.py": CKPT, "eval.py": "from ckpt import NAME, consolidate\n" + EVAL})
    assert _rows(project, "DSL102") == []


def test_the_same_name_saved_from_model_state_elsewhere_keeps_the_finding(project):
    saver = "import torch\n\nfrom ckpt import NAME\n\n\ndef save(model, d):\n    torch.save(model.state_dict(), f'{d}/{NAME}')\n"
    project.write({"ckpt.py": CKPT, "save.py": saver, "eval.py": "from ckpt import NAME, consolidate\nimport save\n" + EVAL})
    assert _rows(project, "DSL102") == [("eval.py", 16)]


SHARDS = ("from torch.utils.data import IterableDataset\n\n\nclass Shards(IterableDataset):\n"
          "    def __init__(self, rank, world):\n        self.rank, self.world = rank, world\n\n"
          "    def __iter__(self):\n        yield from range(self.rank, 1000, self.world)\n")
TRAIN = HEAD + ("    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda())\n"
                "    ds = Shards(dist.get_rank(), dist.get_world_size())\n"
                "    for epoch in range(2):\n        for x in torch.utils.data.DataLoader(ds, batch_size=4):\n"
                "            model(x).sum().backward()\n") + TAIL


def test_an_iterable_dataset_of_another_module_takes_no_sampler(project):
    project.write({"data/__init__.py": "", "data/shards.py": SHARDS, "train.py": "from data.shards import Shards\n" + TRAIN})
    assert _rows(project, "DSL301") == []


def test_a_map_style_dataset_of_another_module_still_needs_one(project):
    mapped = SHARDS.replace("IterableDataset", "Dataset").replace("def __iter__(self):\n        yield from range(self.rank, 1000, self.world)",
                                                                   "def __getitem__(self, i):\n        return i\n\n    def __len__(self):\n        return 1000")
    project.write({"data/__init__.py": "", "data/shards.py": mapped, "train.py": "from data.shards import Shards\n" + TRAIN})
    assert _rows(project, "DSL301") == [("train.py", 15)]


def test_a_weights_file_name_another_tool_saves_data_under_clears_nothing(project):
    loader = HEAD + "    state = torch.load(os.path.join(sys.argv[1], WEIGHTS))\n" + TAIL
    tool = "import torch\n\nsave_dict = {'a': 1}\ntorch.save(save_dict, './clip/pytorch_model.bin')\n"
    project.write({"train.py": "WEIGHTS = 'pytorch_model.bin'\n" + loader, "tools/extract.py": tool})
    assert _rows(project, "DSL102") == [("train.py", 12)]
    project.write({"train.py": "WEIGHTS = 'vocab.pt'\n" + loader,
                   "tools/extract.py": tool.replace("pytorch_model.bin", "vocab.pt")})
    assert _rows(project, "DSL102") == []
