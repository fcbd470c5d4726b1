"""accelerate's DeepSpeedPlugin(...) keywords in the script build the DeepSpeed config (facts/script_setup.py
reads them, facts/link.py merges them with what `accelerate launch` exports, sources/yaml_configs.py
builds the config as DeepSpeedPlugin.__post_init__ does)."""
from __future__ import annotations

from pathlib import Path

from dslint import engine
from dslint.facts.config_dicts import NotLiteral
from dslint.facts.link import link_setups
from dslint.settings import Settings
from dslint.sources.yaml_configs import NOT_LITERAL, deepspeed_plugin_config

SCRIPT = """from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin
import torch

def run(net):
    ds = DeepSpeedPlugin({keywords})
    acc = Accelerator(deepspeed_plugin=ds)
    net, opt = acc.prepare(net, torch.optim.SGD(net.parameters(), lr=0.1))
"""

ZERO3_YAML = """compute_environment: LOCAL_MACHINE
distributed_type: DEEPSPEED
num_processes: 2
deepspeed_config:
  zero_stage: 3
  offload_param_device: cpu
"""


def _setup(tmp_path: Path, keywords: str, launch: str = "accelerate launch --num_processes 2 job.py\n",
           extra: dict = None):
    (tmp_path / "job.py").write_text(SCRIPT.format(keywords=keywords))
    (tmp_path / "go.sh").write_text(launch)
    for name, text in (extra or {}).items():
        (tmp_path / name).write_text(text)
    values = Settings.model_validate({})
    sources, _ = engine.discover([str(tmp_path)], values, tmp_path)
    project = engine.build_project(tmp_path, engine.check_files(sources, values))
    [setup] = link_setups(project, values)
    return setup, tmp_path


def _codes(root: Path, code: str) -> list:
    findings = engine.check([str(root)], Settings.model_validate({}), root=root, use_cache=False).findings
    return [f for f in findings if f.code == code]


def test_builder_writes_both_offload_blocks_and_auto_values():
    config = deepspeed_plugin_config({"zero_stage": 1})
    assert config == {
        "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
        "zero_optimization": {"stage": 1, "offload_optimizer": {"device": "none", "nvme_path": None},
                              "offload_param": {"device": "none", "nvme_path": None},
                              "stage3_gather_16bit_weights_on_model_save": False},
        "gradient_clipping": "auto"}
    assert deepspeed_plugin_config({"gradient_clipping": NOT_LITERAL}) is None
    marked = deepspeed_plugin_config({"offload_param_device": NOT_LITERAL}, unknown=lambda name: NotLiteral(name))
    assert marked["zero_optimization"]["offload_param"] == {"device": NotLiteral("offload_param_device"),
                                                           "nvme_path": NotLiteral("offload_param_nvme_path")}


def test_keywords_build_the_config_and_the_finding_points_at_the_keyword(tmp_path):
    setup, project = _setup(tmp_path, 'zero_stage=1, offload_param_device="nvme", offload_param_nvme_path="/nvme"')
    zero = setup.config.value["zero_optimization"]
    assert setup.config.consumer == "accelerate" and zero["stage"] == 1
    assert zero["offload_param"] == {"device": "nvme", "nvme_path": "/nvme"}
    [finding] = _codes(project, "DSL608")
    assert (Path(finding.path).name, finding.span.start.row) == ("job.py", 6)
    assert "offload_param_device ('nvme') with ZeRO stage 1" in finding.message


def test_stage_not_given_takes_the_launch_config_file(tmp_path):
    # the YAML's zero_stage 3 fills the field the script leaves out: offload_param is read, nothing to say
    setup, project = _setup(tmp_path, 'offload_param_device="cpu"',
                            launch="accelerate launch --config_file z3.yaml job.py\n", extra={"z3.yaml": ZERO3_YAML})
    assert setup.config.value["zero_optimization"]["stage"] == 3
    assert _codes(project, "DSL608") == []


def test_keyword_wins_over_the_launch_config_file(tmp_path):
    setup, project = _setup(tmp_path, 'zero_stage=2',
                            launch="accelerate launch --config_file z3.yaml job.py\n", extra={"z3.yaml": ZERO3_YAML})
    zero = setup.config.value["zero_optimization"]
    assert zero["stage"] == 2 and zero["offload_param"]["device"] == "cpu"  # cpu from the YAML, stage from code
    [finding] = _codes(project, "DSL608")  # at the YAML's offload_param_device, the stage noted at the keyword
    assert Path(finding.path).name == "z3.yaml" and finding.span.start.row == 6
    [(path, span, note)] = finding.related
    assert (Path(path).name, span.start.row, note) == ("job.py", 6, "zero_stage 2")


def test_field_the_default_config_file_may_set_is_unknown(tmp_path):
    # no --config_file: accelerate's default config file may export a stage; nothing is sure about it
    setup, project = _setup(tmp_path, 'offload_param_device="cpu"')
    assert isinstance(setup.config.value["zero_optimization"]["stage"], NotLiteral)
    assert _codes(project, "DSL608") == []


def test_non_literal_keyword_is_unknown(tmp_path):
    setup, project = _setup(tmp_path, 'zero_stage=int(os.environ["STAGE"]), offload_param_device="cpu"')
    assert isinstance(setup.config.value["zero_optimization"]["stage"], NotLiteral)
    assert _codes(project, "DSL608") == []


def test_launch_deepspeed_config_file_means_the_plugin_reads_that_file(tmp_path):
    yaml = ZERO3_YAML.replace("  zero_stage: 3\n  offload_param_device: cpu\n", "  deepspeed_config_file: ds.json\n")
    setup, project = _setup(tmp_path, 'zero_stage=2, offload_param_device="cpu"',
                            launch="accelerate launch --config_file f.yaml job.py\n", extra={"f.yaml": yaml})
    assert setup.config.value is None
    assert _codes(project, "DSL608") == []


def test_plugin_not_passed_to_the_accelerator_builds_nothing(tmp_path):
    (tmp_path / "job.py").write_text(
        "from accelerate import Accelerator, DeepSpeedPlugin\n"
        "spare = DeepSpeedPlugin(zero_stage=1, offload_param_device='cpu')\nacc = Accelerator()\n")
    (tmp_path / "go.sh").write_text("accelerate launch --num_processes 2 job.py\n")
    assert _codes(tmp_path, "DSL608") == []


def test_offload_with_a_torch_optimizer_is_not_dsl614_under_accelerate(tmp_path):
    # Accelerator._prepare_deepspeed maps a torch optimizer to DeepSpeedCPUAdam when the optimizer is offloaded
    setup, project = _setup(tmp_path, 'zero_stage=2, offload_optimizer_device="cpu"')
    assert setup.config.value["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    assert _codes(project, "DSL614") == []


def test_keyword_wins_over_a_launch_flag_and_the_flag_fills_the_rest(tmp_path):
    launch = "accelerate launch --use_deepspeed --zero_stage 3 --offload_param_device cpu --num_processes 2 job.py\n"
    setup, project = _setup(tmp_path, "zero_stage=1", launch=launch)
    zero = setup.config.value["zero_optimization"]
    assert (zero["stage"], zero["offload_param"]["device"]) == (1, "cpu")
    [finding] = _codes(project, "DSL608")  # at the flag that asks for the offload
    assert Path(finding.path).name == "go.sh" and "--offload_param_device" in finding.message


def test_plain_python_run_uses_the_plugin_defaults(tmp_path):
    setup, project = _setup(tmp_path, 'offload_param_device="cpu"', launch="python job.py\n")
    assert setup.config.value["zero_optimization"]["stage"] == 2  # ACCELERATE_DEEPSPEED_ZERO_STAGE unset: 2
    assert [Path(f.path).name for f in _codes(project, "DSL608")] == ["job.py"]
    setup, project = _setup(tmp_path, 'offload_param_device="cpu"', launch="ACCELERATE_DEEPSPEED_ZERO_STAGE=3 python job.py\n")
    assert isinstance(setup.config.value["zero_optimization"]["stage"], NotLiteral)
    assert _codes(project, "DSL608") == []
