"""DSL503: saving a ZeRO-3 engine's module without gathering its partitioned parameters."""
from __future__ import annotations

SCRIPT = """import deepspeed
import torch


def main(model):
    engine, optimizer, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
    for step in range(10):
        engine.backward(engine(torch.ones(2, 8)).sum())
        engine.step()
    torch.save(engine.module.state_dict(), "model.pt")
    with deepspeed.zero.GatheredParameters(list(engine.module.parameters())):
        gathered = engine.module.state_dict()
    engine.module.save_pretrained("out", state_dict=gathered)
"""


def dsl503(project):
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL503"]).findings]


def test_stage3_module_state_dict_is_flagged_gathered_reads_are_not(project):
    project.write({"train.py": SCRIPT, "ds.json": '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}}'})
    assert dsl503(project) == [("train.py", 10)]


def test_stage2_is_not_flagged(project):
    project.write({"train.py": SCRIPT, "ds.json": '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}'})
    assert dsl503(project) == []


def test_config_from_the_launch_line(project):
    script = SCRIPT.replace('config="ds.json"', "config=args.deepspeed_config").replace(
        "def main(model):", "import argparse\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--deepspeed_config')\nargs = parser.parse_args()\n\n\ndef main(model):")
    project.write({"train.py": script, "run.sh": "deepspeed --num_gpus 8 train.py --deepspeed_config z3.json\n",
                   "z3.json": '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}}'})
    assert [p for p, _ in dsl503(project)] == ["train.py"]


def test_the_config_of_the_module_holds_no_weights(project):
    script = SCRIPT.replace('    torch.save(engine.module.state_dict(), "model.pt")\n',
                            '    engine.module.config.save_pretrained("out")\n    engine.module.base_model.save_pretrained("out")\n')
    project.write({"train.py": script, "ds.json": '{"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}}'})
    assert dsl503(project) == [("train.py", 11)]  # the submodule's weights, not the config's JSON
