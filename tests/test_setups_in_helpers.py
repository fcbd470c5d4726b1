"""DeepSpeed / accelerate setups that a project function of another module builds for the script
(facts/helper_setups.py): `deepspeed.initialize(args=<param>)` in a helper given the script's parsed
arguments, and a factory returning `Accelerator(deepspeed_plugin=DeepSpeedPlugin(...))`."""
from __future__ import annotations

from pathlib import Path

from dslint import engine
from dslint.facts.config_dicts import NotLiteral
from dslint.facts.link import link_setups
from dslint.settings import Settings

ENGINE_HELPER = """import deepspeed


def make(net, cli_args, lr=1e-3):
    {body}
    return eng
"""

ENGINE_SCRIPT = """import argparse
import torch
from trainlib import ds


def cli():
    p = argparse.ArgumentParser()
    p.add_argument("--local_rank", type=int, default=0)
    p.add_argument("--deepspeed_config", default="conf/zero.json")
    return p.parse_args()


def main():
    opts = cli()
    net = torch.nn.Linear(4, 4)
    eng = ds.make(net, cli_args={passed})


main()
"""

ZERO_AUTO = '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 1}}\n'
ZERO_FIXED = '{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 1}}\n'


def _project(tmp_path: Path, files: dict):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    values = Settings.model_validate({})
    sources, _ = engine.discover([str(tmp_path)], values, tmp_path)
    return engine.build_project(tmp_path, engine.check_files(sources, values)), values


def _setup_of(tmp_path: Path, files: dict, script: str):
    project, values = _project(tmp_path, files)
    return next(s for s in link_setups(project, values) if s.script_path.endswith(script))


def _codes(root: Path, code: str) -> list:
    findings = engine.check([str(root)], Settings.model_validate({}), root=root, use_cache=False).findings
    return [f for f in findings if f.code == code]


def _engine_files(body="eng, _, _, _ = deepspeed.initialize(cli_args, model=net, model_parameters=net.parameters())",
                  passed="opts", launch="deepspeed --num_gpus 2 run.py\n"):
    return {"trainlib/__init__.py": "", "trainlib/ds.py": ENGINE_HELPER.format(body=body),
            "run.py": ENGINE_SCRIPT.format(passed=passed), "go.sh": launch,
            "conf/zero.json": ZERO_AUTO, "conf/other.json": ZERO_FIXED}


def test_helper_initialize_reads_the_option_default(tmp_path):
    setup = _setup_of(tmp_path, _engine_files(), "run.py")
    assert setup.config.path is not None and setup.config.path.endswith("conf/zero.json")
    assert setup.config.consumer == "deepspeed"


def test_helper_initialize_reads_the_launch_line_option(tmp_path):
    files = _engine_files(launch="deepspeed --num_gpus 2 run.py --deepspeed_config conf/other.json\n")
    setup = _setup_of(tmp_path, files, "run.py")
    assert setup.config.path.endswith("conf/other.json")
    assert setup.config.launch_span is not None


def test_helper_initialize_auto_value_is_reported(tmp_path):
    _project(tmp_path, _engine_files())
    found = _codes(tmp_path, "DSL604")
    assert found and all(str(f.path).endswith("zero.json") for f in found)


def test_helper_with_its_own_config_is_not_the_option(tmp_path):
    body = 'eng, _, _, _ = deepspeed.initialize(cli_args, model=net, config={"train_batch_size": 8})'
    assert _setup_of(tmp_path, _engine_files(body=body), "run.py").config.path is None


def test_helper_that_sets_the_config_field_is_not_followed(tmp_path):
    body = ('cli_args.deepspeed_config = "conf/other.json"\n'
            '    eng, _, _, _ = deepspeed.initialize(args=cli_args, model=net)')
    assert _setup_of(tmp_path, _engine_files(body=body), "run.py").config.path is None


def test_helper_initializing_under_a_condition_is_not_followed(tmp_path):
    body = ('eng = net\n    if lr > 0:\n'
            '        eng, _, _, _ = deepspeed.initialize(args=cli_args, model=net)')
    assert _setup_of(tmp_path, _engine_files(body=body), "run.py").config.path is None


def test_argument_that_is_no_parsed_namespace_is_not_followed(tmp_path):
    files = _engine_files(passed="load_namespace()")
    files["run.py"] = files["run.py"].replace("from trainlib import ds", "from trainlib import ds\n"
                                              "from trainlib.io import load_namespace")
    files["trainlib/io.py"] = "def load_namespace():\n    return object()\n"
    assert _setup_of(tmp_path, files, "run.py").config.path is None


def test_script_without_the_option_is_not_followed(tmp_path):
    files = _engine_files()
    files["run.py"] = files["run.py"].replace('    p.add_argument("--deepspeed_config", default="conf/zero.json")\n', "")
    files["go.sh"] = "deepspeed --num_gpus 2 run.py --deepspeed_config conf/zero.json\n"
    assert _setup_of(tmp_path, files, "run.py").config.path is None


FACTORY = """from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin


def accelerator_for(stage, offload="cpu"):
    {body}
"""

FACTORY_BODY = ("plug = DeepSpeedPlugin(zero_stage=stage, offload_optimizer_device=offload)\n"
                "    return Accelerator(deepspeed_plugin=plug, mixed_precision=\"bf16\")")

USER = """import torch
from tools.factory import accelerator_for

{call}
net = torch.nn.Linear(4, 4)
net, opt = acc.prepare(net, torch.optim.AdamW(net.parameters()))
"""


def _plugin_files(body=FACTORY_BODY, call="acc = accelerator_for(3)", launch="torchrun --nproc_per_node=4 fit.py\n"):
    return {"tools/__init__.py": "", "tools/factory.py": FACTORY.format(body=body), "fit.py": USER.format(call=call),
            "go.sh": launch}


def test_factory_plugin_binds_the_call_and_defaults(tmp_path):
    setup = _setup_of(tmp_path, _plugin_files(), "fit.py")
    zero = setup.config.value["zero_optimization"]
    assert setup.config.consumer == "accelerate"
    assert zero["stage"] == 3 and zero["offload_optimizer"]["device"] == "cpu"
    assert setup.config.ref_path == setup.script_path


def test_factory_plugin_argument_not_literal_stays_unknown(tmp_path):
    files = _plugin_files(call="import sys\nacc = accelerator_for(int(sys.argv[1]), offload=\"none\")")
    zero = _setup_of(tmp_path, files, "fit.py").config.value["zero_optimization"]
    assert isinstance(zero["stage"], NotLiteral) and zero["offload_optimizer"]["device"] == "none"


def test_factory_plugin_under_torchrun_starves_the_cpu_optimizer(tmp_path):
    _project(tmp_path, _plugin_files())
    [found] = _codes(tmp_path, "DSL202")
    assert str(found.path).endswith("go.sh")


def test_factory_called_under_a_condition_is_not_followed(tmp_path):
    files = _plugin_files(call="import os\nacc = None\nif os.environ.get(\"DS\"):\n    acc = accelerator_for(3)")
    assert _setup_of(tmp_path, files, "fit.py").config.value is None
    _project(tmp_path, files)
    assert not _codes(tmp_path, "DSL202")


def test_factory_without_a_plugin_or_with_a_config_file_is_not_followed(tmp_path):
    for body in ("return Accelerator(mixed_precision=\"bf16\")",
                 ("plug = DeepSpeedPlugin(hf_ds_config=\"ds.json\", zero_stage=stage)\n"
                  "    return Accelerator(deepspeed_plugin=plug)")):
        root = tmp_path / str(len(body))
        root.mkdir()
        assert _setup_of(root, _plugin_files(body=body), "fit.py").config.value is None


def test_script_with_its_own_accelerator_keeps_it(tmp_path):
    files = _plugin_files(call="from accelerate import Accelerator\nacc = accelerator_for(3)\nacc = Accelerator()")
    assert _setup_of(tmp_path, files, "fit.py").config.value is None


def test_helper_passing_a_field_of_the_namespace_as_config(tmp_path):
    body = "eng, _, _, _ = deepspeed.initialize(model=net, config=cli_args.ds_conf)"
    files = _engine_files(body=body, launch="deepspeed --num_gpus 2 run.py --ds_conf conf/other.json\n")
    files["run.py"] = files["run.py"].replace('"--deepspeed_config", default="conf/zero.json"',
                                              '"--ds_conf", default="conf/zero.json"')
    setup = _setup_of(tmp_path, files, "run.py")
    assert setup.config.path.endswith("conf/other.json")
    both = "eng, _, _, _ = deepspeed.initialize(args=cli_args, model=net, config=cli_args.ds_conf)"
    root = tmp_path / "both"
    root.mkdir()
    files["trainlib/ds.py"] = ENGINE_HELPER.format(body=both)
    assert _setup_of(root, files, "run.py").config.path is None


def test_factory_plugin_keywords_through_a_module_dict(tmp_path):
    kw = "KW = dict(offload_optimizer_device=\"cpu\", gradient_clipping=1.0)\n\n\n"
    body = ("plug = DeepSpeedPlugin(zero_stage=stage, **KW)\n"
            "    return Accelerator(deepspeed_plugin=plug)")
    files = _plugin_files(body=body)
    files["tools/factory.py"] = files["tools/factory.py"].replace("\n\ndef accelerator_for", "\n" + kw + "def accelerator_for")
    zero = _setup_of(tmp_path, files, "fit.py").config.value["zero_optimization"]
    assert zero["stage"] == 3 and zero["offload_optimizer"]["device"] == "cpu"


def test_factory_plugin_with_keys_the_module_does_not_show_is_not_followed(tmp_path):
    body = ("plug = DeepSpeedPlugin(zero_stage=stage, **extra)\n"
            "    return Accelerator(deepspeed_plugin=plug)")
    files = _plugin_files(body=body)
    files["tools/factory.py"] = files["tools/factory.py"].replace("(stage, offload=\"cpu\")", "(stage, offload=\"cpu\", **extra)")
    assert _setup_of(tmp_path, files, "fit.py").config.value is None
