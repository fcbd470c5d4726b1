"""Rules that need the program, not the file: facts in another module decide the finding."""
from __future__ import annotations

ENTRY_HEAD = """import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
"""

TRAINER = """class Trainer:
    def __init__(self, model, optimizer, loader, max_steps):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.max_steps = max_steps
        self.steps = self.epochs = 0

    def run(self):
        while self.steps < self.max_steps:
            self._train_epoch()
            self.epochs += 1

    def _train_epoch(self):
        for x, y in self.loader:
            loss = (self.model(x.cuda()) - y.cuda()).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.steps += 1
"""

ENTRY_WITH_TRAINER = ENTRY_HEAD + """
from engine.trainer import Trainer


def main(dataset, model):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    model = DDP(model.cuda(), device_ids=[local_rank])
    Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), loader, max_steps=1000).run()


if __name__ == "__main__":
    main(None, None)
"""


def test_trainer_class_in_another_module_that_never_sets_epoch_is_flagged_at_its_loop(project):
    project.write({"train.py": ENTRY_WITH_TRAINER, "engine/__init__.py": "", "engine/trainer.py": TRAINER})
    findings = [f for f in project.check().findings if f.code == "DSL302"]
    assert [(f.path, f.span.start.row) for f in findings] == [("engine/trainer.py", 8)]
    assert "train.py:15" in findings[0].message


def test_the_set_epoch_fix_goes_into_the_trainers_epoch_loop_with_its_counter(project):
    project.write({"train.py": ENTRY_WITH_TRAINER, "engine/__init__.py": "", "engine/trainer.py": TRAINER})
    project.fix(select=["DSL302"])
    fixed = project.read("engine/trainer.py")
    assert "        while self.steps < self.max_steps:\n            self.loader.sampler.set_epoch(self.epochs)\n" in fixed
    assert fixed.replace("            self.loader.sampler.set_epoch(self.epochs)\n", "") == TRAINER
    assert "DSL302" not in project.codes()
    project.fix(select=["DSL302"])
    assert project.read("engine/trainer.py") == fixed


def test_trainer_that_sets_epoch_itself_is_not_flagged(project):
    trainer = TRAINER.replace("            self._train_epoch()\n",
                              "            self.loader.sampler.set_epoch(self.epochs)\n            self._train_epoch()\n")
    project.write({"train.py": ENTRY_WITH_TRAINER, "engine/__init__.py": "", "engine/trainer.py": trainer})
    assert "DSL302" not in project.codes()


def test_unshuffled_sampler_given_to_a_trainer_is_not_flagged(project):
    entry = ENTRY_WITH_TRAINER.replace("DistributedSampler(dataset, shuffle=True)", "DistributedSampler(dataset, shuffle=False)")
    project.write({"train.py": entry, "engine/__init__.py": "", "engine/trainer.py": TRAINER})
    assert "DSL302" not in project.codes()


FACTORY = """from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, *, sampler=None, workers=4):
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, shuffle=sampler is None, num_workers=workers)
"""

ENTRY_WITH_FACTORY = ENTRY_HEAD + """
from data.loaders import make_loader


def main(dataset, model):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    loader = make_loader(dataset, 64)
    model = DDP(model.cuda(), device_ids=[local_rank])
    for epoch in range(3):
        for x, y in loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main(None, None)
"""


def test_loader_factory_called_without_its_sampler_is_flagged_at_the_call(project):
    project.write({"train.py": ENTRY_WITH_FACTORY, "data/__init__.py": "", "data/loaders.py": FACTORY})
    findings = [f for f in project.check().findings if f.code == "DSL301"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 15)]
    assert "data/loaders.py:5" in findings[0].message and "sampler=" in findings[0].message


def test_loader_factory_given_a_sampler_is_not_flagged(project):
    entry = ENTRY_WITH_FACTORY.replace("make_loader(dataset, 64)", "make_loader(dataset, 64, sampler=DistributedSampler(dataset))")
    project.write({"train.py": entry, "data/__init__.py": "", "data/loaders.py": FACTORY})
    assert "DSL301" not in project.codes()


def test_call_of_a_library_function_named_like_a_factory_is_not_flagged(project):
    entry = ENTRY_WITH_FACTORY.replace("from data.loaders import make_loader", "from somelib.data import make_loader")
    project.write({"train.py": entry})
    assert "DSL301" not in project.codes()


UTILS = """import os

import torch


def setup_device():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank
"""

ENTRY_WITH_HELPER = """import torch
import torch.distributed as dist

from utils.dist import setup_device


def main():
    dist.init_process_group("nccl")
    setup_device()
    x = torch.ones(4).cuda()
    dist.all_reduce(x)


if __name__ == "__main__":
    main()
"""


def test_device_selected_by_a_helper_in_another_module_is_not_a_missing_device(project):
    project.write({"train.py": ENTRY_WITH_HELPER, "utils/__init__.py": "", "utils/dist.py": UTILS})
    assert "DSL104" not in project.codes()


def test_without_the_helper_the_process_group_lacks_a_device(project):
    project.write({"train.py": ENTRY_WITH_HELPER.replace("from utils.dist import setup_device\n", "")
                   .replace("    setup_device()\n", "")})
    assert "DSL104" in project.codes()


def test_fsdp_without_device_id_and_no_set_device_is_a_missing_device(project):
    project.write({"train.py": """import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def main(model, batches):
    dist.init_process_group("nccl")
    model = FSDP(model)
    for x in batches:
        model(x.cuda(non_blocking=True)).sum().backward()


if __name__ == "__main__":
    main(None, [])
"""})
    findings = [f for f in project.check().findings if f.code == "DSL104"]
    assert len(findings) == 1 and "FSDP on line 8 (no device_id)" in findings[0].message


def test_fixed_device_by_keyword_and_factory_forms_is_flagged(project):
    project.write({"train.py": """import os

import torch
import torch.distributed as dist


def main(batches, model):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    for x in batches:
        x = x.to(device=torch.device("cuda", 0))
        noise = torch.randn(x.shape, device="cuda:1")
        model(x + noise)
    print(torch.cuda.get_device_properties(torch.device("cuda:0")).name)


if __name__ == "__main__":
    main([], None)
"""})
    rows = sorted(f.span.start.row for f in project.check().findings if f.code == "DSL101")
    assert rows == [12, 13]


def test_pinned_loader_without_set_device_is_a_missing_device(project):
    project.write({"train.py": """import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


def main(dataset, model, rank):
    dist.init_process_group("nccl")
    model = model.to(torch.device("cuda", rank))
    for x in DataLoader(dataset, batch_size=8, pin_memory=True, num_workers=2):
        model(x.to(torch.device("cuda", rank))).sum().backward()


if __name__ == "__main__":
    main(None, None, 0)
"""})
    findings = [f for f in project.check().findings if f.code == "DSL104"]
    assert len(findings) == 1 and "the pinned DataLoader on line 9" in findings[0].message


CONFIG = '''from dataclasses import dataclass


@dataclass
class TrainConfig:
    epochs: int = 90
    device: str = "cuda:0"
'''

ENTRY_WITH_CONFIG = '''import argparse
import dataclasses

import torch
import torch.distributed as dist

from exp.config import TrainConfig


def parse_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int)
    overrides = {k: v for k, v in vars(parser.parse_args()).items() if v is not None}
    return dataclasses.replace(TrainConfig(), **overrides)


def main():
    cfg = parse_config()
    dist.init_process_group("nccl")
    device = torch.device(cfg.device)
    torch.cuda.set_device(device)


if __name__ == "__main__":
    main()
'''


def test_device_default_of_a_config_class_in_another_module_is_flagged(project):
    project.write({"train.py": ENTRY_WITH_CONFIG, "exp/__init__.py": "", "exp/config.py": CONFIG})
    findings = [f for f in project.check().findings if f.code == "DSL101"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 20)]
    assert "exp/config.py" in findings[0].message and "'cuda:0'" in findings[0].message


def test_device_the_command_line_can_override_is_not_the_class_default(project):
    entry = ENTRY_WITH_CONFIG.replace('parser.add_argument("--epochs", type=int)',
                                      'parser.add_argument("--epochs", type=int)\n    parser.add_argument("--device")')
    project.write({"train.py": entry, "exp/__init__.py": "", "exp/config.py": CONFIG})
    assert "DSL101" not in project.codes()


def test_device_given_to_the_constructor_is_not_the_class_default(project):
    entry = ENTRY_WITH_CONFIG.replace("TrainConfig(), **overrides", 'TrainConfig(device=f"cuda:{local_rank}")') \
        .replace("def parse_config():", "def parse_config(local_rank=0):")
    project.write({"train.py": entry, "exp/__init__.py": "", "exp/config.py": CONFIG})
    assert "DSL101" not in project.codes()


def test_a_per_rank_default_in_the_config_class_is_fine(project):
    project.write({"train.py": ENTRY_WITH_CONFIG, "exp/__init__.py": "",
                   "exp/config.py": CONFIG.replace('"cuda:0"', '"cuda"')})
    assert "DSL101" not in project.codes()


LIGHTNING_ENTRY = '''import argparse

import lightning as L
from lightning.pytorch.strategies import FSDPStrategy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=4)
    args = parser.parse_args()
    trainer = L.Trainer(accelerator="cuda", devices=args.gpus, strategy=FSDPStrategy())
    trainer.fit(None)


if __name__ == "__main__":
    main()
'''


def test_trainer_devices_from_an_option_default_the_launch_does_not_pass(project):
    project.write({"train.py": LIGHTNING_ENTRY,
                   "run.sh": "torchrun --standalone --nproc_per_node=8 train.py\n"})
    findings = [f for f in project.check().findings if f.code == "DSL702"]
    assert len(findings) == 1 and "devices=4" in findings[0].message


def test_trainer_devices_from_an_option_the_launch_passes(project):
    project.write({"train.py": LIGHTNING_ENTRY,
                   "run.sh": "torchrun --standalone --nproc_per_node=8 train.py --gpus 8\n"})
    assert "DSL702" not in project.codes()


def test_an_environment_variable_assigned_is_not_one_read(project):
    """A single-process tool that sets RANK for a library is not launched with several ranks."""
    project.write({"export.py": """import os

import torch

os.environ["RANK"] = "0"
os.environ.setdefault("WORLD_SIZE", "1")
model = torch.nn.Linear(4, 4).to("cuda:0")
torch.cuda.set_device(0)
"""})
    assert project.codes() == []
    project.write({"export.py": project.read("export.py").replace('os.environ["RANK"] = "0"', 'rank = int(os.environ["RANK"])')})
    assert "DSL101" in project.codes()


def test_client_optimizer_built_by_a_builder_in_another_module_meets_zero_offload(project):
    project.write({
        "train.py": """import deepspeed

from optim.factory import build_optimizer


def main(model):
    engine, *_ = deepspeed.initialize(model=model, optimizer=build_optimizer(model), config="ds.json")


if __name__ == "__main__":
    main(None)
""",
        "optim/__init__.py": "",
        "optim/factory.py": """import torch


def build_optimizer(model, lr=1e-4):
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
""",
        "ds.json": '{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2, '
                   '"offload_optimizer": {"device": "cpu"}}}',
    })
    findings = [f for f in project.check().findings if f.code == "DSL614"]
    assert [(f.path, f.span.start.row) for f in findings] == [("optim/factory.py", 5)]
    assert "torch.optim.AdamW" in findings[0].message


def test_optimizer_builder_returning_a_deepspeed_cpu_adam_is_fine(project):
    project.write({
        "train.py": """import deepspeed

from optim.factory import build_optimizer


def main(model):
    engine, *_ = deepspeed.initialize(model=model, optimizer=build_optimizer(model), config="ds.json")
""",
        "optim/__init__.py": "",
        "optim/factory.py": """from deepspeed.ops.adam import DeepSpeedCPUAdam


def build_optimizer(model, lr=1e-4):
    return DeepSpeedCPUAdam(model.parameters(), lr=lr)
""",
        "ds.json": '{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2, '
                   '"offload_optimizer": {"device": "cpu"}}}',
    })
    assert "DSL614" not in project.codes()
