"""DeepSpeed config values the files prove through names and objects: constants of other modules and
arithmetic in a dict a function returns, the defaults of a dataclass instance given to
TrainingArguments, a loaded config changed with command-line defaults, YAML configs."""
from __future__ import annotations

from dslint.facts.config_dicts import Computed, ImportedName, NotLiteral, Param, fold, resolve_leaves, substitute


def _codes(findings, code: str) -> list:
    return [(f.path, f.span.start.row) for f in findings if f.code == code]


# -- a returned dict: names of other modules, arithmetic ------------------------------------------------

BUILDER_IMPORTED = """from tuning import ZERO, MICRO


def deepspeed_settings(lr=3e-5):
    return {{
        "train_micro_batch_size_per_gpu": MICRO,
        "optimizer": {{"type": "AdamW", "params": {{"lr": lr}}}},
        "zero_optimization": {{"stage": {stage}}},
    }}
"""
TUNING = "ZERO = {zero}\nMICRO = 2\n"
FINETUNE = """import deepspeed
import torch

from builders import deepspeed_settings

net = torch.nn.Linear(16, 16)
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=deepspeed_settings())
for _ in range(5):
    engine.backward(engine(torch.randn(2, 16, device=engine.device)).sum())
    engine.step()
torch.save(engine.module.state_dict(), "net.pt")
"""
LAUNCH = "deepspeed --num_gpus 2 finetune.py\n"


def test_a_stage_imported_from_another_module_into_a_returned_dict_is_read(project):
    project.write({"builders.py": BUILDER_IMPORTED.format(stage="ZERO"), "tuning.py": TUNING.format(zero=3),
                   "finetune.py": FINETUNE, "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL503") == [("finetune.py", 11)]


def test_an_imported_stage_below_three_is_not_reported(project):
    project.write({"builders.py": BUILDER_IMPORTED.format(stage="ZERO"), "tuning.py": TUNING.format(zero=2),
                   "finetune.py": FINETUNE, "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL503") == []


def test_a_module_attribute_of_an_imported_project_module_is_read(project):
    builder = BUILDER_IMPORTED.replace("from tuning import ZERO, MICRO", "import tuning").replace(
        "MICRO,", "tuning.MICRO,")
    project.write({"builders.py": builder.format(stage="tuning.ZERO + 1"), "tuning.py": TUNING.format(zero=2),
                   "finetune.py": FINETUNE, "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL503") == [("finetune.py", 11)]


def test_a_name_no_module_defines_stays_unknown(project):
    tuning = "import os\n\nZERO = int(os.environ.get('ZERO', 3))\nMICRO = 2\n"
    project.write({"builders.py": BUILDER_IMPORTED.format(stage="ZERO"), "tuning.py": tuning,
                   "finetune.py": FINETUNE, "launch.sh": LAUNCH})
    result = project.check()
    assert _codes(result.findings, "DSL503") == []


SIZED = """HIDDEN = 2048


def zero3(micro=1, hidden=HIDDEN, ratio=0.9):
    return {{
        "train_micro_batch_size_per_gpu": micro,
        "zero_optimization": {{
            "stage": 3,
            "reduce_bucket_size": hidden * hidden,
            "stage3_prefetch_bucket_size": {prefetch},
            "stage3_param_persistence_threshold": 10 * hidden,
        }},
    }}
"""
SIZED_SCRIPT = """import deepspeed
import torch

from sizing import zero3

net = torch.nn.Linear(16, 16)
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=zero3({args}))
"""


def test_arithmetic_on_a_parameter_default_that_is_a_module_constant_is_computed(project):
    project.write({"sizing.py": SIZED.format(prefetch="ratio * hidden * hidden"),
                   "finetune.py": SIZED_SCRIPT.format(args=""), "launch.sh": LAUNCH})
    findings = project.check().findings
    assert _codes(findings, "DSL607") == [("sizing.py", 10)]
    [finding] = [f for f in findings if f.code == "DSL607"]
    assert "3774873.6" in finding.message


def test_integer_arithmetic_and_a_caller_given_integer_ratio_are_not_reported(project):
    project.write({"sizing.py": SIZED.format(prefetch="ratio * hidden * hidden"),
                   "finetune.py": SIZED_SCRIPT.format(args="ratio=1"), "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL607") == []


def test_arithmetic_on_a_command_line_value_stays_unknown(project):
    script = SIZED_SCRIPT.replace("import deepspeed\n", "import argparse\n\nimport deepspeed\n").replace(
        "net = ", "parser = argparse.ArgumentParser()\nparser.add_argument('--hidden', type=int, default=4096)\n"
                  "args = parser.parse_args()\nnet = ")
    project.write({"sizing.py": SIZED.format(prefetch="0.9 * hidden * hidden"),
                   "finetune.py": script.format(args="hidden=args.hidden"), "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL607") == []


def test_literal_arithmetic_in_a_module_constant_dict_is_computed(project):
    module = 'WIDTH = 1024\nDS = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3, ' \
             '"stage3_prefetch_bucket_size": 0.9 * WIDTH * WIDTH}}\n'
    script = SIZED_SCRIPT.replace("from sizing import zero3", "from sizing import DS").format(args="").replace(
        "config=zero3()", "config=DS")
    project.write({"sizing.py": module, "finetune.py": script, "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL607") == [("sizing.py", 2)]


def test_template_leaves_fold_once_their_parts_are_known():
    product = Computed("hidden * hidden", "Mult", (Param("hidden"), Param("hidden")))
    assert substitute({"a": product}, {"hidden": 8}) == {"a": 64}
    assert isinstance(substitute({"a": product}, {"hidden": NotLiteral("args.h")})["a"], NotLiteral)
    shifted = fold("Add", (ImportedName("STAGE", "STAGE"), 1), "STAGE + 1")
    assert isinstance(shifted, Computed)
    assert resolve_leaves({"z": {"stage": shifted}}, {"STAGE": 2}.get) == {"z": {"stage": 3}}
    assert isinstance(resolve_leaves({"s": shifted}, lambda name: None)["s"], NotLiteral)
    assert isinstance(fold("Add", ("a", 1), "'a' + 1"), NotLiteral)  # (a string is no number)
    assert isinstance(fold("Pow", (10, 500), "10 ** 500"), NotLiteral)


# -- TrainingArguments from a dataclass instance of another module --------------------------------------

HPARAMS = """from dataclasses import dataclass


@dataclass
class Hparams:
    micro: int = 4
    steps: int = 1
    ds_file: str = "zero.json"
"""
ZERO_JSON = '{"train_micro_batch_size_per_gpu": 32, "gradient_accumulation_steps": "auto", ' \
            '"zero_optimization": {"stage": 1}}\n'
HF_SCRIPT = """from transformers import Trainer, TrainingArguments

from hparams import Hparams

{bind}


def run(hp{annotation}):
    args = TrainingArguments(output_dir="o", per_device_train_batch_size=hp.micro,
                             gradient_accumulation_steps=hp.steps, deepspeed=hp.ds_file)
    Trainer(model=None, args=args).train()


if __name__ == "__main__":
    run({call})
"""


def _hf(project, bind="", annotation="", call="Hparams()", hparams=HPARAMS):
    project.write({"hparams.py": hparams, "zero.json": ZERO_JSON, "run.sh": "deepspeed --num_gpus 2 fit.py\n",
                   "fit.py": HF_SCRIPT.format(bind=bind, annotation=annotation, call=call)})
    return project.check().findings


def test_training_arguments_from_an_instance_passed_to_the_only_call_are_read(project):
    assert _codes(_hf(project, annotation=": Hparams"), "DSL618") == [("zero.json", 1)]


def test_training_arguments_from_a_module_level_instance_are_read(project):
    script_call = "HP"
    assert _codes(_hf(project, bind="HP = Hparams()", call=script_call), "DSL618") == [("zero.json", 1)]


def test_an_instance_built_with_arguments_is_not_read(project):
    assert _codes(_hf(project, call="Hparams(micro=32)"), "DSL618") == []
    assert _codes(_hf(project, call="Hparams(32)"), "DSL618") == []


def test_a_field_changed_in_the_function_is_not_read(project):
    script = HF_SCRIPT.replace("    args = TrainingArguments", "    hp.micro = 32\n    args = TrainingArguments")
    project.write({"hparams.py": HPARAMS, "zero.json": ZERO_JSON, "run.sh": "deepspeed --num_gpus 2 fit.py\n",
                   "fit.py": script.format(bind="", annotation="", call="Hparams()")})
    assert _codes(project.check().findings, "DSL618") == []


def test_a_matching_class_default_is_clean(project):
    assert _codes(_hf(project, hparams=HPARAMS.replace("micro: int = 4", "micro: int = 32")), "DSL618") == []


def test_a_field_default_that_is_no_literal_stays_unknown(project):
    hparams = HPARAMS.replace("micro: int = 4", "micro: int = field(default_factory=lambda: 4)").replace(
        "from dataclasses import dataclass", "from dataclasses import dataclass, field")
    assert _codes(_hf(project, hparams=hparams), "DSL618") == []


# -- a loaded config changed with command-line defaults --------------------------------------------------

FP16_JSON = '{"train_micro_batch_size_per_gpu": 2, "fp16": {"enabled": true}}\n'
OVERLAY = """import argparse
import json

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="fp16.json")
parser.add_argument("--half", action="store_true")
parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=True)
args = parser.parse_args()
with open({path}) as handle:
    ds = json.load(handle)
ds.update({{"bf16": {{"enabled": {value}}}}})
net = torch.nn.Linear(4, 4)
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=ds)
"""


def _overlay(project, path='"fp16.json"', value="True", line="deepspeed --num_gpus 2 tune.py\n"):
    project.write({"fp16.json": FP16_JSON, "other.json": '{"train_micro_batch_size_per_gpu": 2}\n',
                   "tune.py": OVERLAY.format(path=path, value=value), "run.sh": line})
    return _codes(project.check().findings, "DSL606")


def test_a_file_named_by_an_option_default_is_the_base_of_the_changes(project):
    assert _overlay(project, path="args.config") == [("fp16.json", 1)]


def test_a_launch_line_naming_another_file_is_read_instead(project):
    assert _overlay(project, path="args.config", line="deepspeed --num_gpus 2 tune.py --config other.json\n") == []


def test_a_value_from_an_option_default_holds_when_the_launch_passes_no_option(project):
    assert _overlay(project, value="args.bf16") == [("fp16.json", 1)]


def test_a_launch_line_that_passes_the_option_leaves_the_value_unknown(project):
    assert _overlay(project, value="args.bf16", line="deepspeed --num_gpus 2 tune.py --no-bf16\n") == []
    assert _overlay(project, value="args.bf16", line='deepspeed --num_gpus 2 tune.py "$@"\n') == []
    assert _overlay(project, value="args.half") == []  # (store_true: False by default)


# -- YAML configs: yaml.safe_load, OmegaConf nodes ------------------------------------------------------

YAML_SCRIPT = """import deepspeed
import torch
import yaml

with open("ds.yml") as stream:
    settings = yaml.safe_load(stream)
net = torch.nn.Linear(4, 4)
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=settings)
"""


def test_a_yaml_config_read_with_safe_load_is_checked_at_its_keys(project):
    text = "train_micro_batch_size_per_gpu: '4'\nzero_optimization:\n  stage: 2\n"
    project.write({"ds.yml": text, "train.py": YAML_SCRIPT, "run.sh": "deepspeed --num_gpus 2 train.py\n"})
    findings = project.check().findings
    assert _codes(findings, "DSL603") == [("ds.yml", 1)]
    [finding] = [f for f in findings if f.code == "DSL603"]
    assert finding.fix is None  # (no JSON edit of a YAML file)


def test_a_valid_yaml_config_is_clean_and_json_read_yaml_is_not_a_yaml_document(project):
    text = "train_micro_batch_size_per_gpu: 4\nzero_optimization:\n  stage: 2\n"
    project.write({"ds.yml": text, "train.py": YAML_SCRIPT, "run.sh": "deepspeed --num_gpus 2 train.py\n"})
    assert [f.code for f in project.check().findings if f.code.startswith("DSL6")] == []
    bad = "train_micro_batch_size_per_gpu: '4'\n"
    project.write({"ds.yml": bad, "train.py": YAML_SCRIPT.replace("yaml.safe_load", "json.load").replace(
        "import yaml", "import json")})
    assert _codes(project.check().findings, "DSL603") == []


HYDRA_SCRIPT = """import deepspeed
import hydra
import torch
from omegaconf import OmegaConf


@hydra.main(config_path="conf", config_name="main", version_base=None)
def fit(cfg):
    net = torch.nn.Linear(4, 4)
    engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(),
                                      config=OmegaConf.to_container(cfg.engine.ds, resolve=True))


if __name__ == "__main__":
    fit()
"""
HYDRA_MAIN = "defaults:\n  - _self_\nengine:\n  ds:\n    train_micro_batch_size_per_gpu: auto\n" \
             "    zero_optimization:\n      stage: 1\n"


def test_an_omegaconf_node_given_as_a_dict_is_a_config_document(project):
    project.write({"conf/main.yaml": HYDRA_MAIN, "fit.py": HYDRA_SCRIPT, "run.sh": "deepspeed --num_gpus 2 fit.py\n"})
    assert _codes(project.check().findings, "DSL604") == [("conf/main.yaml", 5)]


def test_a_launch_override_or_an_interpolation_leaves_the_node_unknown(project):
    line = "deepspeed --num_gpus 2 fit.py engine.ds.train_micro_batch_size_per_gpu=8\n"
    project.write({"conf/main.yaml": HYDRA_MAIN, "fit.py": HYDRA_SCRIPT, "run.sh": line})
    assert _codes(project.check().findings, "DSL604") == []
    interpolated = HYDRA_MAIN.replace("train_micro_batch_size_per_gpu: auto", "train_micro_batch_size_per_gpu: ${mb}")
    project.write({"conf/main.yaml": interpolated + "mb: 8\n", "run.sh": "deepspeed --num_gpus 2 fit.py\n"})
    assert [f.code for f in project.check().findings if f.code.startswith("DSL6")] == []


def test_a_group_option_file_is_the_node(project):
    main = "defaults:\n  - _self_\n  - ds: small\nseed: 1\n"
    script = HYDRA_SCRIPT.replace("cfg.engine.ds", "cfg.ds")
    project.write({"conf/main.yaml": main, "conf/ds/small.yaml": "train_micro_batch_size_per_gpu: auto\n",
                   "fit.py": script, "run.sh": "deepspeed --num_gpus 2 fit.py\n"})
    assert _codes(project.check().findings, "DSL604") == [("conf/ds/small.yaml", 1)]
    project.write({"run.sh": "deepspeed --num_gpus 2 fit.py ds=large\n",
                   "conf/ds/large.yaml": "train_micro_batch_size_per_gpu: 8\n"})
    assert _codes(project.check().findings, "DSL604") == []


def test_an_imported_stage_in_a_dict_written_in_the_script_is_read(project):
    script = FINETUNE.replace("from builders import deepspeed_settings", "from tuning import ZERO").replace(
        "config=deepspeed_settings()",
        'config={"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": ZERO}}')
    project.write({"tuning.py": TUNING.format(zero=3), "finetune.py": script, "launch.sh": LAUNCH})
    assert _codes(project.check().findings, "DSL503") == [("finetune.py", 11)]
    project.write({"tuning.py": TUNING.format(zero=1)})
    assert _codes(project.check().findings, "DSL503") == []


def test_a_class_whose_post_init_may_change_the_field_is_not_read(project):
    hparams = HPARAMS + "\n    def __post_init__(self):\n        self.micro = self.micro * 8\n"
    assert _codes(_hf(project, hparams=hparams), "DSL618") == []


def test_an_option_changed_after_parsing_stays_unknown(project):
    script = OVERLAY.replace("args = parser.parse_args()\n", "args = parser.parse_args()\nif torch.cuda.device_count() < 8:\n"
                             "    args.bf16 = False\n")
    project.write({"fp16.json": FP16_JSON, "tune.py": script.format(path='"fp16.json"', value="args.bf16"),
                   "run.sh": "deepspeed --num_gpus 2 tune.py\n"})
    assert _codes(project.check().findings, "DSL606") == []
