"""DSL60x/DSL61x: config rules, alone and against the linked launch line and script."""
from __future__ import annotations

TRAIN = """import deepspeed
import torch

model = torch.nn.Linear(8, 8)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
"""


def test_typo_fix_renames_only_the_key(project):
    project.write({"ds_config.json": '{\n  "train_micro_batch_size_per_gpu": 8,\n  "gradient_acumulation_steps" : 4\n}\n'})
    assert project.codes() == ["DSL601"]
    project.fix()
    assert project.read("ds_config.json") == '{\n  "train_micro_batch_size_per_gpu": 8,\n  "gradient_accumulation_steps" : 4\n}\n'
    project.fix()
    assert project.codes() == []


def test_typo_next_to_the_real_key_is_reported_but_not_renamed(project):
    text = '{"train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 2, "gradient_acumulation_steps": 4}\n'
    project.write({"ds_config.json": text})
    result = project.check()
    assert [f.code for f in result.findings] == ["DSL601"]
    assert result.findings[0].fix is None


def test_hjson_config_is_reported_never_rewritten(project):
    text = '{\n  // zero 2\n  "train_micro_batch_size_per_gpu": 8,\n  "gradient_acumulation_steps": 4,\n}\n'
    project.write({"ds_config.json": text})
    assert "DSL601" in project.codes()
    project.fix()
    assert project.read("ds_config.json") == text


def test_nested_unknown_key_is_found(project):
    project.write({"ds_config.json": '{"train_batch_size": 8, "zero_optimization": {"stage": 2, "offlaod_optimizer": {"device": "cpu"}}}'})
    result = project.check()
    assert [(f.code, f.span.start.column) for f in result.findings] == [("DSL601", 59)]


def test_batch_mismatch_uses_deepspeed_num_gpus_and_points_at_the_key(project):
    project.write({
        "run.sh": "deepspeed --num_gpus 8 train.py\n",
        "train.py": TRAIN,
        "ds.json": '{\n  "train_batch_size": 64,\n  "train_micro_batch_size_per_gpu": 4,\n  "gradient_accumulation_steps": 4\n}\n',
    })
    findings = [f for f in project.check().findings if f.code == "DSL610"]
    assert len(findings) == 1
    assert findings[0].path == "ds.json" and findings[0].span.start.row == 2
    assert "64 != 4 x 4 x 8 = 128 (micro x accumulation x world size)" in findings[0].message
    assert findings[0].related[0][0] == "run.sh"


def test_batch_consistent_for_the_launch_is_clean(project):
    project.write({
        "run.sh": "deepspeed --num_gpus 8 train.py\n",
        "train.py": TRAIN,
        "ds.json": '{"train_batch_size": 128, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}',
    })
    assert project.codes() == []


def test_batch_unknown_world_size_says_nothing_until_settings_supply_it(project):
    project.write({
        "train.py": TRAIN,
        "ds.json": '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}',
    })
    assert project.codes() == []
    assert project.codes(**{"nproc-per-node": 8, "nodes": 1}) == ["DSL610"]


def test_config_path_from_argparse_option_on_the_launch_line(project):
    script = TRAIN.replace('config="ds.json"', "config=args.ds").replace(
        "model = ", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--ds-config', dest='ds', default='other.json')\nargs = p.parse_args()\nmodel = ")
    project.write({
        "launch.sh": "torchrun --nproc_per_node=2 train.py --ds-config configs/ds.json\n",
        "train.py": script,
        "configs/ds.json": '{"train_batch_size": 12, "train_micro_batch_size_per_gpu": 4}',
        "other.json": '{"train_batch_size": 8, "train_micro_batch_size_per_gpu": 4}',
    })
    findings = project.check().findings
    assert [(f.code, f.path) for f in findings] == [("DSL610", "configs/ds.json")]
    assert "train_batch_size 12 is not divisible by 4 (micro) x 2 (world size)" in findings[0].message


def test_model_parallel_world_is_not_checked(project):
    project.write({
        "run.sh": "deepspeed --num_gpus 8 train.py\n",
        "train.py": TRAIN.replace("config=\"ds.json\"", "config=\"ds.json\", mpu=mpu"),
        "ds.json": '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}',
    })
    assert "DSL610" not in project.codes()


def test_hf_deepspeed_argument_links_the_config(project):
    project.write({
        "run.sh": "deepspeed --num_gpus 4 finetune.py --deepspeed ds_z2.json --output_dir out\n",
        "finetune.py": "from transformers import HfArgumentParser, Trainer, TrainingArguments\n"
                       "args, = HfArgumentParser((TrainingArguments,)).parse_args_into_dataclasses()\n"
                       "Trainer(model=None, args=args).train()\n",
        "ds_z2.json": '{"train_batch_size": 6, "train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2}}',
    })
    assert project.codes() == ["DSL610"]


def test_auto_values_under_plain_deepspeed_are_errors_but_not_under_hf(project):
    config = '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2}}'
    project.write({"run.sh": "deepspeed --num_gpus 2 train.py\n", "train.py": TRAIN, "ds.json": config})
    assert project.codes() == ["DSL604"]
    hf = type(project)(project.root / "hf")
    hf.root.mkdir()
    hf.write({"ds.json": config})
    assert hf.codes() == []


OFFLOAD = '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}'


def test_adamw_fix_keeps_torchs_default_weight_decay(project):
    project.write({"train.py": "import deepspeed, torch\nmodel = torch.nn.Linear(2, 2)\n"
                               "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95))\n"
                               "engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config='ds.json')\n",
                   "ds.json": OFFLOAD})
    assert project.codes() == ["DSL614"]
    project.fix()
    assert project.read("train.py") == (
        "import deepspeed, torch\nfrom deepspeed.ops.adam import DeepSpeedCPUAdam\n\nmodel = torch.nn.Linear(2, 2)\n"
        "opt = DeepSpeedCPUAdam(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.01)\n"
        "engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config='ds.json')\n")
    assert project.codes() == []


def test_optimizer_with_arguments_cpu_adam_lacks_gets_no_fix(project):
    project.write({"train.py": "import deepspeed, torch\nmodel = torch.nn.Linear(2, 2)\n"
                               "opt = torch.optim.Adam(model.parameters(), lr=3e-4, foreach=True)\n"
                               "engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config='ds.json')\n",
                   "ds.json": OFFLOAD})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL614"] and findings[0].fix is None


def test_config_optimizer_with_offload_is_clean(project):
    project.write({"train.py": TRAIN, "ds.json": OFFLOAD.replace('{"train', '{"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}, "train')})
    assert project.codes() == []


def test_optimizer_chosen_in_branches_is_not_assumed(project):
    project.write({"train.py": "import deepspeed, torch\nfrom deepspeed.ops.adam import DeepSpeedCPUAdam\nmodel = torch.nn.Linear(2, 2)\n"
                               "if CPU:\n    opt = DeepSpeedCPUAdam(model.parameters())\nelse:\n    opt = torch.optim.AdamW(model.parameters())\n"
                               "engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config='ds.json')\n",
                   "ds.json": OFFLOAD})
    assert project.codes() == []


def test_template_placeholders_are_not_wrong_values(project):
    """DeepSpeedExamples fills *_TEMPLATE.json configs with sed before use (shape of
    compression/bert/config/ds_config_TEMPLATE.json and hf_integration/configs/ds_config_temp.json)."""
    project.write({
        "ds_config_TEMPLATE.json": '{\n  "train_batch_size": 32,\n  "train_micro_batch_size_per_gpu": BATCH_SIZE_PER_GPU,\n'
                                   '  "fp16": {"enabled": FP16_ENABLE},\n  "zero_optimization": {\n    "stage": ${zero_stage},\n'
                                   '    "reduce_bucket_size": 5e8\n  }\n}\n',
        "ds_config.json": '{\n  "train_micro_batch_size_per_gpu": "eight",\n  "zero_optimization": {"stage": 2}\n}\n',
    })
    found = [(f.path, f.code) for f in project.check(select=["DSL603"]).findings]
    assert found == [("ds_config.json", "DSL603")]


def test_a_neox_style_config_is_not_a_deepspeed_config(project):
    """GPT-NeoX configs mix DeepSpeed blocks with NeoX's own hyphenated keys and are translated by
    NeoX, never given to DeepSpeed as they are (shape of gpt-neox/configs/autotuning_configs/tune.json)."""
    project.write({"tune.json": '{\n  "pipe-parallel-size": 1,\n  "model-parallel-size": 1,\n  "num-layers": 12,\n'
                                '  "train_micro_batch_size_per_gpu": 1,\n  "zero_optimization": {"stage": [0, 1, 2]}\n}\n'})
    result = project.check()
    assert result.findings == [] and result.files == 0
