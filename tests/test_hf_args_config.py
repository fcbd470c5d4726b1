"""DSL618 hf-args-config-mismatch: concrete DeepSpeed config values that disagree with the
script's TrainingArguments (transformers HfTrainerDeepSpeedConfig.trainer_config_process)."""
from __future__ import annotations

import json
import os

TRAIN = """from transformers import Trainer, TrainingArguments

args = TrainingArguments(output_dir="out", deepspeed="ds.json"{kwargs})
Trainer(model=None, args=args).train()
"""


def _train(kwargs: str = "") -> str:
    return TRAIN.format(kwargs=kwargs)


def _found(project, code="DSL618"):
    return [f for f in project.check().findings if f.code == code]


def _rows(findings):
    return sorted((os.path.normpath(f.path), f.span.start.row) for f in findings)


def test_module_constant_path_and_a_bf16_config_against_the_bf16_default(project):
    project.write({
        "train.py": "import os\nfrom transformers import Trainer, TrainingArguments\n\n"
                    "HERE = os.path.dirname(os.path.abspath(__file__))\n"
                    "DS_CONFIG = os.path.join(HERE, \"ds\", \"zero2.json\")\n\n"
                    "def main():\n"
                    "    args = TrainingArguments(output_dir=\"o\", fp16=True, deepspeed=DS_CONFIG)\n"
                    "    Trainer(model=None, args=args).train()\n",
        "ds/zero2.json": '{\n  "bf16": {"enabled": true},\n  "train_micro_batch_size_per_gpu": "auto"\n}\n',
    })
    [finding] = _found(project)
    assert _rows([finding]) == [("ds/zero2.json", 2)]
    assert finding.message == (
        '"bf16.enabled": true but TrainingArguments has bf16=False (the default), so the HF Trainer stops at train(); '
        'use "auto"')
    [(path, span, note)] = finding.related
    assert (path, span.start.row, note) == ("train.py", 8, "TrainingArguments leaves bf16=False (the default)")
    assert finding.severity.name == "ERROR"


def test_keywords_given_as_literals_and_names_bound_once_are_compared(project):
    project.write({
        "train.py": "from transformers import Trainer, TrainingArguments\n\nLR = 3e-5\nbatch = 16\n"
                    "args = TrainingArguments(output_dir='o', deepspeed='ds.json', learning_rate=LR,\n"
                    "                         per_device_train_batch_size=batch, adam_beta2=0.95)\n"
                    "Trainer(model=None, args=args).train()\n",
        "ds.json": json.dumps({"train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 1,
                               "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "betas": [0.9, 0.95],
                                                                          "eps": 1e-6, "weight_decay": 0.0}}},
                              indent=1),
    })
    findings = _found(project)
    messages = sorted(f.message.split(", so the HF")[0] for f in findings)
    assert messages == [
        '"optimizer.params.eps": 1e-06 but TrainingArguments has adam_epsilon=1e-08 (the default)',
        '"optimizer.params.lr": 0.0001 but TrainingArguments has learning_rate=3e-05',
        '"train_micro_batch_size_per_gpu": 8 but TrainingArguments has per_device_train_batch_size=16',
    ]
    by_key = {f.message.split('"')[1]: f for f in findings}
    [(path, span, note)] = by_key["train_micro_batch_size_per_gpu"].related
    assert (path, span.start.row, span.start.column, note) == ("train.py", 6, 26, "TrainingArguments: per_device_train_batch_size=16")
    assert by_key["optimizer.params.lr"].message.endswith(', so the HF Trainer stops at train(); use "auto"')


def test_fp16_and_gradient_clipping_and_scheduler_keys(project):
    project.write({
        "train.py": _train(", fp16=True, max_grad_norm=0.3, warmup_steps=100"),
        "ds.json": json.dumps({"zero_optimization": {"stage": 2}, "fp16": {"enabled": False}, "gradient_clipping": 1.0,
                               "scheduler": {"type": "WarmupLR", "params": {"warmup_max_lr": 5e-5, "warmup_num_steps": 500}}}),
    })
    keys = sorted(f.message.split('"')[1] for f in _found(project))
    assert keys == ["fp16.enabled", "gradient_clipping", "scheduler.params.warmup_num_steps"]


def test_auto_values_and_agreeing_values_are_clean(project):
    project.write({
        "train.py": _train(", bf16=True, per_device_train_batch_size=4, gradient_accumulation_steps=2"),
        "ds.json": json.dumps({"bf16": {"enabled": True}, "fp16": {"enabled": "auto"},
                               "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2,
                               "gradient_clipping": "auto", "train_batch_size": "auto"}),
    })
    assert _found(project) == []


def test_values_from_the_command_line_say_nothing(project):
    config = json.dumps({"bf16": {"enabled": True}, "train_micro_batch_size_per_gpu": 2,
                         "optimizer": {"type": "AdamW", "params": {"lr": 1.0}}})
    project.write({
        "train.py": "from transformers import HfArgumentParser, Trainer, TrainingArguments\n"
                    "(args,) = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()\n"
                    "Trainer(model=None, args=args).train()\n",
        "run.sh": "deepspeed --num_gpus 2 train.py --deepspeed ds.json --output_dir o\n",
        "ds.json": config,
    })
    assert _found(project) == []
    project.write({
        "train.py": "import argparse\nfrom transformers import Trainer, TrainingArguments\n"
                    "p = argparse.ArgumentParser()\np.add_argument('--lr', type=float, default=1.0)\n"
                    "p.add_argument('--bs', type=int, default=2)\ncli = p.parse_args()\nlr = cli.lr * 1\n"
                    "args = TrainingArguments(output_dir='o', deepspeed='ds.json', learning_rate=lr,\n"
                    "                         per_device_train_batch_size=cli.bs, **{'bf16': True})\n"
                    "Trainer(model=None, args=args).train()\n",
    })
    assert _found(project) == []


def test_star_kwargs_leave_the_fields_not_given_unknown_but_not_the_keywords(project):
    project.write({
        "train.py": "from transformers import Trainer, TrainingArguments\nextra = dict(bf16=True)\n"
                    "args = TrainingArguments(output_dir='o', deepspeed='ds.json', gradient_accumulation_steps=4, **extra)\n"
                    "Trainer(model=None, args=args).train()\n",
        "ds.json": json.dumps({"bf16": {"enabled": True}, "gradient_clipping": 0.5, "train_micro_batch_size_per_gpu": 8,
                               "gradient_accumulation_steps": 2}),
    })
    # auto_find_batch_size may be among **extra, so the micro-batch is not compared either
    assert [f.message.split('"')[1] for f in _found(project)] == ["gradient_accumulation_steps"]


def test_a_field_changed_after_the_call_is_unknown(project):
    project.write({
        "train.py": "from transformers import Trainer, TrainingArguments\n"
                    "args = TrainingArguments(output_dir='o', deepspeed='ds.json')\nargs.bf16 = True\n"
                    "Trainer(model=None, args=args).train()\n",
        "ds.json": json.dumps({"bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}),
    })
    assert _found(project) == []
    project.write({
        "train.py": "from transformers import Trainer, TrainingArguments\n"
                    "args = TrainingArguments(output_dir='o', deepspeed='ds.json')\n"
                    "for name, value in {'bf16': True}.items():\n    setattr(args, name, value)\n"
                    "Trainer(model=None, args=args).train()\n",
    })
    assert _found(project) == []


def test_auto_find_batch_size_skips_the_batch_keys(project):
    project.write({
        "train.py": _train(", auto_find_batch_size=True"),
        "run.sh": "deepspeed --num_gpus 2 train.py\n",
        "ds.json": json.dumps({"train_micro_batch_size_per_gpu": 4, "train_batch_size": 8}),
    })
    assert _found(project) == []


def test_train_batch_size_needs_the_world_size_of_the_launch(make_project):
    config = json.dumps({"train_batch_size": 64, "train_micro_batch_size_per_gpu": "auto",
                         "gradient_accumulation_steps": "auto"})
    script = _train(", per_device_train_batch_size=4, gradient_accumulation_steps=2")
    unlaunched = make_project("unlaunched").write({"train.py": script, "ds.json": config})
    assert _found(unlaunched) == []
    launched = make_project("launched").write({"train.py": script, "ds.json": config,
                                               "run.sh": "deepspeed --num_gpus 4 train.py\n"})
    [finding] = _found(launched)
    # The three factors do not fit one line: the message cuts them, the notes point at each.
    assert finding.message.startswith(
        '"train_batch_size": 64 but TrainingArguments has per_device_train_batch_size=4 x gradient_accumulation_steps=')
    assert finding.message.endswith(', so the HF Trainer stops at train(); use "auto"') and len(finding.message) <= 160
    assert [note for _, _, note in finding.related] == ["TrainingArguments: per_device_train_batch_size=4",
                                                        "TrainingArguments: gradient_accumulation_steps=2"]


def test_train_batch_size_left_to_dsl610_when_the_config_itself_does_not_add_up(project):
    project.write({
        "train.py": _train(", per_device_train_batch_size=4"),
        "run.sh": "deepspeed --num_gpus 4 train.py\n",
        "ds.json": json.dumps({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,
                               "gradient_accumulation_steps": 1}),
    })
    assert sorted(project.codes()) == ["DSL610"]


def test_trl_configs_compare_only_the_keywords_given(project):
    project.write({
        "train.py": "from trl import SFTConfig, SFTTrainer\n"
                    "args = SFTConfig(output_dir='o', deepspeed='ds.json', gradient_accumulation_steps=2)\n"
                    "SFTTrainer(model=None, args=args).train()\n",
        "ds.json": json.dumps({"bf16": {"enabled": True}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
                               "gradient_accumulation_steps": 4}),
    })
    assert [f.message.split('"')[1] for f in _found(project)] == ["gradient_accumulation_steps"]


def test_two_training_arguments_that_disagree_say_nothing(project):
    project.write({
        "train.py": "import sys\nfrom transformers import Trainer, TrainingArguments\nCFG = 'ds.json'\n"
                    "if sys.argv[1] == 'bf16':\n    args = TrainingArguments(output_dir='o', deepspeed=CFG, bf16=True)\n"
                    "else:\n    args = TrainingArguments(output_dir='o', deepspeed=CFG)\n"
                    "Trainer(model=None, args=args).train()\n",
        "ds.json": json.dumps({"bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}),
    })
    assert _found(project) == []


def test_quoted_numbers_are_dsl603s_and_plain_deepspeed_is_not_compared(make_project):
    quoted = make_project("quoted").write({"train.py": _train(), "ds.json": '{"gradient_accumulation_steps": "4"}'})
    assert "DSL618" not in quoted.codes()
    plain = make_project("plain").write({
        "train.py": "import deepspeed\nimport torch\nmodel = torch.nn.Linear(2, 2)\n"
                    "deepspeed.initialize(model=model, model_parameters=model.parameters(), config='ds.json')\n",
        "ds.json": json.dumps({"bf16": {"enabled": True}, "train_micro_batch_size_per_gpu": 2}),
    })
    assert "DSL618" not in plain.codes()


def test_fix_sets_auto_once_and_keeps_strict_json(project):
    config = '{\n  "bf16": {"enabled": true},\n  "gradient_clipping": 0.5,\n  "zero_optimization": {"stage": 2}\n}\n'
    project.write({"train.py": _train(", fp16=True"), "ds.json": config})
    [first, second] = _found(project)
    assert first.fix.applicability.name == "UNSAFE"  # the config's own value gives way to the script's
    project.fix(unsafe=True, select=["DSL618"])
    fixed = project.read("ds.json")
    assert fixed == '{\n  "bf16": {"enabled": "auto"},\n  "gradient_clipping": "auto",\n  "zero_optimization": {"stage": 2}\n}\n'
    json.loads(fixed)
    assert project.check().findings == []
    project.fix(unsafe=True, select=["DSL618"])
    assert project.read("ds.json") == fixed


def test_no_fix_when_another_reader_shares_the_config(project):
    project.write({
        "train.py": _train(),
        "pretrain.py": "import deepspeed\nimport torch\nmodel = torch.nn.Linear(2, 2)\n"
                       "deepspeed.initialize(model=model, model_parameters=model.parameters(), config='ds.json')\n",
        "ds.json": json.dumps({"bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}),
    })
    [finding] = _found(project)
    assert finding.fix is None


SETTINGS_TRAIN = """from transformers import Trainer, TrainingArguments

from sft import settings as S
from sft.settings import GRAD_ACCUM

args = TrainingArguments(output_dir="o", per_device_train_batch_size=S.BATCH, gradient_accumulation_steps=GRAD_ACCUM,
                         deepspeed=S.DS_CONFIG)
Trainer(model=None, args=args).train()
"""
SETTINGS = 'BATCH = 4\nGRAD_ACCUM = 2\nDS_CONFIG = "configs/ds.json"\n'


def _settings_project(project, train=SETTINGS_TRAIN, settings=SETTINGS):
    return project.write({"train.py": train, "sft/__init__.py": "", "sft/settings.py": settings,
                          "configs/ds.json": json.dumps({"train_micro_batch_size_per_gpu": 8,
                                                         "gradient_accumulation_steps": "auto"})})


def test_config_path_and_fields_from_a_settings_module_attribute_are_compared(project):
    [finding] = _found(_settings_project(project))
    assert _rows([finding]) == [("configs/ds.json", 1)]
    assert finding.message.startswith('"train_micro_batch_size_per_gpu": 8 but TrainingArguments has '
                                      'per_device_train_batch_size=4')
    [(path, span, _)] = finding.related
    assert (path, span.start.row) == ("train.py", 6)


def test_settings_the_script_changes_or_that_are_not_constants_say_nothing(project):
    assert _found(_settings_project(project, settings=SETTINGS.replace("BATCH = 4", "BATCH = int('4')"))) == []
    changed = SETTINGS_TRAIN.replace("args = ", "S.DS_CONFIG = 'other.json'\nargs = ")
    assert _found(_settings_project(project, train=changed)) == []
    assert _found(_settings_project(project, settings=SETTINGS.replace("BATCH = 4", "BATCH = 8"))) == []
