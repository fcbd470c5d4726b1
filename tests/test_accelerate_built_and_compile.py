"""Configs accelerate builds (its launch config's deepspeed_config, DeepSpeedPlugin(...) keywords) for
DSL611; accelerator.save_state under an `accelerate launch` whose config says DeepSpeed/FSDP (DSL502);
torch.compile(DDP(...)) is the same DDP wrapper for DSL304."""
from __future__ import annotations

import pytest

TRAINER = """import torch
from accelerate import Accelerator


def main():
    acc = Accelerator({plugin})
    net, opt = acc.prepare(torch.nn.Linear(16, 4), torch.optim.AdamW(torch.nn.Linear(16, 4).parameters()))
    for _ in range(3):
        acc.backward(net(torch.randn(4, 16, device=acc.device)).sum())
        opt.step()
    weights = acc.get_state_dict(net)
    if acc.is_main_process:
        torch.save(weights, "out.bin")


main()
"""

ACCEL_YAML = """compute_environment: LOCAL_MACHINE
distributed_type: DEEPSPEED
mixed_precision: bf16
num_machines: 1
num_processes: 2
deepspeed_config:
  zero_stage: {stage}
{extra}"""


def _found(project, code):
    return [(f.path.rsplit("/", 1)[-1], f.span.start.row, f.message) for f in project.check().findings
            if f.code == code]


@pytest.mark.parametrize("extra,row", [("  zero3_save_16bit_model: false\n", 8), ("", 6)])
def test_accelerate_yaml_zero3_without_16bit_save_and_get_state_dict(project, extra, row):
    project.write({"fit.py": TRAINER.format(plugin=""), "cfg/ds.yaml": ACCEL_YAML.format(stage=3, extra=extra),
                   "launch.sh": "accelerate launch --config_file cfg/ds.yaml fit.py\n"})
    [(path, at, message)] = _found(project, "DSL611")
    assert (path, at) == ("ds.yaml", row)  # the key, or deepspeed_config when it is left out (false)
    assert "get_state_dict() raises ValueError (fit.py:11)" in message


@pytest.mark.parametrize("stage,extra", [(3, "  zero3_save_16bit_model: true\n"), (2, "")])
def test_accelerate_yaml_that_gathers_or_is_not_zero3_is_clean(project, stage, extra):
    project.write({"fit.py": TRAINER.format(plugin=""), "ds.yaml": ACCEL_YAML.format(stage=stage, extra=extra),
                   "launch.sh": "accelerate launch --config_file ds.yaml fit.py\n"})
    assert _found(project, "DSL611") == []


def test_plugin_keywords_zero3_without_16bit_save(project):
    plugin = "deepspeed_plugin=DeepSpeedPlugin(zero_stage=3, offload_param_device='cpu', zero3_save_16bit_model=False)"
    project.write({"fit.py": TRAINER.format(plugin=plugin).replace(
        "from accelerate import Accelerator", "from accelerate import Accelerator, DeepSpeedPlugin"),
        "launch.sh": "accelerate launch --num_processes 2 fit.py\n"})
    [(path, row, message)] = _found(project, "DSL611")
    assert (path, row) == ("fit.py", 6) and "get_state_dict() raises" in message


def test_plugin_default_with_a_launch_config_not_shown_is_clean(project):
    # `accelerate launch` without --config_file reads the default config file, which may set it
    plugin = "deepspeed_plugin=DeepSpeedPlugin(zero_stage=3)"
    project.write({"fit.py": TRAINER.format(plugin=plugin).replace(
        "from accelerate import Accelerator", "from accelerate import Accelerator, DeepSpeedPlugin"),
        "launch.sh": "accelerate launch --num_processes 2 fit.py\n"})
    assert _found(project, "DSL611") == []


@pytest.mark.parametrize("plugin", ["zero_stage=3, zero3_save_16bit_model=True", "zero_stage=3, zero3_save_16bit_model=flag"])
def test_plugin_that_gathers_or_a_value_not_shown_is_clean(project, plugin):
    project.write({"fit.py": TRAINER.format(plugin=f"deepspeed_plugin=DeepSpeedPlugin({plugin})").replace(
        "from accelerate import Accelerator", "from accelerate import Accelerator, DeepSpeedPlugin").replace(
        "def main():", "flag = True\n\n\ndef main():"),
        "launch.sh": "accelerate launch --num_processes 2 fit.py\n"})
    assert _found(project, "DSL611") == []


CKPT = """import torch
from accelerate import Accelerator

acc = Accelerator()
net, opt = acc.prepare(torch.nn.Linear(16, 4), torch.optim.SGD(torch.nn.Linear(16, 4).parameters(), lr=0.1))
for epoch in range(4):
    acc.backward(net(torch.randn(4, 16, device=acc.device)).sum())
    opt.step()
    if acc.is_main_process and epoch % 2 == 0:
        acc.save_state(f"ckpt/{epoch}")
"""

MULTI_YAML = """compute_environment: LOCAL_MACHINE
distributed_type: {kind}
num_machines: 1
num_processes: {n}
"""


@pytest.mark.parametrize("launch,files", [
    ("accelerate launch --config_file a.yaml loop.py\n", {"a.yaml": MULTI_YAML.format(kind="FSDP", n=8)}),
    ("accelerate launch --config_file a.yaml loop.py\n", {"a.yaml": ACCEL_YAML.format(stage=1, extra="")}),
    ("accelerate launch --use_deepspeed --zero_stage 2 --num_processes 4 loop.py\n", {}),
])
def test_gated_save_state_under_a_sharding_accelerate_launch(project, launch, files):
    project.write({"loop.py": CKPT, "run.sh": launch, **files})
    [(path, row, message)] = _found(project, "DSL502")
    assert (path, row) == ("loop.py", 10) and "acc.save_state" in message


@pytest.mark.parametrize("launch,files", [
    ("accelerate launch --config_file a.yaml loop.py\n", {"a.yaml": MULTI_YAML.format(kind="MULTI_GPU", n=8)}),
    ("accelerate launch --config_file a.yaml loop.py\n", {"a.yaml": MULTI_YAML.format(kind="FSDP", n=1)}),
    ("accelerate launch --multi_gpu --num_processes 4 loop.py\n", {}),
    ("torchrun --nproc_per_node 4 loop.py\n", {}),
    ("accelerate launch --config_file $CFG loop.py\n", {}),  # a config the launch does not show
])
def test_gated_save_state_elsewhere_is_local(project, launch, files):
    project.write({"loop.py": CKPT, "run.sh": launch, **files})
    assert _found(project, "DSL502") == []


COMPILED = """import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    net = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU()).cuda(rank)
    {build}
    opt = torch.optim.Adam(fast.parameters())
    for _ in range(5):
        out = fast.module(torch.randn(8, 16, device="cuda"))
        out.mean().backward()
        opt.step()
    if dist.get_rank() == 0:
        torch.save(fast.module.state_dict(), "net.pt")


main()
"""


def _job(project, build):
    source = COMPILED.format(build=build)
    project.write({"job.py": source, "go.sh": "torchrun --nproc_per_node 2 job.py\n"})
    row = source[:source.index("fast.module(")].count("\n") + 1
    return [(path, at == row) for path, at, _ in _found(project, "DSL304")]


@pytest.mark.parametrize("build", [
    "wrapped = DistributedDataParallel(net, device_ids=[rank])\n    fast = torch.compile(wrapped, mode='max-autotune')",
    "fast = torch.compile(DistributedDataParallel(net, device_ids=[rank]))",
])
def test_module_of_a_compiled_ddp_wrapper_in_a_training_step(project, build):
    assert _job(project, build) == [("job.py", True)]


def test_ddp_of_a_compiled_module_is_only_read_through_module(project):
    build = "fast = DistributedDataParallel(torch.compile(net), device_ids=[rank])"
    project.write({"job.py": COMPILED.format(build=build).replace("out = fast.module(", "out = fast("),
                   "go.sh": "torchrun --nproc_per_node 2 job.py\n"})
    assert _found(project, "DSL304") == []


def test_compile_of_something_else_is_no_ddp(project):
    build = "other = DistributedDataParallel(net, device_ids=[rank])\n    fast = torch.compile(Holder(net))"
    assert _job(project, build) == []
