"""DSL606–DSL617: single-config checks and the setup-linked ones, with exact fix output."""
from __future__ import annotations

DS_TRAIN = """import deepspeed
import torch

model = torch.nn.Linear(8, 8)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
engine.save_16bit_model("out")
"""


def test_fractional_bucket_fix_rounds_only_the_value(project):
    project.write({"ds.json": '{\n  "train_batch_size": 8,\n  "zero_optimization": {\n    "stage": 3,\n    "stage3_prefetch_bucket_size": 15099494.4\n  }\n}\n'})
    assert project.codes() == ["DSL607"]
    project.fix()
    assert project.read("ds.json") == '{\n  "train_batch_size": 8,\n  "zero_optimization": {\n    "stage": 3,\n    "stage3_prefetch_bucket_size": 15099494\n  }\n}\n'


def test_integral_float_bucket_is_fine(project):
    project.write({"ds.json": '{"train_batch_size": 8, "zero_optimization": {"stage": 2, "reduce_bucket_size": 5e8}}'})
    assert project.codes() == []


def test_offload_param_below_stage_3_and_nvme_downgrade(project):
    project.write({"ds.json": '{"train_batch_size": 8, "zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}, '
                              '"offload_optimizer": {"device": "nvme", "nvme_path": "/nvme"}}}'})
    assert project.codes() == ["DSL608", "DSL608"]


def test_pin_memory_missing_matters_only_on_old_deepspeed(project):
    config = '{\n  "train_batch_size": 8,\n  "zero_optimization": {\n    "stage": 2,\n    "offload_optimizer": {\n      "device": "cpu"\n    }\n  }\n}\n'
    project.write({"ds.json": config})
    assert project.codes(**{"deepspeed-version": "0.19.8"}) == []
    assert project.codes(**{"deepspeed-version": "0.18.2"}) == ["DSL613"]
    project.fix(**{"deepspeed-version": "0.18.2"})
    assert project.read("ds.json") == config.replace('"cpu"\n', '"cpu",\n      "pin_memory": true\n')


def test_duplicate_keys(project):
    project.write({"ds.json": '{"train_batch_size": 8, "fp16": {"enabled": true}, "fp16": {"enabled": false}}'})
    assert project.codes() == ["DSL616"]


def test_comment_key_is_not_unknown(project):
    project.write({"ds.json": '{"_comment": "zero 2", "train_batch_size": 8, "zero_optimization": {"stage": 2}}'})
    assert project.codes() == []


def test_zero3_save_gets_the_gather_key_inserted(project):
    config = '{\n  "train_micro_batch_size_per_gpu": 4,\n  "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},\n  "zero_optimization": {\n    "stage": 3\n  }\n}\n'
    project.write({"train.py": DS_TRAIN, "ds.json": config})
    findings = project.check().findings
    assert [f.code for f in findings] == ["DSL611"] and findings[0].related[0][0] == "train.py"
    project.fix()
    assert project.read("ds.json") == config.replace('"stage": 3\n', '"stage": 3,\n    "stage3_gather_16bit_weights_on_model_save": true\n')
    assert project.codes() == []


def test_zero3_without_a_16bit_save_is_clean(project):
    project.write({"train.py": DS_TRAIN.replace('engine.save_16bit_model("out")', 'engine.save_checkpoint("ckpt")'),
                   "ds.json": '{"train_micro_batch_size_per_gpu": 4, "optimizer": {"type": "AdamW"}, "zero_optimization": {"stage": 3}}'})
    assert project.codes() == []


def test_scheduler_only_flagged_for_the_hf_trainer(project):
    config = '{"train_micro_batch_size_per_gpu": 4, "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 10}}}'
    project.write({"train.py": DS_TRAIN.replace('engine.save_16bit_model("out")\n', ""), "ds.json": config})
    assert project.codes() == []
    hf = type(project)(project.root / "hf")
    hf.root.mkdir()
    hf.write({"train.py": "from transformers import Trainer, TrainingArguments\n"
                          "Trainer(model=None, args=TrainingArguments(output_dir='o', deepspeed='ds.json')).train()\n",
              "ds.json": config})
    # (a micro-batch of 4 against TrainingArguments' default 8 is also what the HF Trainer rejects: DSL618)
    assert sorted(hf.codes()) == ["DSL612", "DSL618"]


def test_hjson_config_only_fails_for_json_load_readers(project):
    config = '{\n  // zero 2\n  "train_micro_batch_size_per_gpu": 4,\n  "zero_optimization": {"stage": 2},\n}\n'
    project.write({"train.py": DS_TRAIN.replace('engine.save_16bit_model("out")\n', ""), "ds.json": config})
    assert project.codes() == []
    project.write({"train.py": "import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n"
                               "L.Trainer(devices=2, strategy=DeepSpeedStrategy(config='ds.json'))\n"})
    findings = project.check().findings
    assert [(f.code, f.span.start.row) for f in findings] == [("DSL615", 2)]
    project.fix()
    assert project.read("ds.json") == config


def test_lightning_config_with_accumulation(project):
    project.write({"train.py": "import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n"
                               "L.Trainer(devices=2, strategy=DeepSpeedStrategy(config='ds.json'))\n",
                   "ds.json": '{"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}'})
    assert project.codes() == ["DSL617"]


def test_pl_deepspeed_config_path_on_the_launch_line_links(project):
    project.write({"run.sh": "PL_DEEPSPEED_CONFIG_PATH=ds.json python train.py\n",
                   "train.py": "import lightning as L\nL.Trainer(devices=2, strategy='deepspeed')\n",
                   "ds.json": '{"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2}'})
    assert project.codes() == ["DSL617"]


def test_optimizer_params_are_not_read_when_every_initialize_passes_its_own_optimizer(project):
    """Megatron-DeepSpeed: the config's optimizer block is never built (engine.py
    _configure_optimizer), so its max_grad_norm never raises."""
    config = '{"train_micro_batch_size_per_gpu": 4, "optimizer": {"type": "Adam", "params": {"lr": 1e-4, "max_grad_norm": 1.0}}}'
    client = DS_TRAIN.replace("deepspeed.initialize(", "deepspeed.initialize(optimizer=build(model), ", 1)
    assert client != DS_TRAIN
    project.write({"train.py": client, "ds.json": config})
    assert "DSL601" not in project.codes()
    project.write({"train.py": DS_TRAIN})
    assert "DSL601" in project.codes()
