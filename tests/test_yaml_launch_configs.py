"""YAML launch configs: accelerate `--config_file` and LightningCLI `--config` (sources/yaml_configs.py),
linked into the setup (facts/link.py) and read by DSL202, DSL608 and DSL702."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dslint import engine
from dslint.facts.link import describe_setups, link_setups
from dslint.report import render
from dslint.settings import Settings
from dslint.sources import yaml_configs
from dslint.sources.launch import parse_launch_file

# -- realistic files -----------------------------------------------------------------------------

FINETUNE_SH = """#!/usr/bin/env bash
# Full fine-tune of a 3B model on one 8-GPU node, optimizer states in host RAM.
set -euo pipefail
cd "$(dirname "$0")/.."
accelerate launch --config_file configs/accelerate/ds_zero2_offload.yaml \\
    finetune_lm.py --model /models/qwen2.5-3b --epochs 2
"""
DS_ZERO2_OFFLOAD_YAML = """compute_environment: LOCAL_MACHINE
debug: false
distributed_type: DEEPSPEED
deepspeed_config:
  gradient_accumulation_steps: 4
  gradient_clipping: 1.0
  offload_optimizer_device: cpu
  offload_param_device: none
  zero3_init_flag: false
  zero_stage: 2
downcast_bf16: 'no'
machine_rank: 0
main_training_function: main
mixed_precision: bf16
num_machines: 1
num_processes: 8
rdzv_backend: static
same_network: true
use_cpu: false
"""
DEBUG_YAML = """compute_environment: LOCAL_MACHINE
debug: true
distributed_type: 'NO'
gpu_ids: '0'
mixed_precision: bf16
num_machines: 1
num_processes: 1
use_cpu: false
"""
FINETUNE_PY = """import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM


def main():
    accelerator = Accelerator()
    model = AutoModelForCausalLM.from_pretrained("/models/qwen2.5-3b", torch_dtype=torch.bfloat16)
    loader = DataLoader(list(range(64)), batch_size=2, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
"""

CLI_PY = """from lightning.pytorch.cli import LightningCLI

from asr_lit import LibriSpeechData, SpeechRecognizer


def main():
    LightningCLI(SpeechRecognizer, LibriSpeechData, save_config_kwargs={"overwrite": True})


if __name__ == "__main__":
    main()
"""
ASR_LIT_PY = """import lightning as L
import torch
from deepspeed.ops.adam import DeepSpeedCPUAdam


class SpeechRecognizer(L.LightningModule):
    def __init__(self, d_model: int = 256, lr: float = 5e-4):
        super().__init__()
        self.save_hyperparameters()
        self.encoder = torch.nn.Linear(80, d_model)

    def configure_optimizers(self):
        return DeepSpeedCPUAdam(self.parameters(), lr=self.hparams.lr)


class LibriSpeechData(L.LightningDataModule):
    def __init__(self, root: str = "/data/librispeech", batch_size: int = 32):
        super().__init__()
"""
CONFORMER_YAML = """seed_everything: 1234
trainer:
  accelerator: gpu
  devices: 8
  num_nodes: 1
  precision: bf16-mixed
  max_epochs: 50
  strategy:
    class_path: lightning.pytorch.strategies.DeepSpeedStrategy
    init_args:
      stage: 2
      offload_optimizer: true
      offload_parameters: true
      pin_memory: true
model:
  d_model: 256
data:
  root: /data/librispeech
"""
TRAIN_SH = """#!/usr/bin/env bash
set -euo pipefail
export OMP_NUM_THREADS=8
torchrun --standalone --nproc_per_node=4 cli.py fit --config configs/conformer_offload.yaml
"""


def _accelerate_project(project, **replace):
    files = {"scripts/finetune.sh": FINETUNE_SH, "configs/accelerate/ds_zero2_offload.yaml": DS_ZERO2_OFFLOAD_YAML,
             "configs/accelerate/debug_single_gpu.yaml": DEBUG_YAML, "finetune_lm.py": FINETUNE_PY}
    files.update(replace)
    return project.write(files)


def _lightning_project(project, **replace):
    files = {"train.sh": TRAIN_SH, "cli.py": CLI_PY, "asr_lit.py": ASR_LIT_PY,
             "configs/conformer_offload.yaml": CONFORMER_YAML}
    files.update(replace)
    return project.write(files)


def _setups(root: Path):
    settings = Settings.model_validate({})
    old = os.getcwd()
    os.chdir(root)
    try:
        sources, _ = engine.discover(["."], settings, root)
        project = engine.build_project(root, engine.check_files(sources, settings))
        return project, link_setups(project, settings)
    finally:
        os.chdir(old)


def _where(finding) -> tuple:
    return (finding.code, finding.path, finding.span.start.row, finding.span.start.column, finding.span.end.row,
            finding.span.end.column)


# -- the YAML reader -------------------------------------------------------------------------------

def test_yaml_keys_have_the_positions_of_the_pair_or_of_a_block_key():
    doc = yaml_configs.parse_yaml(DS_ZERO2_OFFLOAD_YAML, "acc.yaml")
    assert doc.error is None and doc.value["deepspeed_config"]["zero_stage"] == 2
    pair = doc.span(("deepspeed_config", "offload_optimizer_device"))
    assert (pair.start.row, pair.start.column, pair.end.row, pair.end.column) == (7, 3, 7, 32)
    assert DS_ZERO2_OFFLOAD_YAML[pair.start_offset:pair.end_offset] == "offload_optimizer_device: cpu"
    block = doc.span(("deepspeed_config",))
    assert DS_ZERO2_OFFLOAD_YAML[block.start_offset:block.end_offset] == "deepspeed_config"
    assert doc.span(("no_such_key",)) is None


def test_positions_count_characters_not_bytes():
    text = "# réglage für die Maschine\nnum_processes: 4\n"
    span = yaml_configs.parse_yaml(text).span(("num_processes",))
    assert text[span.start_offset:span.end_offset] == "num_processes: 4" and span.start.row == 2


@pytest.mark.parametrize("text, error", [
    ("num_processes: [4\n", "not readable as YAML (ParserError"),
    ("a: 1\n---\nb: 2\n", "not readable as YAML (ComposerError: expected a single document in the stream"),
    ("launcher: !!python/object:os.system ls\n", "not readable as YAML (ConstructorError"),
])
def test_yaml_that_safe_load_rejects_gives_no_value(text, error):
    doc = yaml_configs.parse_yaml(text, "bad.yaml")
    assert doc.value is None and doc.error.startswith(error) and doc.keys == {}


def test_unreadable_yaml_files_never_raise(tmp_path):
    (tmp_path / "latin1.yaml").write_bytes(b"name: \xe9t\xe9\n")
    assert yaml_configs.read_yaml(str(tmp_path / "latin1.yaml"), "latin1.yaml").error == "is not UTF-8 text"
    assert yaml_configs.read_yaml(str(tmp_path / "missing.yaml"), "missing.yaml").error.startswith("cannot be read")


# -- accelerate --config_file ----------------------------------------------------------------------

def test_accelerate_config_file_deepspeed_offload_gets_one_thread_per_rank(project):
    _accelerate_project(project)
    findings = project.check().findings
    assert [_where(f) for f in findings] == [("DSL202", "scripts/finetune.sh", 5, 1, 5, 18)]
    finding = findings[0]
    assert finding.related == [("configs/accelerate/ds_zero2_offload.yaml",
                                finding.related[0][1], "the optimizer offload")]
    assert finding.related[0][1].start.row == 7
    assert finding.message.startswith(
        "ZeRO-Offload (ds_zero2_offload.yaml): accelerate sets OMP_NUM_THREADS=1 in its 8 ranks per node, starving "
        "the CPU optimizer")
    project.fix(**{"cpu-cores": 64})
    assert project.read("scripts/finetune.sh").splitlines()[4] == \
        "OMP_NUM_THREADS=8 accelerate launch --config_file configs/accelerate/ds_zero2_offload.yaml \\"
    assert project.codes() == []


def test_the_linked_setup_knows_what_accelerate_runs(project):
    _accelerate_project(project)
    proj, [setup] = _setups(project.root)
    assert (setup.nodes, setup.procs_per_node, setup.world_size) == (1, 8, 8)
    assert (setup.threads_per_rank, setup.config.consumer, setup.config.path) == ("1", "accelerate", None)
    assert setup.offload_devices() == ("cpu", "none")
    accelerate = setup.accelerate
    assert (accelerate.launcher, accelerate.distributed_type, accelerate.mixed_precision) == ("deepspeed", "DEEPSPEED", "bf16")
    assert accelerate.config.path == "configs/accelerate/ds_zero2_offload.yaml"  # not the decoy next to it
    assert setup.config.value == {
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 4,
        "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "nvme_path": None},
                              "offload_param": {"device": "none", "nvme_path": None},
                              "stage3_gather_16bit_weights_on_model_save": False},
        "gradient_clipping": 1.0}
    text = describe_setups(proj)
    assert "ranks per node  8 (num_processes / num_machines of configs/accelerate/ds_zero2_offload.yaml)" in text
    assert "offload         optimizer: cpu, params: none" in text


def test_exported_threads_pass_through_accelerates_deepspeed_launcher(project):
    _accelerate_project(project, **{"scripts/finetune.sh": FINETUNE_SH.replace(
        "set -euo pipefail\n", "set -euo pipefail\nexport OMP_NUM_THREADS=8\n")})
    assert project.codes() == []
    _, [setup] = _setups(project.root)
    assert setup.threads_per_rank == "8"


def test_num_cpu_threads_per_process_counts_for_multi_gpu_but_not_for_deepspeed(project):
    launch = "accelerate launch --config_file {cfg} --num_cpu_threads_per_process 8 train.py\n"
    multi_gpu = DS_ZERO2_OFFLOAD_YAML.replace("distributed_type: DEEPSPEED", "distributed_type: MULTI_GPU")
    project.write({"ds.sh": launch.format(cfg="ds.yaml"), "mg.sh": launch.format(cfg="mg.yaml"), "ds.yaml": DS_ZERO2_OFFLOAD_YAML,
                   "mg.yaml": multi_gpu, "train.py": FINETUNE_PY})
    _, setups = _setups(project.root)
    threads = {s.launch_path: (s.accelerate.launcher, s.threads_per_rank) for s in setups}
    assert threads == {"ds.sh": ("deepspeed", "1"), "mg.sh": ("multi_gpu", "8")}
    assert [(f.code, f.path) for f in project.check().findings] == [("DSL202", "ds.sh")]


def test_flags_override_the_config_file(project):
    _accelerate_project(project, **{"scripts/finetune.sh": FINETUNE_SH.replace(
        "--config_file configs/accelerate/ds_zero2_offload.yaml",
        "--config_file configs/accelerate/ds_zero2_offload.yaml --num_processes 4 --offload_optimizer_device none")})
    assert project.codes() == []
    _, [setup] = _setups(project.root)
    assert (setup.procs_per_node, setup.offload_devices()) == (4, ("none", "none"))


@pytest.mark.parametrize("yaml_text, why", [
    ("distributed_type: DEEPSPEED\nnum_processes: [8\n", "is not readable as YAML (ParserError"),
    (DS_ZERO2_OFFLOAD_YAML + "num_cpu_threads_per_process: 8\n",
     "accelerate rejects configs/accelerate/ds_zero2_offload.yaml: unknown keys ['num_cpu_threads_per_process']"),
    (DS_ZERO2_OFFLOAD_YAML.replace("num_processes: 8\n", ""),
     "configs/accelerate/ds_zero2_offload.yaml has no num_processes and the launch line gives none"),
    (DS_ZERO2_OFFLOAD_YAML.replace("distributed_type: DEEPSPEED\n", ""),
     "configs/accelerate/ds_zero2_offload.yaml has no distributed_type"),
])
def test_a_config_file_accelerate_cannot_use_leaves_the_setup_unknown(project, yaml_text, why):
    _accelerate_project(project, **{"configs/accelerate/ds_zero2_offload.yaml": yaml_text})
    assert project.codes() == []
    proj, [setup] = _setups(project.root)
    assert why in setup.notes["accelerate_config"] and setup.threads_per_rank is None
    assert f"unknown         {setup.notes['accelerate_config']}" in describe_setups(proj)


def test_a_config_file_that_is_not_in_the_project_says_nothing(project):
    _accelerate_project(project, **{"scripts/finetune.sh": FINETUNE_SH.replace("ds_zero2_offload", "elsewhere")})
    assert project.codes() == []
    _, [setup] = _setups(project.root)
    assert "not a file of the project" in setup.notes["accelerate_config"]


def test_parameter_offload_below_stage_3_in_the_accelerate_config(project):
    # zero_stage is not given: DeepSpeedPlugin's default is 2.
    yaml_text = DS_ZERO2_OFFLOAD_YAML.replace("  offload_param_device: none\n", "  offload_param_device: cpu\n") \
        .replace("  zero_stage: 2\n", "")
    _accelerate_project(project, **{"configs/accelerate/ds_zero2_offload.yaml": yaml_text})
    findings = [f for f in project.check().findings if f.code == "DSL608"]
    assert [_where(f) for f in findings] == [("DSL608", "configs/accelerate/ds_zero2_offload.yaml", 8, 3, 8, 28)]
    assert findings[0].message.startswith("offload_param_device ('cpu') with ZeRO stage 2 is silently ignored "
                                          "(accelerate writes offload_param, which only stage 3 reads)")


def test_accelerate_reads_the_deepspeed_config_file_named_in_its_yaml(project):
    yaml_text = ("distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 4\n"
                 "deepspeed_config:\n  deepspeed_config_file: ds.json\n  zero3_init_flag: false\n")
    project.write({"launch.sh": "accelerate launch --config_file acc.yaml train.py\n", "acc.yaml": yaml_text,
                   "train.py": FINETUNE_PY,
                   "ds.json": '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2, '
                              '"offload_param": {"device": "cpu"}}}'})
    _, [setup] = _setups(project.root)
    assert (setup.config.path, setup.config.consumer, setup.threads_per_rank) == ("ds.json", "accelerate", "1")
    assert [(f.code, f.path) for f in project.check().findings] == [("DSL608", "ds.json")]


def test_accelerate_model_matches_accelerates_own_argument_handling(tmp_path, monkeypatch):
    """The differential test: accelerate's launch_command_parser + _validate_launch_command on the same files."""
    pytest.importorskip("accelerate")
    from accelerate.commands.config.config_args import ClusterConfig
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    assert yaml_configs.ACCELERATE_CONFIG_KEYS - {"fp16", "dynamo_backend"} == set(ClusterConfig.__dataclass_fields__)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    (tmp_path / "ds.yaml").write_text(DS_ZERO2_OFFLOAD_YAML)
    (tmp_path / "mg.yaml").write_text(DS_ZERO2_OFFLOAD_YAML.replace("DEEPSPEED", "MULTI_GPU"))
    cases = [["--config_file", "ds.yaml"],
             ["--config_file", "ds.yaml", "--num_processes", "4", "--zero_stage", "3", "--offload_optimizer_device", "none"],
             ["--config_file", "mg.yaml", "--num_cpu_threads_per_process", "6"],
             ["--config_file", "ds.yaml", "--multi_gpu"]]
    for argv in cases:
        args = launch_command_parser().parse_args(argv + ["train.py"])
        monkeypatch.chdir(tmp_path)
        args, _, _ = _validate_launch_command(args)
        launch = parse_launch_file("accelerate launch " + " ".join(argv) + " train.py\n").commands[0]
        launcher = launch.launcher("accelerate")
        flags = {k: True if o.is_flag else o.value for k, o in launcher.options.items()}
        config = yaml_configs.read_yaml(str(tmp_path / argv[1]), argv[1])
        ours = yaml_configs.accelerate_launch(flags, (False, None), config, True)
        assert (ours.num_processes, ours.num_machines) == (args.num_processes, args.num_machines), argv
        assert (ours.launcher == "deepspeed") == bool(args.use_deepspeed), argv
        assert (ours.launcher == "multi_gpu") == bool(args.multi_gpu or args.use_fsdp), argv
        for name in ("zero_stage", "offload_optimizer_device", "offload_param_device", "gradient_accumulation_steps"):
            assert ours.deepspeed.get(name) == getattr(args, name), (argv, name)
        assert ours.mixed_precision == args.mixed_precision, argv
        if ours.launcher != "deepspeed":  # deepspeed_launcher does not export it (torchrun decides)
            assert ours.omp_num_threads == str(args.num_cpu_threads_per_process), argv


def test_accelerate_deepspeed_launcher_exports_no_thread_count(tmp_path, monkeypatch):
    pytest.importorskip("accelerate")
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env, prepare_multi_gpu_env

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ds.yaml").write_text(DS_ZERO2_OFFLOAD_YAML)
    argv = ["--config_file", "ds.yaml", "--num_cpu_threads_per_process", "8", "--main_process_port", "0", "train.py"]
    args, defaults, _ = _validate_launch_command(launch_command_parser().parse_args(argv))
    args.deepspeed_fields_from_accelerate_config = ",".join(defaults.deepspeed_config)
    _, env = prepare_deepspeed_cmd_env(args)
    assert "OMP_NUM_THREADS" not in env and env["ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE"] == "cpu"
    assert prepare_multi_gpu_env(args)["OMP_NUM_THREADS"] == "8"


# -- LightningCLI --config -------------------------------------------------------------------------

def test_lightningcli_yaml_devices_against_torchrun_and_param_offload_at_stage_2(project):
    _lightning_project(project)
    findings = project.check().findings
    assert [_where(f) for f in findings] == [("DSL702", "configs/conformer_offload.yaml", 4, 3, 4, 13),
                                             ("DSL608", "configs/conformer_offload.yaml", 13, 7, 13, 31)]
    mismatch, offload = findings
    assert mismatch.message.startswith("trainer.devices: 8 (configs/conformer_offload.yaml) but the launcher starts 4 "
                                       "per node, so Lightning raises ValueError")
    assert [(path, span.start.row) for path, span, _ in mismatch.related] == [("train.sh", 4)]
    assert offload.message.startswith("offload_parameters with ZeRO stage 2 is silently ignored (Lightning writes "
                                      "offload_param, which only stage 3 reads)")
    assert [(path, span.start.row, note) for path, span, note in offload.related] == \
        [("configs/conformer_offload.yaml", 11, "stage 2")]


def test_the_lightningcli_setup_is_fed_like_a_trainer_call(project):
    _lightning_project(project)
    proj, [setup] = _setups(project.root)
    site = setup.lightning
    assert (site.kind, site.devices, site.devices_given, site.num_nodes, site.strategy_class) == \
        ("trainer", 8, True, 1, "DeepSpeedStrategy")
    assert site.strategy_kwargs == {"stage": 2, "offload_optimizer": True, "offload_parameters": True, "pin_memory": True}
    assert setup.lightning_cli.trainer.values["precision"] == "bf16-mixed"
    assert (setup.config.consumer, setup.config.ref_path, setup.offload_devices()) == \
        ("lightning", "configs/conformer_offload.yaml", ("cpu", "cpu"))
    assert "frameworks      LightningCLI (configs/conformer_offload.yaml)" in describe_setups(proj)


def test_the_reporter_shows_the_yaml_line(project):
    _lightning_project(project)
    old = os.getcwd()
    os.chdir(project.root)
    try:
        out = io.StringIO()
        render(project.check().findings, "full", out)
    finally:
        os.chdir(old)
    assert "4 |   devices: 8\n  |   ^^^^^^^^^^\n" in out.getvalue()


LATER = "trainer:\n  devices: 4\n  strategy:\n    class_path: DeepSpeedStrategy\n    init_args:\n      stage: 3\n"


@pytest.mark.parametrize("command, codes", [
    # a later config overrides devices and merges init_args of the same class (stage 3 keeps the offload)
    ("cli.py fit --config configs/conformer_offload.yaml --config configs/later.yaml", []),
    ("cli.py fit -c configs/conformer_offload.yaml --trainer.devices=4 --trainer.strategy.init_args.stage 3", []),
    # options apply in order: a config after --trainer.devices wins
    ("cli.py fit --trainer.devices 4 --config configs/conformer_offload.yaml", ["DSL702", "DSL608"]),
    ("cli.py fit --config configs/conformer_offload.yaml --trainer.strategy deepspeed_stage_2", ["DSL702"]),
    # unknown stays unknown
    ("cli.py fit", []),
    ("cli.py fit --config $CONFIG", []),
    ("cli.py fit --config configs/missing.yaml", []),
    ("cli.py fit --config configs/conformer_offload.yaml --print_config", []),
    ("cli.py fit --config configs/conformer_offload.yaml --trainer.devices $NGPU", ["DSL608"]),
    ("cli.py fit --config configs/conformer_offload.yaml --trainer.strategy=ddp", ["DSL702"]),
])
def test_lightningcli_arguments_apply_in_order(project, command, codes):
    _lightning_project(project, **{"train.sh": f"OMP_NUM_THREADS=8 torchrun --standalone --nproc_per_node=4 {command}\n",
                                   "configs/later.yaml": LATER})
    assert project.codes() == codes


def test_the_yaml_strategy_offloads_the_optimizer_under_torchrun_threads(project):
    _lightning_project(project, **{"train.sh": TRAIN_SH.replace("export OMP_NUM_THREADS=8\n", "")})
    findings = [f for f in project.check().findings if f.code == "DSL202"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.sh", 3)]
    assert findings[0].message.startswith("ZeRO-Offload (conformer_offload.yaml): torchrun sets OMP_NUM_THREADS=1 in "
                                          "its 4 ranks per node")


def test_a_main_level_config_holds_the_subcommand_keys(project):
    nested = "fit:\n" + "".join(f"  {line}\n" for line in CONFORMER_YAML.splitlines())
    _lightning_project(project, **{"train.sh": "OMP_NUM_THREADS=8 torchrun --nproc_per_node=4 cli.py --config configs/main.yaml fit\n",
                                   "configs/main.yaml": nested})
    assert [_where(f) for f in project.check().findings] == [("DSL702", "configs/main.yaml", 5, 5, 5, 15),
                                                              ("DSL608", "configs/main.yaml", 14, 9, 14, 33)]


@pytest.mark.parametrize("yaml_text", ["trainer:\n  devices: [8\n", "---\ntrainer: {devices: 8}\n---\ntrainer: {}\n"])
def test_a_lightningcli_yaml_that_does_not_parse_says_nothing(project, yaml_text):
    _lightning_project(project, **{"configs/conformer_offload.yaml": yaml_text})
    assert project.codes() == []
    _, [setup] = _setups(project.root)
    assert setup.lightning is None and "is not readable as YAML" in setup.notes["lightning_cli"]


@pytest.mark.parametrize("call", [
    "LightningCLI(SpeechRecognizer, LibriSpeechData, args=['fit', '--trainer.devices', '4'])",
    "LightningCLI(SpeechRecognizer, LibriSpeechData, run=RUN)",
])
def test_a_lightningcli_that_does_not_read_the_launch_line_says_nothing(project, call):
    _lightning_project(project, **{"cli.py": CLI_PY.replace(
        'LightningCLI(SpeechRecognizer, LibriSpeechData, save_config_kwargs={"overwrite": True})', call)})
    assert project.codes() == []


@pytest.mark.parametrize("imports, call", [
    ("from pytorch_lightning.cli import LightningCLI", "LightningCLI"),
    ("from pytorch_lightning.utilities.cli import LightningCLI", "LightningCLI"),
    ("import lightning.pytorch.cli as plcli", "plcli.LightningCLI"),
])
def test_every_spelling_of_lightningcli(project, imports, call):
    cli = CLI_PY.replace("from lightning.pytorch.cli import LightningCLI", imports).replace(
        "    LightningCLI(", f"    {call}(")
    _lightning_project(project, **{"cli.py": cli})
    assert project.codes() == ["DSL702", "DSL608"]


def test_a_deepspeed_config_file_named_in_the_strategy_init_args_is_linked(project):
    yaml_text = CONFORMER_YAML.replace("      stage: 2\n", "      config: configs/ds_zero2.json\n")
    ds = '{"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}}, "gradient_accumulation_steps": 4}'
    _lightning_project(project, **{"configs/conformer_offload.yaml": yaml_text, "configs/ds_zero2.json": ds})
    _, [setup] = _setups(project.root)
    assert (setup.config.path, setup.config.consumer, setup.config.ref_path) == \
        ("configs/ds_zero2.json", "lightning", "configs/conformer_offload.yaml")
    assert [(f.code, f.path) for f in project.check().findings] == [
        ("DSL702", "configs/conformer_offload.yaml"), ("DSL608", "configs/ds_zero2.json"), ("DSL617", "configs/ds_zero2.json")]


def test_trainer_defaults_leave_the_keys_no_config_sets_unknown(project):
    yaml_text = CONFORMER_YAML.replace("  num_nodes: 1\n", "")
    cli = CLI_PY.replace('save_config_kwargs={"overwrite": True}', 'trainer_defaults={"num_nodes": 2}')
    _lightning_project(project, **{"cli.py": cli, "configs/conformer_offload.yaml": yaml_text,
                                   "train.sh": "OMP_NUM_THREADS=8 torchrun --nproc_per_node=8 cli.py fit --config configs/conformer_offload.yaml\n"})
    _, [setup] = _setups(project.root)
    assert (setup.lightning.devices, setup.lightning.num_nodes) == (8, None)
    assert [f.code for f in project.check().findings] == ["DSL608"]


def test_a_lightningcli_made_in_an_imported_function_and_a_subclass(project):
    package_cli = ("from lightning.pytorch.cli import LightningCLI\n\n\nclass AsrCLI(LightningCLI):\n"
                   "    def add_arguments_to_parser(self, parser):\n        parser.link_arguments('data.root', 'model.lr')\n\n\n"
                   "def cli_main():\n    AsrCLI(save_config_kwargs={'overwrite': True})\n")
    _lightning_project(project, **{"asr/__init__.py": "", "asr/cli.py": package_cli,
                                   "main.py": "import torch\n\nfrom asr.cli import cli_main\n\nif __name__ == '__main__':\n"
                                              "    torch.set_float32_matmul_precision('high')\n    cli_main()\n",
                                   "cli.py": "", "train.sh": "OMP_NUM_THREADS=8 torchrun --nproc_per_node=4 main.py fit --config configs/conformer_offload.yaml\n"})
    assert [f.code for f in project.check().findings] == ["DSL702", "DSL608"]


def test_lightningcli_under_srun_compares_tasks_and_nodes(project):
    job = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gres=gpu:8\n"
           "srun python cli.py fit --config configs/conformer_offload.yaml\n")
    _lightning_project(project, **{"train.sh": job})
    findings = [f for f in project.check().findings if f.code == "DSL702"]
    assert [_where(f) for f in findings] == [("DSL702", "configs/conformer_offload.yaml", 5, 3, 5, 15)]
    assert findings[0].message.startswith("trainer.num_nodes: 1 (configs/conformer_offload.yaml) but the launcher "
                                          "runs on 2 nodes")


def test_a_default_num_nodes_is_reported_at_the_lightningcli_call(project):
    job = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n"
           "srun python cli.py fit --config configs/conformer_offload.yaml\n")
    yaml_text = CONFORMER_YAML.replace("  num_nodes: 1\n", "")
    _lightning_project(project, **{"train.sh": job, "configs/conformer_offload.yaml": yaml_text})
    findings = [f for f in project.check().findings if f.code == "DSL702"]
    assert [_where(f) for f in findings] == [("DSL702", "cli.py", 7, 5, 7, 92)]
    assert findings[0].message.startswith("trainer.num_nodes: 1 (the default) but the launcher runs on 2 nodes")


def test_deepspeed_strategy_object_in_python_with_param_offload_at_stage_2(project):
    project.write({"fit.py": "import lightning as L\nfrom lightning.pytorch.strategies import DeepSpeedStrategy\n\n"
                             "strategy = DeepSpeedStrategy(stage=2, offload_parameters=True, pin_memory=True)\n"
                             "L.Trainer(devices=4, strategy=strategy).fit(None)\n"})
    assert [_where(f) for f in project.check().findings] == [("DSL608", "fit.py", 4, 12, 4, 80)]


def test_checking_yaml_setups_imports_no_framework(project):
    _lightning_project(project)
    _accelerate_project(project)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "dslint", "check", "--no-cache", "-o", "json", "."],
                          capture_output=True, text=True, timeout=120, cwd=project.root)
    assert proc.returncode == 1 and '"DSL702"' in proc.stdout and '"DSL202"' in proc.stdout, proc.stderr[-2000:]
    modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "yaml" in modules
    heavy = ("torch", "lightning", "pytorch_lightning", "jsonargparse", "accelerate", "deepspeed", "transformers")
    assert sorted(m for m in modules if m.split(".")[0] in heavy) == []


def test_a_warm_run_sees_the_accelerate_yaml_change(project):
    """The launch's YAML is read in the project phase, not checked per file: the cached project
    findings must not outlive an edit of it."""
    from dslint import engine
    from dslint.settings import Settings

    yaml_text = ("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n"
                 "  offload_optimizer_device: cpu\n  offload_param_device: none\n  zero_stage: 2\n"
                 "machine_rank: 0\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\nuse_cpu: false\n")
    project.write({
        "train.py": "import torch\nfrom accelerate import Accelerator\n\n\ndef main(model, loader):\n"
                    "    accelerator = Accelerator()\n"
                    "    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)\n"
                    "    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)\n",
        "run.sh": "accelerate launch --config_file ds.yaml train.py\n",
        "ds.yaml": yaml_text,
    })

    def warm_codes():
        return [f.code for f in engine.check([str(project.root)], Settings(), root=project.root).findings]

    assert "DSL202" in warm_codes()
    project.write({"ds.yaml": yaml_text.replace("offload_optimizer_device: cpu", "offload_optimizer_device: none")})
    assert "DSL202" not in warm_codes()
