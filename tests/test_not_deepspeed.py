"""Files and datasets that are not what their names suggest: JSON files with DeepSpeed's keys that
are HF TrainingArguments files or a project's own hyper-parameters (not DeepSpeed configs unless a
setup links them as one), datasets already split per rank or iterable (DSL301), and set_epoch
called by a helper of another module the loader is handed to (DSL302)."""
from __future__ import annotations

import json

import pytest

from dslint.sources.dsconfig import DEEPSPEED_MARKER_KEYS, deepspeed_config_kind, looks_like_deepspeed_config
from dslint.sources.not_deepspeed import is_doubtful

from .conftest import shared_or_skip

HF_ARGS = {"output_dir": "runs/a", "num_train_epochs": 3, "per_device_train_batch_size": 4,
           "gradient_accumulation_steps": 4, "bf16": True}
OWN_HPARAMS = {"arch": "vit", "train_batch_size": 128, "gradient_accumulation_steps": 1, "fp16": False}
MOSTLY_OWN = {"train_batch_size": 32, "steps_per_print": 10, "lr": 3e-4, "epochs": 5, "backbone": "r18"}
DS_WITH_TYPO = {"train_batch_size": 32, "gradient_accumulation_steps": 2, "fp16": {"enabled": True},
                "zero_optimization": {"stage": 2}, "gradient_clip": 1.0}
DS_SCALAR_FP16 = {"train_batch_size": 32, "gradient_accumulation_steps": 2, "fp16": True}


@pytest.mark.parametrize("value", [HF_ARGS, OWN_HPARAMS, MOSTLY_OWN,
                                   {"deepspeed": {"zero_optimization": {"stage": 3}}, "train_batch_size": 8,
                                    "steps_per_print": 5}])
def test_files_with_deepspeed_keys_and_evidence_of_another_kind_are_doubtful(value):
    assert deepspeed_config_kind("conf.json", value) == "doubtful"
    assert not looks_like_deepspeed_config("conf.json", value)


@pytest.mark.parametrize("value", [DS_WITH_TYPO, DS_SCALAR_FP16,
                                   {"train_batch_size": 8, "steps_per_print": 1, "learning_rate": 1e-3,
                                    "_comment": "x", "zero_optimization": {"stage": 1}}])
def test_deepspeed_configs_with_one_mistake_stay_configs(value):
    # one unknown key, a scalar fp16 among known keys only, one misplaced optimizer field: DSL601/603's business
    assert looks_like_deepspeed_config("conf.json", value)
    assert not is_doubtful(value, DEEPSPEED_MARKER_KEYS)


def test_the_real_configs_of_the_corpus_all_stay_configs():
    from dslint.sources.dsconfig import _decode_lenient

    folder = shared_or_skip("corpus", "ds_configs")
    files = sorted(folder.rglob("*.json"))
    assert len(files) >= 99
    doubtful = [f.name for f in files if deepspeed_config_kind(str(f), _decode_lenient(f.read_text())) != "config"]
    assert doubtful == []


def test_hf_arguments_file_and_own_hyperparameters_get_no_config_findings(project):
    project.write({
        "args/sft.json": json.dumps(HF_ARGS),
        "configs/train.json": json.dumps(OWN_HPARAMS),
        "train.py": "import json, sys\ncfg = json.load(open(sys.argv[1]))\nprint(cfg['arch'])\n",
    })
    assert project.codes() == []


def test_a_doubtful_file_a_setup_links_as_its_deepspeed_config_is_checked_as_one(project):
    project.write({
        "cfg/ds.json": json.dumps({"train_batch_size": 16, "fp16": True, "learning_rate": 1e-4, "warmup": 100}),
        "cfg/other.json": json.dumps({"train_batch_size": 16, "fp16": True, "tag": "unused"}),
        "train.py": "import deepspeed, torch\nnet = torch.nn.Linear(2, 2)\n"
                    "engine, *_ = deepspeed.initialize(model=net, config='cfg/ds.json')\n",
    })
    findings = project.check().findings
    assert {f.path for f in findings if f.code.startswith("DSL6")} == {"cfg/ds.json"}
    assert {"DSL601", "DSL603"} <= {f.code for f in findings}


def test_a_doubtful_file_named_on_the_launch_line_is_checked_as_a_config(project):
    project.write({
        "ds_conf.json": json.dumps({"train_micro_batch_size_per_gpu": 2, "bf16": True, "seed_value": 3}),
        "run.sh": "deepspeed pretrain.py --deepspeed --deepspeed_config ds_conf.json\n",
        "pretrain.py": "import argparse, deepspeed, torch\np = argparse.ArgumentParser()\n"
                       "p = deepspeed.add_config_arguments(p)\nargs = p.parse_args()\n"
                       "engine, *_ = deepspeed.initialize(args=args, model=torch.nn.Linear(2, 2))\n",
    })
    assert "DSL603" in project.codes()


# --- DSL301: a dataset already split per rank, iterable datasets under an `or` of isinstance tests

SPLIT = """import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from datasets import load_dataset
from datasets.distributed import split_dataset_by_node

dist.init_process_group("nccl")
rows = load_dataset("json", data_files="rows.jsonl", split="train")
{line}
loader = DataLoader({arg}, batch_size=4, shuffle=True)
net = DistributedDataParallel(build())
for batch in loader:
    net(batch)
"""


@pytest.mark.parametrize("line, arg", [
    ("part = split_dataset_by_node(rows, rank=dist.get_rank(), world_size=dist.get_world_size())", "part"),
    ("part = split_dataset_by_node(rows, dist.get_rank(), dist.get_world_size()).shuffle(seed=0)", "part"),
    ("part = split_dataset_by_node(rows, rank=0, world_size=2)\nready = part.map(str).with_format('torch')", "ready"),
])
def test_loader_over_a_dataset_split_by_node_needs_no_sampler(project, line, arg):
    project.write({"fit.py": SPLIT.format(line=line, arg=arg)})
    assert "DSL301" not in project.codes()


def test_loader_over_the_unsplit_map_style_dataset_is_still_flagged(project):
    project.write({"fit.py": SPLIT.format(line="part = rows.map(str)", arg="part")})
    assert "DSL301" in project.codes()


OR_GUARD = """import torch.distributed as dist
import webdataset as wds
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import ChainDataset, DataLoader, DistributedSampler


def loader_for(data):
    if {test}:
        return DataLoader(data, batch_size=8)
    return DataLoader(data, batch_size=8, sampler=DistributedSampler(data))


dist.init_process_group("nccl")
net = DistributedDataParallel(build())
for batch in loader_for(make()):
    net(batch)
"""


@pytest.mark.parametrize("test", [
    "isinstance(data, ChainDataset) or isinstance(data, wds.DataPipeline)",
    "isinstance(data, (wds.WebDataset, ChainDataset))",
])
def test_loader_under_an_isinstance_test_of_iterable_classes_is_not_flagged(project, test):
    project.write({"fit.py": OR_GUARD.format(test=test)})
    assert "DSL301" not in project.codes()


def test_loader_under_an_unrelated_isinstance_test_is_still_flagged(project):
    project.write({"fit.py": OR_GUARD.format(test="isinstance(data, list) or isinstance(data, tuple)")})
    assert "DSL301" in project.codes()


# --- DSL302: set_epoch called by a helper of another module that the loader or sampler is handed to

TRAIN = """import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler
{imports}

dist.init_process_group("nccl")
data = build_data()
sampler = DistributedSampler(data)
loader = DataLoader(data, batch_size=8, sampler=sampler)
net = DistributedDataParallel(build())
for epoch in range(5):
    {call}
    for batch in loader:
        net(batch)
"""

HELPERS = """def start_epoch(dl, n):
    dl.sampler.set_epoch(n)


def reseed(state, epoch, *, smp=None):
    s = getattr(state, "sampler", None) if smp is None else smp
    if hasattr(s, "set_epoch"):
        s.set_epoch(epoch)


def log_epoch(dl, n):
    print(len(dl), n)
"""


@pytest.mark.parametrize("imports, call", [
    ("from tools.epochs import start_epoch", "start_epoch(loader, epoch)"),
    ("from tools import epochs", "epochs.start_epoch(loader, epoch)"),
    ("from tools.epochs import reseed", "reseed(loader, epoch)"),
])
def test_set_epoch_by_a_helper_of_another_module_counts(project, imports, call):
    project.write({"tools/__init__.py": "", "tools/epochs.py": HELPERS,
                   "fit.py": TRAIN.format(imports=imports, call=call)})
    assert "DSL302" not in project.codes()


def test_set_epoch_by_a_relatively_imported_helper_counts(project):
    project.write({"pkg/__init__.py": "", "pkg/epochs.py": HELPERS,
                   "pkg/fit.py": TRAIN.format(imports="from .epochs import start_epoch", call="start_epoch(loader, epoch)")})
    assert "DSL302" not in project.codes()


@pytest.mark.parametrize("helpers", [
    "def log_epoch(dl, n):\n    print(len(dl), n)\n",
    "def log_epoch(dl, n, other=None):\n    other.sampler.set_epoch(n)\n",  # another parameter's sampler
])
def test_a_helper_that_does_not_set_the_epoch_leaves_the_finding(project, helpers):
    project.write({"tools/__init__.py": "", "tools/epochs.py": helpers,
                   "fit.py": TRAIN.format(imports="from tools.epochs import log_epoch", call="log_epoch(loader, epoch)")})
    assert "DSL302" in project.codes()


def test_the_function_summary_names_the_parameter_set_epoch_reaches():
    import ast

    from dslint.facts.module_summary import summarise_module
    from dslint.facts.script import build_script_facts

    exports = summarise_module(build_script_facts("tools/epochs.py", HELPERS, ast.parse(HELPERS)))
    reached = {name: f.set_epoch_params for name, f in exports.functions.items()}
    assert reached["start_epoch"] == ("dl",)
    assert set(reached["reseed"]) == {"state", "smp"}
    assert "log_epoch" not in reached  # (a function that says nothing has no summary)


# --- DSL603: placeholders a launch script fills (sed/envsubst) before DeepSpeed reads the config

@pytest.mark.parametrize("placeholder", ["__TBS__", "@TRAIN_BATCH@", "${TBS}", "{{ tbs }}"])
def test_placeholder_values_of_a_template_are_not_wrong_values(project, placeholder):
    project.write({"ds_template.json": json.dumps({"train_batch_size": placeholder,
                                                   "zero_optimization": {"stage": 1}})})
    assert "DSL603" not in project.codes()


def test_a_word_where_a_number_belongs_is_still_a_wrong_value(project):
    project.write({"ds_template.json": json.dumps({"train_batch_size": "thirty-two",
                                                   "zero_optimization": {"stage": 1}})})
    assert "DSL603" in project.codes()


FACTORY_TRAIN = """import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from tools.data import make_loader
from tools.epochs import {helper}

dist.init_process_group("nccl")
loader = make_loader(build_data())
net = DistributedDataParallel(build())
for epoch in range(5):
    {helper}(loader, epoch)
    for batch in loader:
        net(batch)
"""
FACTORY = """from torch.utils.data import DataLoader, DistributedSampler


def make_loader(data):
    return DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
"""


@pytest.mark.parametrize("helper, flagged", [("start_epoch", False), ("log_epoch", True)])
def test_a_loader_a_project_function_builds_gets_its_epoch_from_a_helper(project, helper, flagged):
    project.write({"tools/__init__.py": "", "tools/data.py": FACTORY,
                   "tools/epochs.py": HELPERS if helper == "start_epoch" else "def log_epoch(dl, n):\n    print(n)\n",
                   "fit.py": FACTORY_TRAIN.format(helper=helper)})
    assert ("DSL302" in project.codes()) is flagged
