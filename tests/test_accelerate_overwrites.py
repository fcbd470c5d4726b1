"""A config value accelerate overwrites (steps_per_print) is no problem where accelerate alone reads the config."""
from __future__ import annotations

CONFIG = '{\n  "zero_optimization": {"stage": 1},\n  "steps_per_print": "never",\n  "train_micro_batch_size_per_gpu": 4\n}\n'

ACCELERATE_YAML = ("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_processes: 2\n"
                   "deepspeed_config:\n  deepspeed_config_file: cfg/ds.json\n")

FIT = ("import torch\nfrom accelerate import Accelerator\n\nacc = Accelerator()\nnet = torch.nn.Linear(2, 2)\n"
       "opt = torch.optim.SGD(net.parameters(), lr=0.1)\nnet, opt = acc.prepare(net, opt)\n")

DEEPSPEED = ("import argparse\nimport deepspeed\nimport torch\n\nparser = argparse.ArgumentParser()\n"
             "parser.add_argument('--local_rank', type=int)\nparser = deepspeed.add_config_arguments(parser)\n"
             "args = parser.parse_args()\nnet = torch.nn.Linear(2, 2)\n"
             "engine, *_ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())\n")


def _dsl603(project, files):
    project.write(files)
    return [f.path for f in project.check(select=["DSL603"]).findings]


def test_read_only_through_accelerate_it_is_overwritten(project):
    assert _dsl603(project, {"cfg/ds.json": CONFIG, "cfg/run.yaml": ACCELERATE_YAML, "fit.py": FIT,
                             "go.sh": "accelerate launch --config_file cfg/run.yaml fit.py\n"}) == []


def test_read_by_deepspeed_itself_it_is_reported(project):
    assert _dsl603(project, {"cfg/ds.json": CONFIG, "train.py": DEEPSPEED,
                             "go.sh": "deepspeed train.py --deepspeed --deepspeed_config cfg/ds.json\n"}) == ["cfg/ds.json"]


def test_read_by_no_linked_setup_it_is_reported(project):
    assert _dsl603(project, {"cfg/ds.json": CONFIG}) == ["cfg/ds.json"]


def test_named_by_an_accelerate_yaml_no_launch_uses_yet_it_is_overwritten(project):
    yaml = ACCELERATE_YAML.replace("cfg/ds.json", "configs/deepspeed/ds.json")
    assert _dsl603(project, {"exp/configs/deepspeed/ds.json": CONFIG, "exp/configs/zero1.yaml": yaml}) == []
