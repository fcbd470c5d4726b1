"""facts/script_setup.py on the facts layer: values through the bindings model and values.py,
argparse through values.argparse_defaults/argparse_options. Shapes that name-matching got wrong or
could not read."""
from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

from dslint import engine
from dslint.facts.link import link_setups
from dslint.facts.script import build_script_facts
from dslint.facts.script_setup import extract_setup_facts
from dslint.facts.values import UNKNOWN
from dslint.settings import Settings


def setup_facts(source: str):
    text = textwrap.dedent(source)
    return extract_setup_facts(build_script_facts("train.py", text, ast.parse(text)))


def _project(root: Path, files: dict):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    settings = Settings.model_validate({})
    sources, _ = engine.discover([str(root)], settings, root)
    project = engine.build_project(root, engine.check_files(sources, settings))
    return link_setups(project, settings)


ZERO2 = json.dumps({"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}})


def test_a_parameter_that_shadows_the_module_constant_is_not_the_constant():
    facts = setup_facts("""
        import deepspeed
        CONFIG = "ds_config.json"

        def train(model, CONFIG):
            deepspeed.initialize(model=model, config=CONFIG)
    """)
    [ref] = facts.config_refs
    assert (ref.how, ref.path) == ("unknown", None)


def test_the_module_constant_read_inside_a_function_is_still_followed():
    facts = setup_facts("""
        import deepspeed
        CONFIG = "ds_config.json"

        def train(model):
            deepspeed.initialize(model=model, config=CONFIG)
    """)
    [ref] = facts.config_refs
    assert (ref.how, ref.path) == ("literal", "ds_config.json")


def test_a_config_path_built_as_an_f_string_with_known_parts():
    facts = setup_facts("""
        import deepspeed
        CONFIG_DIR = "configs"
        STAGE = 2

        def train(model):
            deepspeed.initialize(model=model, config=f"{CONFIG_DIR}/zero{STAGE}.json")
    """)
    [ref] = facts.config_refs
    assert (ref.how, ref.path) == ("literal", "configs/zero2.json")


def test_an_f_string_over_a_command_line_option_is_its_default_unless_the_launch_passes_it():
    facts = setup_facts("""
        import argparse, deepspeed
        p = argparse.ArgumentParser()
        p.add_argument("--config_dir", default="configs")
        args = p.parse_args()
        deepspeed.initialize(model=None, config=f"{args.config_dir}/zero2.json")
    """)
    [ref] = facts.config_refs
    # the path as the defaults build it; a launch line that passes --config_dir leaves it unknown
    assert (ref.how, ref.path, ref.unless_options) == ("literal", "configs/zero2.json", ("--config_dir",))


def test_deepspeed_config_default_from_a_module_constant(tmp_path):
    script = """
        import argparse, deepspeed
        DEFAULT_CONFIG = "configs/zero2.json"
        parser = argparse.ArgumentParser()
        parser.add_argument("--deepspeed_config", default=DEFAULT_CONFIG)
        args = parser.parse_args()
        engine, *_ = deepspeed.initialize(args=args, model=None)
    """
    facts = setup_facts(script)
    assert facts.argparse_options["--deepspeed_config"] == ("deepspeed_config", "configs/zero2.json")
    [ref] = facts.config_refs
    assert (ref.how, ref.path, ref.options) == ("argument", "configs/zero2.json", ("--deepspeed_config",))
    [setup] = _project(tmp_path, {"train.py": script, "configs/zero2.json": ZERO2,
                                  "run.sh": "deepspeed --num_gpus 2 train.py\n"})
    assert setup.config.path.endswith("configs/zero2.json") and setup.world_size == 2


def test_set_defaults_gives_the_default():
    facts = setup_facts("""
        import argparse, deepspeed
        parser = argparse.ArgumentParser()
        parser.add_argument("--config", dest="ds_config")
        parser.set_defaults(ds_config="ds.json")
        args = parser.parse_args()
        deepspeed.initialize(model=None, config=args.ds_config)
    """)
    [ref] = facts.config_refs
    assert (ref.how, ref.path, ref.options) == ("argument", "ds.json", ("--config",))


def test_options_of_a_parser_built_in_another_module_are_still_read():
    facts = setup_facts("""
        import deepspeed
        from common.cli import make_parser
        parser = make_parser()
        parser.add_argument("--ds", dest="ds_config", default="ds.json")
        args = parser.parse_args()
        deepspeed.initialize(model=None, config=args.ds_config)
    """)
    assert facts.argparse_options == {"--ds": ("ds_config", "ds.json")}
    [ref] = facts.config_refs
    assert (ref.how, ref.path, ref.options) == ("argument", "ds.json", ("--ds",))


def test_a_path_joined_next_to_the_script_keeps_its_folders(tmp_path):
    script = """
        import os
        from transformers import Trainer, TrainingArguments
        HERE = os.path.dirname(os.path.abspath(__file__))
        DS_CONFIG = os.path.join(HERE, "ds", "zero2.json")
        args = TrainingArguments(output_dir="o", deepspeed=DS_CONFIG)
        Trainer(model=None, args=args).train()
    """
    [ref] = setup_facts(script).config_refs
    assert (ref.how, ref.path) == ("literal", "ds/zero2.json")
    # Two files of that name: the folder decides (the file name alone was ambiguous).
    [setup] = _project(tmp_path, {"train.py": script, "ds/zero2.json": ZERO2, "old/zero2.json": ZERO2})
    assert setup.config.path.endswith("/ds/zero2.json")


def test_a_pathlib_path_next_to_the_script():
    facts = setup_facts("""
        from pathlib import Path
        import deepspeed
        CONFIGS = Path(__file__).resolve().parent / "configs"
        deepspeed.initialize(model=None, config=str(CONFIGS / "zero3.json"))
    """)
    [ref] = facts.config_refs
    assert (ref.how, ref.path) == ("literal", "configs/zero3.json")


def test_environment_reads_go_through_the_values_layer():
    facts = setup_facts("""
        from os import environ, getenv
        import deepspeed
        deepspeed.initialize(model=None, config=environ.get("DS_CONFIG"))
        deepspeed.initialize(model=None, config=getenv("DS_CONFIG_2"))
    """)
    assert [(r.how, r.env) for r in facts.config_refs] == [("env", "DS_CONFIG"), ("env", "DS_CONFIG_2")]


def test_lightning_devices_and_strategy_from_module_constants():
    facts = setup_facts("""
        import lightning as L
        from lightning.pytorch.strategies import DeepSpeedStrategy
        GPUS = 4
        NODES = 2
        STAGE = 3

        def main():
            strategy = DeepSpeedStrategy(stage=STAGE, offload_optimizer=True)
            L.Trainer(devices=GPUS, num_nodes=NODES, strategy=strategy).fit(None)
    """)
    [site] = facts.lightning
    assert (site.devices, site.num_nodes, site.strategy_class) == (4, 2, "DeepSpeedStrategy")
    assert site.strategy_kwargs == {"stage": 3, "offload_optimizer": True} and site.strategy_kwargs_complete


def test_a_strategy_string_built_from_a_constant():
    facts = setup_facts("""
        import lightning as L
        STAGE = 2
        L.Trainer(devices=2, strategy=f"deepspeed_stage_{STAGE}").fit(None)
    """)
    [site] = facts.lightning
    assert site.strategy == "deepspeed_stage_2"


def test_an_optimizer_bound_in_two_branches_to_different_kinds_is_unknown():
    facts = setup_facts("""
        import deepspeed, torch
        from deepspeed.ops.adam import DeepSpeedCPUAdam

        def main(model, cpu):
            if cpu:
                opt = DeepSpeedCPUAdam(model.parameters())
            else:
                opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            deepspeed.initialize(model=model, optimizer=opt, config="ds.json")
    """)
    [init] = facts.deepspeed_inits
    assert init.optimizer is None and init.optimizer_given


def test_an_optimizer_parameter_shadowing_a_module_optimizer_is_unknown():
    facts = setup_facts("""
        import deepspeed, torch
        model = torch.nn.Linear(2, 2)
        opt = torch.optim.AdamW(model.parameters())

        def main(model, opt):
            deepspeed.initialize(model=model, optimizer=opt, config="ds.json")
    """)
    [init] = facts.deepspeed_inits
    assert init.optimizer is None


def test_training_arguments_keywords_are_plain_data():
    facts = setup_facts("""
        import argparse
        from transformers import TrainingArguments
        p = argparse.ArgumentParser()
        p.add_argument("--lr", type=float, default=1e-4)
        cli = p.parse_args()
        BATCH = 16
        args = TrainingArguments(output_dir="o", deepspeed="ds.json", per_device_train_batch_size=BATCH,
                                 learning_rate=cli.lr, bf16=True)
        args.bf16 = False
    """)
    [hf] = facts.hf_training_args
    assert {k: v for k, (v, _) in hf.known.items()} == {"per_device_train_batch_size": 16}
    assert set(hf.unknown) == {"learning_rate", "bf16"} and not hf.open and hf.defaults
    assert hf.config_span == facts.config_refs[0].span
    assert hf.value("max_grad_norm") == (1.0, None)
    assert hf.value("learning_rate") == (UNKNOWN, None) and hf.value("bf16") == (UNKNOWN, None)
