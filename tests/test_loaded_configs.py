"""A DeepSpeed config loaded from a file in the script (`with open(p) as f: cfg = json.load(f)`) is
that file, unless the script changes the dict before handing it on."""
from __future__ import annotations

import pytest

LOADED = """import json

import deepspeed
import torch

with open("ds.json") as f:
    cfg = json.load(f)
{change}model = torch.nn.Linear(8, 8)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
"""
CONFIG = '{"train_batch_size": 128, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}\n'


@pytest.mark.parametrize("change, flagged", [
    ("", True),  # 4 x 2 x 8 = 64, not 128
    ('cfg["train_batch_size"] = 64\n', False),  # the script sets it: the file's value is not the config's
    ('cfg.update({"train_batch_size": 64})\n', False),
    ("patch(cfg)\n", False),  # (a function may change it)
])
def test_a_config_loaded_with_open_is_the_file(project, change, flagged):
    project.write({"train.py": LOADED.format(change=change), "ds.json": CONFIG,
                   "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert ("DSL610" in project.codes()) == flagged


def test_the_inline_form_is_the_same(project):
    project.write({"train.py": LOADED.replace('with open("ds.json") as f:\n    cfg = json.load(f)',
                                              'cfg = json.load(open("ds.json"))').format(change='cfg["train_batch_size"] = 64\n'),
                   "ds.json": CONFIG, "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert "DSL610" not in project.codes()  # (was read as the file, ignoring the assignment)


MERGED = """import deepspeed
import torch

BASE = {{"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}}
{more}
CONFIG = {{**BASE, {entries}}}
model = torch.nn.Linear(8, 8)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=CONFIG)
"""


@pytest.mark.parametrize("more, entries, flagged", [
    ("", '"train_batch_size": 128', True),  # 4 x 2 x 8 = 64
    ("", '"train_batch_size": 64', False),
    ('LARGE = {"train_batch_size": 128}', "**LARGE", True),
    ('BASE["gradient_accumulation_steps"] = 4', '"train_batch_size": 128', False),  # BASE changes: unknown
])
def test_a_dict_merged_from_module_constants(project, more, entries, flagged):
    project.write({"train.py": MERGED.format(more=more, entries=entries), "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert ("DSL610" in project.codes()) == flagged


def test_a_merged_config_in_another_module(project):
    project.write({"ds_cfg.py": 'BASE = {"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}\n'
                                'LARGE = {"train_batch_size": 128}\nCONFIG = {**BASE, **LARGE}\n',
                   "train.py": MERGED.split("BASE =")[0] + "from ds_cfg import CONFIG\n\nmodel = torch.nn.Linear(8, 8)\n"
                               "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), "
                               "config=CONFIG)\n",
                   "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert "DSL610" in project.codes()


ENV_PATH = """import os

import deepspeed
import torch

path = os.environ.get("DS_CONFIG", "ds.json")
model = torch.nn.Linear(8, 8)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=path)
"""


@pytest.mark.parametrize("launch, flagged", [
    ("deepspeed --num_gpus 8 train.py\n", True),  # DS_CONFIG unset: the default ds.json
    ("DS_CONFIG=good.json deepspeed --num_gpus 8 train.py\n", False),  # the launch names another file
])
def test_a_config_path_from_an_environment_variable_defaults_to_its_fallback(project, launch, flagged):
    good = CONFIG.replace("128", "64")
    project.write({"train.py": ENV_PATH, "ds.json": CONFIG, "good.json": good, "run.sh": launch})
    assert ("DSL610" in project.codes()) == flagged
