"""DSL204 on `num_workers=cfg.workers`, where `cfg` is the config object the callers pass a factory
(`build_loader(ds, DataConfig())`) and the class defaults the field to the machine's CPU count or an int."""
from __future__ import annotations

CONFIG = ("import os\nfrom dataclasses import dataclass, field\n\n\n@dataclass\nclass DataConfig:\n"
          "    batch_size: int = 64\n    workers: int = DEFAULT\n")
TRAIN = ("import os\n\nimport torch\nimport torch.distributed as dist\n\nfrom config import DataConfig\n"
         "from data.factory import build_loader\n\n"
         "local_rank = int(os.environ['LOCAL_RANK'])\ntorch.cuda.set_device(local_rank)\n"
         "dist.init_process_group('nccl')\nds = torch.utils.data.TensorDataset(torch.randn(100, 3))\n"
         "cfg = DataConfig(BUILD)\nAFTER\nloader = build_loader(ds, cfg)\nfor epoch in range(3):\n"
         "    loader.sampler.set_epoch(epoch)\n    for (x,) in loader:\n        pass\n")
FACTORY = ("from torch.utils.data import DataLoader, DistributedSampler\n\n\n"
           "def build_loader(ds, cfg):\n"
           "    return DataLoader(ds, batch_size=cfg.batch_size, sampler=DistributedSampler(ds), num_workers=cfg.workers)\n")


def findings(project, default="field(default_factory=os.cpu_count)", build="", after="", cpus=None):
    project.write({"config.py": CONFIG.replace("DEFAULT", default),
                   "train.py": TRAIN.replace("BUILD", build).replace("AFTER", after),
                   "data/__init__.py": "", "data/factory.py": FACTORY,
                   "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    cores = {"cpu-cores": cpus} if cpus else {}
    return [(f.path, f.span.start.row, f.message) for f in project.check(select=["DSL204"], **cores).findings]


def test_a_config_instance_whose_field_defaults_to_the_cpu_count(project):
    (found,) = findings(project)
    assert found[:2] == ("data/factory.py", 5) and "CPU count" in found[2]


def test_a_lambda_factory_and_a_plain_cpu_count_default_count_too(project):
    assert [f[:2] for f in findings(project, default="field(default_factory=lambda: os.cpu_count() - 1)")] == \
        [("data/factory.py", 5)]
    assert [f[:2] for f in findings(project, default="os.cpu_count()")] == [("data/factory.py", 5)]


def test_a_field_the_caller_sets_is_not_the_default(project):
    assert findings(project, after="cfg.workers = 2") == []
    assert findings(project, build="workers=2") == []
    assert findings(project, build="**overrides") == []
    assert findings(project, after="setattr(cfg, 'workers', 2)") == []


def test_a_config_a_library_may_fill_is_unknown(project):
    # (`parser.parse_args(namespace=cfg)` may set any field from the command line)
    after = "import argparse\nargparse.ArgumentParser().parse_args(namespace=cfg)"
    assert findings(project, after=after) == []


def test_an_int_default_is_checked_against_the_cores_of_the_launch(project):
    (found,) = findings(project, default="16", cpus=32)
    assert found[:2] == ("data/factory.py", 5) and "16" in found[2]
    assert findings(project, default="2", cpus=32) == []


def test_a_factory_its_own_module_also_calls_is_not_decided_by_the_other_callers(project):
    project.write({"config.py": CONFIG.replace("DEFAULT", "field(default_factory=os.cpu_count)"),
                   "train.py": TRAIN.replace("BUILD", "").replace("AFTER", ""), "data/__init__.py": "",
                   "data/factory.py": FACTORY + "\n\ndef eval_loader(ds, cfg):\n    return build_loader(ds, cfg)\n",
                   "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    assert [f for f in project.check(select=["DSL204"]).findings] == []


def test_a_config_class_of_the_script_itself_defaulting_to_the_cpu_count(project):
    train = ("import os\nfrom dataclasses import dataclass, field\n\nimport torch\nimport torch.distributed as dist\n"
             "from torch.utils.data import DataLoader, DistributedSampler\n\n\n@dataclass\nclass Cfg:\n"
             "    workers: int = field(default_factory=os.cpu_count)\n\n\n"
             "dist.init_process_group('nccl')\ntorch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
             "cfg = Cfg()\nds = torch.utils.data.TensorDataset(torch.randn(100, 3))\n"
             "loader = DataLoader(ds, sampler=DistributedSampler(ds), num_workers=cfg.workers)\n")
    project.write({"train.py": train, "run.sh": "torchrun --nproc_per_node 8 train.py\n"})
    assert [(f.path, f.span.start.row) for f in project.check(select=["DSL204"]).findings] == [("train.py", 18)]


def test_a_local_helper_that_only_reads_fields_does_not_make_the_config_unknown(project):
    reader = "def lr_of(epoch, c):\n    return c.batch_size * epoch\nlr_of(0, cfg)"
    assert [f[:2] for f in findings(project, after=reader)] == [("data/factory.py", 5)]
    writer = "def shrink(c):\n    c.workers = 1\nshrink(cfg)"
    assert findings(project, after=writer) == []
