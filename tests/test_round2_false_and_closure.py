"""A loader's role from the names around it (DSL301), call reachability across modules (DSL102,
DSL106), plain modules a framework module imports are checked in full, and a DistributedSampler
loader returned by another module's function handed to accelerator.prepare (DSL309)."""
from __future__ import annotations

import os

from dslint import engine
from dslint.settings import Settings

DDP_HEAD = (
    "import torch\n"
    "import torch.distributed as dist\n"
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "\n"
    "dist.init_process_group('nccl')\n"
    "net = DDP(torch.nn.Linear(4, 4))\n"
    "pool = TensorDataset(torch.randn(32, 4))\n"
)


def rows(project, code):
    return sorted((f.path, f.span.start.row) for f in project.check(select=[code]).findings if f.code == code)


# -- DSL301: what a loader is for ----------------------------------------------------------------

def test_a_loaders_dataset_name_or_the_keyword_it_is_given_to_says_it_is_for_evaluation(project):
    project.write({"train.py": DDP_HEAD + (
        "holdout_eval = pool\n"
        "report = dict(loader=DataLoader(holdout_eval, batch_size=4))\n"        # 10: the dataset's name
        "hooks = dict(test_loader=DataLoader(pool, batch_size=4))\n"             # 11: the keyword
        "hooks2 = dict(loader=DataLoader(pool, batch_size=4))\n"                 # 12: nothing says eval
    )})
    assert rows(project, "DSL301") == [("train.py", 12)]


def test_a_loader_passed_into_a_parameter_of_a_local_class_takes_that_parameters_name(project):
    project.write({"train.py": DDP_HEAD + (
        "class Monitor:\n"
        "    def __init__(self, every, validation_loader, fit_loader=None):\n"
        "        self.loaders = (validation_loader, fit_loader)\n"
        "\n"
        "\n"
        "def stepper(fit_loader):\n"
        "    return fit_loader\n"
        "\n"
        "\n"
        "m = Monitor(10, DataLoader(pool, batch_size=4))\n"                 # 18: validation_loader
        "m2 = Monitor(DataLoader(pool, batch_size=4), None)\n"              # 19: `every`: no role
        "s = stepper(DataLoader(pool, batch_size=4))\n"                     # 20: fit_loader
    )})
    assert rows(project, "DSL301") == [("train.py", 19), ("train.py", 20)]


def test_a_loader_passed_into_a_class_of_another_module_takes_its_parameters_name(project):
    project.write({
        "hooks.py": (
            "class Probe:\n"
            "    def __init__(self, model, bench_loader):\n"
            "        self.bench_loader = bench_loader\n"
            "\n"
            "    def run(self):\n"
            "        for batch in self.bench_loader:\n"
            "            print(batch)\n"
        ),
        "train.py": DDP_HEAD + (
            "from hooks import Probe\n"
            "p = Probe(net, DataLoader(pool, batch_size=4))\n"        # 10: bench_loader: evaluation
            "q = Probe(DataLoader(pool, batch_size=4), net)\n"        # 11: `model`: no role
        ),
    })
    assert rows(project, "DSL301") == [("train.py", 11)]


# -- DSL102: a multi-rank program imports the module, but does it call the function? ------------

TORCHRUN = "torchrun --nproc_per_node=4 train.py\npython tools/convert.py\n"

RESTORE = (
    "import torch\n"
    "\n"
    "\n"
    "def restore(path):\n"
    "    return torch.load(path)\n"            # 5
    "\n"
    "\n"
    "def describe(model):\n"
    "    return str(model)\n"
    "\n"
    "\n"
    "class Backbone(torch.nn.Module):\n"
    "    @staticmethod\n"
    "    def from_file(path):\n"
    "        return torch.load(path)\n"        # 15
    "\n"
    "    def reload(self, path):\n"
    "        self.load_state_dict(torch.load(path))\n"   # 18
)

CONVERT = "from ckpt import Backbone, restore\n\nrestore('a.pt')\nBackbone.from_file('a.pt')\n"


def test_a_load_only_a_single_process_tool_calls_is_not_reported(project):
    project.write({
        "launch.sh": TORCHRUN, "ckpt.py": RESTORE, "tools/convert.py": "import sys\nsys.path.insert(0, '.')\n" + CONVERT,
        "train.py": "import torch.distributed as dist\nfrom ckpt import Backbone, describe\n\n"
                    "dist.init_process_group('nccl')\nm = Backbone()\nprint(describe(m))\n",
    })
    # restore() and Backbone.from_file run only in the converter; reload() is a method of a
    # torch.nn.Module that nothing names, and torch calls only its own methods: it runs nowhere.
    assert rows(project, "DSL102") == []


def test_a_load_the_multi_rank_program_calls_is_reported(project):
    project.write({
        "launch.sh": TORCHRUN, "ckpt.py": RESTORE, "tools/convert.py": CONVERT,
        "train.py": "import torch.distributed as dist\nfrom ckpt import Backbone, restore\n\n"
                    "dist.init_process_group('nccl')\nstate = restore('last.pt')\nm = Backbone.from_file('b.pt')\n"
                    "m.reload('c.pt')\n",
    })
    assert rows(project, "DSL102") == [("ckpt.py", 5), ("ckpt.py", 15), ("ckpt.py", 18)]


def test_a_classmethod_called_through_a_module_alias_is_seen(project):
    project.write({
        "launch.sh": TORCHRUN, "ckpt.py": RESTORE,
        "train.py": "import torch.distributed as dist\nimport ckpt as c\n\n"
                    "dist.init_process_group('nccl')\nm = c.Backbone.from_file('b.pt')\n",
    })
    assert ("ckpt.py", 15) in rows(project, "DSL102")


def test_a_staticmethod_called_on_a_subclass_from_another_project_module_is_seen(project):
    project.write({
        "launch.sh": TORCHRUN, "ckpt.py": RESTORE,
        "heads.py": "from ckpt import Backbone\n\n\nclass Tiny(Backbone):\n    pass\n",
        "train.py": "import torch.distributed as dist\nfrom heads import Tiny\n\n"
                    "dist.init_process_group('nccl')\nm = Tiny.from_file('b.pt')\n",
    })
    assert ("ckpt.py", 15) in rows(project, "DSL102")


# -- plain modules a framework module imports are checked in full ---------------------------------

BOOKKEEPING = (
    "import json\n"
    "\n"
    "\n"
    "def flush(acc, rows):\n"
    "    if acc.is_main_process:\n"
    "        json.dump(rows, open('rows.json', 'w'))\n"
    "        acc.wait_for_everyone()\n"          # 7: only rank 0 reaches the barrier
)

ACCEL_MAIN = "from accelerate import Accelerator\n\nfrom bookkeeping import flush\n\nacc = Accelerator()\nflush(acc, [])\n"


def test_a_plain_module_a_framework_module_imports_is_checked(project):
    project.write({"bookkeeping.py": BOOKKEEPING, "main.py": ACCEL_MAIN,
                   "run.sh": "accelerate launch --num_processes 2 main.py\n"})
    assert rows(project, "DSL501") == [("bookkeeping.py", 7)]


def test_a_plain_module_nothing_framework_imports_stays_unchecked(project):
    project.write({"bookkeeping.py": BOOKKEEPING, "report.py": "from bookkeeping import flush\n\nflush(None, [])\n"})
    assert rows(project, "DSL501") == []


def test_the_full_check_of_an_imported_plain_module_follows_its_importers_through_the_cache(project):
    project.write({"bookkeeping.py": BOOKKEEPING, "main.py": ACCEL_MAIN})

    def cached_rows():
        old = os.getcwd()
        os.chdir(project.root)
        try:
            found = engine.check(["."], Settings.model_validate({"select": ["DSL501"]}), root=project.root)
        finally:
            os.chdir(old)
        return [(f.path, f.span.start.row) for f in found.findings]

    assert cached_rows() == [("bookkeeping.py", 7)]
    assert cached_rows() == [("bookkeeping.py", 7)]  # warm
    project.write({"main.py": "from accelerate import Accelerator\n\nacc = Accelerator()\n"})
    assert cached_rows() == []  # no framework module imports it any more: the prefilter skips it again


# -- DSL106 in a helper module of a multi-rank program -------------------------------------------

ENV_HELPER = (
    "import os\n"
    "\n"
    "\n"
    "def pin_gpu():\n"
    "    os.environ['CUDA_VISIBLE_DEVICES'] = '1'\n"    # 5
    "\n"
    "\n"
    "def quiet():\n"
    "    os.environ['NCCL_DEBUG'] = 'WARN'\n"
)


def test_cuda_visible_devices_pinned_in_a_helper_the_multi_rank_script_calls(project):
    project.write({"envsetup.py": ENV_HELPER, "launch.sh": "torchrun --nproc_per_node=2 train.py\n",
                   "train.py": "import torch\nfrom envsetup import pin_gpu\n\npin_gpu()\nx = torch.ones(1)\n"})
    found = project.check(select=["DSL106"]).findings
    assert [(f.path, f.span.start.row) for f in found] == [("envsetup.py", 5)]
    assert any("train.py" in str(r) for r in found[0].related)  # the program that runs it as several


def test_cuda_visible_devices_pinned_in_a_helper_only_a_single_process_tool_calls(project):
    project.write({"envsetup.py": ENV_HELPER,
                   "launch.sh": "torchrun --nproc_per_node=2 train.py\npython bench.py\n",
                   "train.py": "import torch\nfrom envsetup import quiet\n\nquiet()\nx = torch.ones(1)\n",
                   "bench.py": "import torch\nfrom envsetup import pin_gpu\n\npin_gpu()\nx = torch.ones(1)\n"})
    assert rows(project, "DSL106") == []


# -- DSL309: the loader comes from another module's function --------------------------------------

LOADERS = (
    "import torch\n"
    "from torch.utils.data import DataLoader, DistributedSampler, TensorDataset\n"
    "\n"
    "\n"
    "def build_loaders(n):\n"
    "    ds = TensorDataset(torch.randn(n, 4))\n"
    "    fit = DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds, shuffle=False))\n"
    "    held = DataLoader(ds, batch_size=4)\n"
    "    return fit, held\n"
)


def test_a_distributed_sampler_loader_returned_by_another_module_and_prepared(project):
    project.write({"loaders.py": LOADERS, "main.py": (
        "import torch\nfrom accelerate import Accelerator\n\nfrom loaders import build_loaders\n\n"
        "acc = Accelerator()\nfit, held = build_loaders(64)\n"
        "model, fit = acc.prepare(torch.nn.Linear(4, 4), fit)\n"     # 8: has the sampler
        "held = acc.prepare(held)\n"                                 # 9: no sampler
    )})
    found = project.check(select=["DSL309"]).findings
    assert [(f.path, f.span.start.row) for f in found] == [("main.py", 8)]
    assert "loaders.py:7" in found[0].message

