"""Facts about helper modules reach the program: a helper runs in every rank of the trainer that
imports it, selects the GPU for its caller, or sets the thread count for it."""
from __future__ import annotations

import ast

from dslint.facts.module_summary import summarise_module
from dslint.facts.program_effects import device_selections
from dslint.facts.script import build_script_facts

# -- a checkpoint helper with no sign of a distributed job of its own -----------------------------

RESTORE = """import torch


def restore(model, path):
    state = torch.load(path)
    model.load_state_dict(state["weights"])
    return state["step"]
"""

TRAINER = """import os

import torch
import torch.distributed as dist

from engine.restore import restore


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Linear(16, 16).cuda()
    step = restore(model, "last.pt")


if __name__ == "__main__":
    main()
"""

EXPORTER = """import argparse

import torch

from engine.restore import restore


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    args = parser.parse_args()
    model = torch.nn.Linear(16, 16)
    restore(model, args.checkpoint)
    torch.onnx.export(model, torch.zeros(1, 16), "model.onnx")


if __name__ == "__main__":
    main()
"""


def _dsl102(project):
    return [f for f in project.check().findings if f.code == "DSL102"]


def test_a_helper_of_a_torchrun_program_is_flagged_and_names_the_launch(project):
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "pretrain.py": TRAINER,
                   "launch.sh": "torchrun --nproc_per_node 4 pretrain.py\n"})
    findings = _dsl102(project)
    assert [(f.path, f.span.start.row) for f in findings] == [("engine/restore.py", 5)]
    assert [(path, note) for path, _, note in findings[0].related] == [
        ("launch.sh", "torchrun starts 4 processes of pretrain.py")]


def test_a_helper_of_a_program_with_evidence_and_no_launch_names_the_evidence(project):
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "pretrain.py": TRAINER})
    findings = _dsl102(project)
    assert [f.path for f in findings] == ["engine/restore.py"]
    path, span, note = findings[0].related[0]
    assert (path, span.start.row) == ("pretrain.py", 10)
    assert note.startswith("pretrain.py runs as several processes: reads LOCAL_RANK")


def test_a_helper_only_a_single_process_tool_imports_is_not_flagged(project):
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "export_onnx.py": EXPORTER})
    assert _dsl102(project) == []


def test_a_helper_of_a_trainer_and_a_tool_is_flagged_for_the_trainer(project):
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "export_onnx.py": EXPORTER,
                   "pretrain.py": TRAINER, "launch.sh": "torchrun --nproc_per_node 8 pretrain.py\n"})
    findings = _dsl102(project)
    assert [f.path for f in findings] == ["engine/restore.py"]
    assert "pretrain.py" in findings[0].related[0][2]


def test_a_helper_of_a_program_every_launch_starts_as_one_process_is_not_flagged(project):
    trainer = TRAINER.replace('    local_rank = int(os.environ["LOCAL_RANK"])\n    torch.cuda.set_device(local_rank)\n'
                              '    dist.init_process_group("nccl")\n', "")
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "pretrain.py": trainer,
                   "launch.sh": "python pretrain.py\n"})
    assert _dsl102(project) == []


def test_a_shared_argument_parser_that_accepts_local_rank_proves_nothing(project):
    """--local_rank in a helper's parser (shared by every script) is no sign that a program is distributed."""
    cli = """import argparse


def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    return parser
"""
    tool = EXPORTER.replace("import argparse\n", "from engine.cli import build_parser\n").replace(
        "    parser = argparse.ArgumentParser()\n", "    parser = build_parser()\n")
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "engine/cli.py": cli, "evaluate.py": tool})
    assert _dsl102(project) == []


def test_a_process_group_started_by_a_helper_makes_the_entry_several_processes(project):
    helper = """import os

import torch
import torch.distributed as dist


def setup_distributed():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
"""
    entry = """import torch

from engine.dist import setup_distributed
from engine.restore import restore


def main():
    setup_distributed()
    model = torch.nn.Linear(16, 16).cuda()
    restore(model, "last.pt")


if __name__ == "__main__":
    main()
"""
    project.write({"engine/__init__.py": "", "engine/restore.py": RESTORE, "engine/dist.py": helper, "finetune.py": entry})
    findings = _dsl102(project)
    assert [f.path for f in findings] == ["engine/restore.py"]
    path, span, note = findings[0].related[0]
    assert (path, span.start.row) == ("engine/dist.py", 8)
    assert "calls torch.distributed.init_process_group" in note


def test_ddp_and_a_distributed_sampler_are_evidence_of_several_processes(project):
    entry = """import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from runtime import join_world


def main(dataset):
    local_rank = join_world()
    model = torch.nn.Linear(16, 16).cuda()
    model.load_state_dict(torch.load("init.pt"))
    model = DistributedDataParallel(model, device_ids=[local_rank])
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset))


main(None)
"""
    project.write({"train.py": entry, "runtime.py": "def join_world():\n    return 0\n"})
    assert [(f.path, f.span.start.row) for f in _dsl102(project)] == [("train.py", 11)]


def test_a_guarded_load_of_a_program_also_launched_as_one_process_is_not_flagged(project):
    """The branch may be the single-process path (an evaluation option only the one-GPU launch passes)."""
    helper = RESTORE.replace("    state = torch.load(path)\n", "    state = {}\n    if path:\n        state = torch.load(path)\n")
    trainer = TRAINER.replace('    local_rank = int(os.environ["LOCAL_RANK"])\n    torch.cuda.set_device(local_rank)\n'
                              '    dist.init_process_group("nccl")\n', "")
    project.write({"engine/__init__.py": "", "engine/restore.py": helper, "pretrain.py": trainer,
                   "train.sh": "torchrun --nproc_per_node 4 pretrain.py\n", "eval.sh": "python pretrain.py\n"})
    assert _dsl102(project) == []
    project.write({"engine/restore.py": RESTORE})
    assert [f.path for f in _dsl102(project)] == ["engine/restore.py"]


# -- loads of what the module shows is on the CPU -------------------------------------------------

MULTI = """import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
"""


def test_a_dataset_reads_its_samples_on_the_cpu(project):
    project.write({"train.py": MULTI + """

class Features(torch.utils.data.Dataset):
    def __init__(self, files):
        self.files = files

    def __getitem__(self, i):
        return torch.load(self.files[i])
"""})
    assert _dsl102(project) == []


def test_a_cache_the_module_saves_and_reads_back_is_cpu_data(project):
    project.write({"train.py": MULTI + """

def cached_tokens(texts, cache_file):
    if dist.get_rank() == 0:
        tokens = [torch.tensor(t) for t in texts]
        torch.save(tokens, cache_file)
    dist.barrier()
    return torch.load(cache_file)


def rng_file(d):
    return os.path.join(d, "rng_state.pth")


def save_rng(d):
    states = {"cpu": torch.random.get_rng_state(), "cuda": torch.cuda.get_rng_state_all()}
    torch.save(states, os.path.join(d, "rng_state.pth"))


def load_rng(d):
    path = os.path.join(d, "rng_state.pth")
    return torch.load(path)


save_rng("out")
tokens, states = cached_tokens(["a b"], "tokens.pt"), load_rng("out")
"""})
    assert _dsl102(project) == []


def test_model_state_saved_and_read_back_is_still_flagged(project):
    project.write({"train.py": MULTI + """

def round_trip(model, path):
    torch.save(model.state_dict(), path)
    model.load_state_dict(torch.load(path))


round_trip(torch.nn.Linear(2, 2).cuda(), "w.pt")
"""})
    assert [f.span.start.row for f in _dsl102(project)] == [12]


def test_a_load_only_rank_zero_runs_is_not_flagged(project):
    project.write({"train.py": MULTI + """

def load_optimizer_state(path):
    state = None
    if dist.get_rank() == 0:
        state = torch.load(path)
    return state


optimizer_state = load_optimizer_state("optimizer.pt")
"""})
    assert _dsl102(project) == []


def test_a_function_a_package_only_re_exports_has_no_caller(project):
    handler = RESTORE + """

def restore_optimizer(optimizer, path):
    optimizer.load_state_dict(torch.load(path))
"""
    trainer = TRAINER.replace("from engine.restore import restore\n", "import engine\n").replace(
        'step = restore(model, "last.pt")', 'step = engine.restore(model, "last.pt")')
    project.write({"engine/__init__.py": "from .restore import restore, restore_optimizer\n",
                   "engine/restore.py": handler, "pretrain.py": trainer})
    assert [(f.path, f.span.start.row) for f in _dsl102(project)] == [("engine/restore.py", 5)]


# -- DSL105: the GPU selected by a helper ----------------------------------------------------------

DIST_HELPER = """import os

import torch
import torch.distributed as dist


def init_distributed():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    return local_rank


def log_setup():
    print("ready")
"""

ENTRY_105 = """import torch
from torch.nn.parallel import DistributedDataParallel

from common.dist import init_distributed, log_setup


def main():
    model = torch.nn.Linear(16, 16).cuda()
    local_rank = init_distributed()
    model = DistributedDataParallel(model, device_ids=[local_rank])
    batch = torch.zeros(4, 16).cuda()


if __name__ == "__main__":
    main()
"""


def _dsl105(project):
    return [f for f in project.check().findings if f.code == "DSL105"]


def test_cuda_before_an_imported_helper_selects_the_gpu_is_flagged(project):
    project.write({"common/__init__.py": "", "common/dist.py": DIST_HELPER, "train.py": ENTRY_105})
    findings = _dsl105(project)
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 8)]
    assert findings[0].message.startswith(".cuda() runs before init_distributed() selects the GPU (line 9)")
    path, span, _ = findings[0].related[0]
    assert (path, span.start.row) == ("common/dist.py", 10)


def test_cuda_after_the_helper_selects_the_gpu_is_fine(project):
    entry = ENTRY_105.replace("    model = torch.nn.Linear(16, 16).cuda()\n    local_rank = init_distributed()\n",
                              "    local_rank = init_distributed()\n    model = torch.nn.Linear(16, 16).cuda()\n")
    project.write({"common/__init__.py": "", "common/dist.py": DIST_HELPER, "train.py": entry})
    assert _dsl105(project) == []


def test_a_helper_that_selects_no_gpu_is_no_selection(project):
    entry = ENTRY_105.replace("    local_rank = init_distributed()\n", "    log_setup()\n    local_rank = 0\n")
    project.write({"common/__init__.py": "", "common/dist.py": DIST_HELPER, "train.py": entry})
    assert _dsl105(project) == []


def test_a_gpu_selected_by_an_imported_helper_before_the_touch_is_chosen_already(project):
    entry = ENTRY_105.replace("    model = torch.nn.Linear(16, 16).cuda()\n    local_rank = init_distributed()\n",
                              "    init_distributed()\n    model = torch.nn.Linear(16, 16).cuda()\n"
                              "    local_rank = int(os.environ['LOCAL_RANK'])\n    torch.cuda.set_device(local_rank)\n")
    project.write({"common/__init__.py": "", "common/dist.py": DIST_HELPER, "train.py": "import os\n" + entry})
    assert _dsl105(project) == []


def test_a_same_module_helper_two_calls_deep_selects_the_gpu(project):
    project.write({"train.py": """import os

import torch
import torch.distributed as dist


def _bind_gpu():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))


def setup():
    dist.init_process_group("nccl")
    _bind_gpu()


def main():
    torch.cuda.synchronize()
    setup()
    torch.cuda.synchronize()


main()
"""})
    findings = _dsl105(project)
    assert [(f.span.start.row, f.message.split(",")[0]) for f in findings] == [
        (17, "torch.cuda.synchronize() runs before setup() selects the GPU (line 18)")]


def test_a_touch_after_the_first_set_device_is_fine_even_before_a_second(project):
    project.write({"train.py": """import os

import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = torch.nn.Linear(8, 8).cuda()
dist.init_process_group("nccl")
torch.cuda.set_device(local_rank)
"""})
    assert _dsl105(project) == []


# -- facts -----------------------------------------------------------------------------------------

def _facts(text: str, path: str = "m.py"):
    return build_script_facts(path, text, ast.parse(text))


def test_function_summaries_carry_what_helpers_do_through_their_own_module():
    exports = summarise_module(_facts("""import os

import torch
import torch.distributed as dist


def _pg():
    dist.init_process_group("nccl")


def _threads():
    torch.set_num_threads(4)


def init(rank):
    _pg()
    torch.cuda.set_device(rank)


def bootstrap():
    init(int(os.environ["LOCAL_RANK"]))
    _threads()


class Runner:
    def __init__(self):
        self._prepare()

    def _prepare(self):
        torch.cuda.set_device(0)
"""))
    boot = exports.functions["bootstrap"]
    assert boot.multiprocess[0] == "calls torch.distributed.init_process_group"
    assert boot.multiprocess[1].start.row == 8
    assert (boot.set_device_row, boot.sets_num_threads, boot.selects_device) == (17, True, True)
    init = exports.classes["Runner"].methods["__init__"]
    assert (init.selects_device, init.set_device_row) == (True, 0)  # set_device(0) is DSL101's
    assert exports.multiprocess[0] == "calls torch.distributed.init_process_group"


def test_device_selections_tell_calls_apart_by_what_they_run():
    facts = _facts("""import torch
import deepspeed
from utils.dist import setup
from tqdm import tqdm


def local():
    torch.cuda.set_device(3)


def main(rank):
    setup()
    tqdm([])
    local()
    deepspeed.initialize(model=None)
    torch.cuda.set_device(rank)
""")
    main = facts.functions["main"]
    kinds = [(s.kind, s.local) for s in device_selections(facts)[id(main)]]
    assert kinds == [("imported", "setup"), ("framework", "local"), ("framework", ""), ("set_device", "")]


# -- DSL202: threads set by a helper ---------------------------------------------------------------

DS_CONFIG = """{
  "train_micro_batch_size_per_gpu": 4,
  "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}
}
"""

DS_TRAIN = """import deepspeed
import torch

from tuning.host import pin_threads


def main():
    pin_threads()
    model = torch.nn.Linear(4096, 4096)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_config.json")


main()
"""


def test_threads_set_by_a_helper_the_script_calls_keep_cpu_adam_fed(project):
    host = "import os\n\nimport torch\n\n\ndef pin_threads():\n    torch.set_num_threads(max(1, os.cpu_count() // 4))\n"
    project.write({"train.py": DS_TRAIN, "ds_config.json": DS_CONFIG, "tuning/__init__.py": "", "tuning/host.py": host,
                   "launch.sh": "torchrun --nproc_per_node 4 train.py\n"})
    assert "DSL202" not in project.codes()
    project.write({"tuning/host.py": "def pin_threads():\n    print('threads left alone')\n"})
    assert "DSL202" in project.codes()
