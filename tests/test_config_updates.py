"""DeepSpeed configs changed in code before they are used (a loaded file, a module constant or a dict,
then literal updates in program order), and the data-parallel size of a PipelineModule."""
from __future__ import annotations

import json
import os
from pathlib import Path

from dslint import engine
from dslint.facts.link import link_setups
from dslint.settings import Settings


def _setups(root: Path, files: dict):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    values = Settings.model_validate({})
    old = os.getcwd()
    os.chdir(root)
    try:
        project = engine.check(["."], values, root=root, use_cache=False).project
        return link_setups(project, values)
    finally:
        os.chdir(old)


def _found(project, code: str) -> list:
    return [(f.path, f.span.start.row) for f in project.check().findings if f.code == code]


FP16_FILE = json.dumps({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
                        "fp16": {"enabled": True}, "zero_optimization": {"stage": 2}}, indent=2)
ENGINE = """import json

import deepspeed
import torch


def run(path):
    cfg = json.load(open(path))
{changes}
    net = torch.nn.Linear(16, 16)
    engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=cfg)
    return engine


if __name__ == "__main__":
    run("ds/fp16.json")
"""


def _engine(changes: str) -> str:
    return ENGINE.format(changes=changes).replace("json.load(open(path))", 'json.load(open("ds/fp16.json"))')


LAUNCH = "deepspeed --num_gpus 2 fit.py\n"


def test_a_key_set_in_code_after_loading_joins_the_file_values(project):
    project.write({"fit.py": _engine('    cfg["bf16"] = {"enabled": True}'), "ds/fp16.json": FP16_FILE,
                   "run.sh": LAUNCH})
    [finding] = [f for f in project.check().findings if f.code == "DSL606"]
    assert (finding.path, finding.span.start.row) == ("ds/fp16.json", 5)  # the file's fp16.enabled
    assert [(path, span.start.row) for path, span, _ in finding.related] == [("fit.py", 9)]  # the code's bf16


def test_a_key_set_in_code_that_turns_fp16_off_leaves_nothing_to_report(project):
    changes = '    cfg["fp16"]["enabled"] = False\n    cfg.update(bf16={"enabled": True})'
    project.write({"fit.py": _engine(changes), "ds/fp16.json": FP16_FILE, "run.sh": LAUNCH})
    assert "DSL606" not in project.codes()


def test_updates_apply_in_program_order_and_nested(tmp_path):
    changes = ('    cfg["zero_optimization"].update(stage=3)\n'
               '    with open("ds/fp16.json") as f:\n'
               '        cfg.update({"gradient_accumulation_steps": 8, "gradient_clipping": 1.0})')
    [setup] = _setups(tmp_path, {"fit.py": _engine(changes), "ds/fp16.json": FP16_FILE, "run.sh": LAUNCH})
    value = setup.config.value
    assert value["zero_optimization"] == {"stage": 3}
    assert (value["gradient_accumulation_steps"], value["gradient_clipping"]) == (8, 1.0)
    assert value["fp16"] == {"enabled": True}


def test_a_change_under_a_branch_leaves_the_config_unknown(tmp_path):
    changes = '    if torch.cuda.is_bf16_supported():\n        cfg["bf16"] = {"enabled": True}'
    [setup] = _setups(tmp_path, {"fit.py": _engine(changes), "ds/fp16.json": FP16_FILE, "run.sh": LAUNCH})
    assert setup.config.value is None


def test_a_change_after_the_config_is_used_or_by_a_call_leaves_it_unknown(tmp_path):
    after = _engine("").replace("    return engine", '    cfg["bf16"] = {"enabled": True}\n    return engine')
    [setup] = _setups(tmp_path, {"fit.py": after, "ds/fp16.json": FP16_FILE, "run.sh": LAUNCH})
    assert setup.config.value is None
    passed = _engine("    tune(cfg)").replace("def run(path):", "def tune(c):\n    c['bf16'] = {}\n\n\ndef run(path):")
    [setup] = _setups(tmp_path, {"fit.py": passed, "ds/fp16.json": FP16_FILE, "run.sh": LAUNCH})
    assert setup.config.value is None


def test_an_update_with_a_value_the_files_do_not_show_leaves_the_config_unknown(tmp_path):
    changes = '    cfg.update(json.loads(os.environ["DS_OVERRIDES"]))'
    [setup] = _setups(tmp_path, {"fit.py": "import os\n" + _engine(changes), "ds/fp16.json": FP16_FILE,
                                 "run.sh": LAUNCH})
    assert setup.config.value is None


def test_a_key_written_into_a_section_the_file_lacks_leaves_the_config_unknown(tmp_path):
    changes = '    cfg["bf16"]["enabled"] = True'  # KeyError at run time: nothing to say about the config
    [setup] = _setups(tmp_path, {"fit.py": _engine(changes), "ds/fp16.json": FP16_FILE, "run.sh": LAUNCH})
    assert setup.config.value is None
    assert "before it exists" in setup.notes["config"]


def test_a_file_finding_is_not_repeated_for_the_config_built_from_it(project):
    typo = json.dumps({"train_micro_batch_size_per_gpu": 2, "gradient_acumulation_steps": 4,
                       "fp16": {"enabled": True}}, indent=2)
    project.write({"fit.py": _engine('    cfg["zero_optimization"] = {"stage": 1}'), "ds/fp16.json": typo,
                   "run.sh": LAUNCH})
    assert _found(project, "DSL601") == [("ds/fp16.json", 3)]


HF = """import json

from transformers import Trainer, TrainingArguments


def main():
    with open("ds/z2.json") as handle:
        ds = json.load(handle)
{changes}
    args = TrainingArguments(output_dir="out", lr_scheduler_type="linear", deepspeed=ds)
    Trainer(model=None, args=args).train()


main()
"""
Z2 = json.dumps({"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2}}, indent=2)


def test_a_scheduler_added_in_code_is_reported_at_the_code(project):
    changes = '    ds["scheduler"] = {"type": "WarmupLR", "params": {"warmup_num_steps": 100}}'
    project.write({"sft.py": HF.format(changes=changes), "ds/z2.json": Z2, "run.sh": "torchrun --nproc_per_node 2 sft.py\n"})
    assert _found(project, "DSL612") == [("sft.py", 9)]


BASE_MODULE = """DS_BASE = {
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": 0.5,
    "zero_optimization": {"stage": 3},
}
"""
MERGED = """from transformers import Trainer, TrainingArguments

from conf.deepspeed import DS_BASE

ds = {**DS_BASE, "gradient_accumulation_steps": 4}
args = TrainingArguments(output_dir="out", gradient_accumulation_steps=2, deepspeed=ds)
Trainer(model=None, args=args).train()
"""


def test_a_constant_of_another_module_merged_with_literal_keys(project):
    project.write({"sft.py": MERGED, "conf/__init__.py": "", "conf/deepspeed.py": BASE_MODULE})
    # gradient_accumulation_steps from the script's own key; gradient_clipping 0.5 (vs max_grad_norm's
    # default 1.0) from the module's
    assert sorted(_found(project, "DSL618")) == [("conf/deepspeed.py", 4), ("sft.py", 5)]


def test_literal_keys_before_a_merged_constant_are_replaced_by_it(tmp_path):
    text = MERGED.replace('{**DS_BASE, "gradient_accumulation_steps": 4}', '{"gradient_accumulation_steps": 4, **DS_BASE}')
    [setup] = _setups(tmp_path, {"sft.py": text, "conf/__init__.py": "", "conf/deepspeed.py": BASE_MODULE})
    assert setup.config.value["gradient_accumulation_steps"] == "auto"


BATCH = json.dumps({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 1},
                   indent=2)
SMALL = json.dumps({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1}, indent=2)


def test_a_second_loaded_config_merged_in_changes_the_batch_arithmetic(project):
    changes = '    with open("ds/small.json") as f:\n        cfg.update(json.load(f))'
    script = _engine(changes).replace("ds/fp16.json", "ds/batch.json")
    project.write({"fit.py": script, "ds/batch.json": BATCH, "ds/small.json": SMALL,
                   "run.sh": "deepspeed --num_gpus 8 fit.py\n"})
    [finding] = [f for f in project.check().findings if f.code == "DSL610"]
    assert (finding.path, finding.span.start.row) == ("ds/batch.json", 2)
    assert finding.message.startswith("train_batch_size 64 != 4 x 1 x 8 = 32")
    assert ("ds/small.json", 2) in [(path, span.start.row) for path, span, _ in finding.related]


PIPE = """import deepspeed
import torch
from deepspeed.pipe import LayerSpec, PipelineModule

STAGES = {stages}


def main():
    deepspeed.init_distributed()
    net = PipelineModule(layers=[LayerSpec(torch.nn.Linear, 64, 64) for _ in range(8)], {how},
                         loss_fn=torch.nn.MSELoss())
    engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config="pipe.json")


main()
"""
def _pipe(project, tbs: int, how: str = "num_stages=STAGES", stages: str = "2") -> list:
    config = json.dumps({"train_batch_size": tbs, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4})
    project.write({"pipe_train.py": PIPE.format(stages=stages, how=how), "pipe.json": config,
                   "run.sh": "deepspeed --num_gpus 8 pipe_train.py\n"})
    return [f for f in project.check().findings if f.code == "DSL610"]


def test_pipeline_stages_divide_the_world_in_the_batch_arithmetic(project):
    [finding] = _pipe(project, 64)  # 2 x 4 x (8 ranks / 2 stages) = 32
    assert finding.message.startswith("train_batch_size 64 != 2 x 4 x 4 = 32 (micro x accumulation x data-parallel")
    assert not _pipe(project, 32)


def test_pipeline_stages_the_files_do_not_show_say_nothing(project):
    assert not _pipe(project, 64, stages="int(__import__('os').environ['STAGES'])")
    assert not _pipe(project, 64, how="topology=None, num_stages=STAGES")


def test_a_function_of_the_script_that_loads_and_updates_the_config(project):
    script = """import json

import deepspeed
import torch


def ds_config():
    with open("ds/batch.json") as f:
        cfg = json.load(f)
    cfg["train_micro_batch_size_per_gpu"] = 4
    return cfg


net = torch.nn.Linear(4, 4)
engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=ds_config())
"""
    project.write({"fit.py": script, "ds/batch.json": BATCH, "run.sh": "deepspeed --num_gpus 8 fit.py\n"})
    [finding] = [f for f in project.check().findings if f.code == "DSL610"]
    assert finding.message.startswith("train_batch_size 64 != 4 x 1 x 8 = 32")
    assert ("fit.py", 10) in [(path, span.start.row) for path, span, _ in finding.related]
