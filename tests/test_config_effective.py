"""Config rules read ZeRO stage, offload and precision as DeepSpeed does (dsconfig_schema.effective_config)."""
from __future__ import annotations

TRAIN = """import deepspeed
import torch

model = torch.nn.Linear(8, 8)
engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
"""
LEGACY_OFFLOAD = ('{"train_micro_batch_size_per_gpu": 2, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},\n'
                  ' "zero_optimization": {"stage": 2, "cpu_offload": true}}\n')


def test_legacy_cpu_offload_is_offload_for_dsl605_and_dsl201_alike(project):
    project.write({"run.sh": "deepspeed --num_gpus 8 train.py\n", "train.py": TRAIN, "ds.json": LEGACY_OFFLOAD})
    findings = project.check(select=["DSL605", "DSL201"]).findings
    by_code = {f.code: f for f in findings}
    assert sorted(by_code) == ["DSL201", "DSL605"]
    assert by_code["DSL605"].message == ("'cpu_offload' is deprecated; DeepSpeed still reads it (with a warning) as "
                                         "'offload_optimizer'.")
    assert (by_code["DSL201"].path, by_code["DSL201"].span.start.row) == ("run.sh", 1)
    assert by_code["DSL201"].message.startswith("ZeRO-Offload (ds.json) with 8 ranks per node")


def test_legacy_cpu_offload_false_is_no_offload(project):
    project.write({"run.sh": "deepspeed --num_gpus 8 train.py\n", "train.py": TRAIN,
                   "ds.json": LEGACY_OFFLOAD.replace('"cpu_offload": true', '"cpu_offload": false')})
    assert "DSL201" not in project.codes()


def test_offload_at_stage_0_is_no_cpu_optimizer_work(project):
    project.write({"run.sh": "deepspeed --num_gpus 8 train.py\n", "train.py": TRAIN,
                   "ds.json": LEGACY_OFFLOAD.replace('"stage": 2', '"stage": 0')})
    assert "DSL201" not in project.codes()


def test_fp16_and_bf16_read_as_pydantic_reads_the_flags(project):
    project.write({"ds.json": '{"train_batch_size": 8, "fp16": {"enabled": "true"}, "bf16": {"enabled": 1}}\n'})
    assert "DSL606" in project.codes()
    project.write({"ds.json": '{"train_batch_size": 8, "fp16": {"enabled": true}, "bf16": {"enabled": "auto"}}\n'})
    assert "DSL606" not in project.codes()


def test_show_setup_reads_the_legacy_cpu_offload_as_offload(tmp_path):
    """--show-setup's offload line comes from the same reader as the rules: a legacy
    `"cpu_offload": true` is an optimizer offload to the CPU, as DeepSpeed reads it."""
    import subprocess
    import sys

    (tmp_path / "train.py").write_text(
        "import deepspeed, torch\n"
        "model = torch.nn.Linear(2, 2)\n"
        "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config='ds.json')\n")
    (tmp_path / "ds.json").write_text('{"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2, "cpu_offload": true}}\n')
    (tmp_path / "run.sh").write_text("deepspeed --num_gpus 2 train.py\n")
    out = subprocess.run([sys.executable, "-m", "dslint", "check", "--no-cache", "--show-setup", "."], cwd=tmp_path,
                         capture_output=True, text=True).stdout
    assert "offload         optimizer: cpu, params: none" in out
