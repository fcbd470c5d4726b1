"""DeepSpeed configs written as Python dicts are config documents: the per-config rules (schema,
fp16+bf16, offload ...) and the linked-setup rules read them, report in the .py file at the key, offer
no JSON fix, and treat a value the files do not show (`args.stage`) as unknown, not absent."""
from __future__ import annotations

import os
from pathlib import Path

from dslint import engine
from dslint.facts.config_dicts import DictDoc, NotLiteral, dict_documents
from dslint.model import Location, Span
from dslint.settings import Settings
from dslint.textpos import LineIndex


def _check(root: Path, files: dict, **settings):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    values = Settings.model_validate(settings)
    old = os.getcwd()
    os.chdir(root)
    try:
        return engine.check(["."], values, root=root, use_cache=False).findings
    finally:
        os.chdir(old)


def _codes(findings) -> dict:
    return {(f.code, f.path, f.span.start.row, f.span.start.column) for f in findings}


# -- the document view ----------------------------------------------------------------------------------

TEXT = '{"zero_optimization": {"stage": 3, "overlap_com": True}, "fp16": FP16}'


def _doc() -> DictDoc:
    import ast

    from dslint.facts.config_dicts import literal_leaf, template_of

    lines = LineIndex(TEXT)
    node = ast.parse(TEXT, mode="eval").body
    found = template_of(node, lines, lambda e: literal_leaf(e, lambda x: ast.literal_eval(x) if isinstance(
        x, ast.Constant) else None))
    return DictDoc("conf.py", found.value, dict(found.spans))


def test_nodes_have_the_key_and_pair_spans_and_unknowns_are_present():
    doc = _doc()
    node = doc.node(("zero_optimization", "overlap_com"))
    assert node.value is True
    assert TEXT[node.key_span.start_offset:node.key_span.end_offset] == '"overlap_com"'
    assert TEXT[node.pair_span.start_offset:node.pair_span.end_offset] == '"overlap_com": True'
    assert set(doc.node(()).children) == {"zero_optimization", "fp16"}
    assert isinstance(doc.node(("fp16",)).value, NotLiteral)
    assert doc.unknown(("fp16",)) and doc.unknown(("fp16", "enabled"))
    assert not doc.unknown(("zero_optimization", "stage")) and not doc.unknown(("bf16",))
    assert doc.has_unknown() and not doc.has_unknown(("zero_optimization",))
    assert [p for p, _ in doc.walk()] == [(), ("zero_optimization",), ("zero_optimization", "stage"),
                                          ("zero_optimization", "overlap_com"), ("fp16",)]
    assert doc.strict is False and not doc.duplicate_keys


def test_one_document_per_dict_and_value():
    class Link:
        def __init__(self, path, value, spans):
            self.path, self.value, self.key_spans, self.key_path = None, value, spans, path

    class Setup:
        def __init__(self, link):
            self.config = link

    span = Span(Location(1, 2), Location(1, 10), 1, 9)
    same = [Setup(Link("conf.py", {"train_batch_size": 8}, {("train_batch_size",): span})) for _ in range(2)]
    other = Setup(Link("conf.py", {"train_batch_size": 16}, {("train_batch_size",): span}))
    no_spans = Setup(Link("conf.py", {"train_batch_size": 8}, {}))
    found = dict_documents(same + [other, no_spans])
    assert [len(setups) for _, setups in found] == [2, 1]


# -- the config rules on dicts ---------------------------------------------------------------------------

SCRIPT = """import argparse

import deepspeed
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--stage", type=int, default=2)
args = parser.parse_args()

ds_config = {{
    "train_micro_batch_size_per_gpu": 4,
{body}
}}
net = torch.nn.Linear(4, 4)
engine, opt, _, _ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=ds_config)
{tail}"""


def _script(body: str, tail: str = "") -> dict:
    return {"pretrain.py": SCRIPT.format(body=body, tail=tail)}


def test_unknown_key_in_a_dict_is_reported_at_the_key_with_its_suggestion_and_no_fix(tmp_path):
    findings = _check(tmp_path, _script('    "zero_optimization": {"stage": 2, "overlap_com": True},'))
    found = [f for f in findings if f.code == "DSL601"]
    assert [(f.path, f.span.start.row, f.span.start.column) for f in found] == [("pretrain.py", 12, 39)]
    assert "overlap_comm" in found[0].message and found[0].fix is None
    assert found[0].span.end.column - found[0].span.start.column == len('"overlap_com"')


def test_a_value_from_the_command_line_is_unknown_not_a_bad_value(tmp_path):
    findings = _check(tmp_path, _script('    "zero_optimization": {"stage": args.stage, "reduce_bucket_size": 5e8},\n'
                                        '    "fp16": {"enabled": True},\n    "bf16": {"enabled": args.stage > 2},'))
    assert not [f for f in findings if f.code in ("DSL601", "DSL603", "DSL606")]


def test_a_wrong_value_the_dict_shows_is_reported(tmp_path):
    findings = _check(tmp_path, _script('    "zero_optimization": {"stage": 4},\n    "fp16": {"enabled": True},\n'
                                        '    "bf16": {"enabled": True},'))
    codes = {(f.code, f.span.start.row) for f in findings}
    assert ("DSL603", 12) in codes and ("DSL606", 13) in codes
    assert all(f.fix is None for f in findings if f.code.startswith("DSL6"))


def test_fractional_bucket_and_ignored_offload_in_a_dict(tmp_path):
    findings = _check(tmp_path, _script(
        '    "zero_optimization": {"stage": 1, "reduce_bucket_size": 2.5e7 + 0.5,\n'
        '                          "offload_param": {"device": "cpu"}},'))
    assert ("DSL608", 13) in {(f.code, f.span.start.row) for f in findings}


def test_nvme_path_from_an_argument_is_set(tmp_path):
    zero = ('    "zero_optimization": {"stage": 3,\n'
            '                          "offload_param": {"device": "nvme", "nvme_path": %s}},')
    assert not [f for f in _check(tmp_path / "a", _script(zero % "args.nvme")) if f.code == "DSL609"]
    assert [f.span.start.row for f in _check(tmp_path / "b", _script(zero % "None")) if f.code == "DSL609"] == [13]


def test_optimizer_params_typo_is_dropped_when_the_script_passes_its_own_optimizer(tmp_path):
    body = '    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "max_grad_norm": 1.0}},'
    assert [f.code for f in _check(tmp_path / "a", _script(body)) if f.code == "DSL601"] == ["DSL601"]
    own = SCRIPT.format(body=body, tail="").replace(
        "model_parameters=net.parameters(),", "optimizer=torch.optim.AdamW(net.parameters()),")
    assert not [f for f in _check(tmp_path / "b", {"pretrain.py": own}) if f.code == "DSL601"]


def test_a_dict_no_setup_links_is_not_a_config_document(tmp_path):
    text = SCRIPT.format(body='    "zero_optimization": {"stage": 2, "overlap_com": True},', tail="") \
        .replace("config=ds_config", "config='ds.json'")
    assert not [f for f in _check(tmp_path, {"pretrain.py": text}) if f.code == "DSL601"]


# -- a function of another module returns the dict: one document, reported there --------------------------

CONF = """def ds_config(micro, stage=3):
    return {
        "train_micro_batch_size_per_gpu": micro,
        "zero_optimization": {"stage": stage, "stage3_gather_16bit_weights_on_model_save": False},
        "bf16": {"enabled": True},
        "fp16": {"enabled": True},
    }
"""
USER = """import deepspeed
import torch

from conf import ds_config

net = torch.nn.Linear(4, 4)
engine, *_ = deepspeed.initialize(model=net, model_parameters=net.parameters(), config=ds_config({micro}))
engine.save_16bit_model("out")
"""


def test_a_builder_linked_by_two_scripts_is_reported_once_in_its_module(tmp_path):
    findings = _check(tmp_path, {"conf.py": CONF, "a.py": USER.format(micro=4), "b.py": USER.format(micro=4),
                                 "run.sh": "deepspeed a.py\ndeepspeed b.py\n"})
    assert [(f.path, f.span.start.row) for f in findings if f.code == "DSL606"] == [("conf.py", 6)]
    assert {(f.path, f.span.start.row) for f in findings if f.code == "DSL611"} == {("conf.py", 4)}


def test_a_stage_from_the_caller_decides_the_zero3_save(tmp_path):
    user = USER.format(micro=4).replace("ds_config(4)", "ds_config(4, stage=int(input()))")
    findings = _check(tmp_path, {"conf.py": CONF, "a.py": user})
    assert not [f for f in findings if f.code == "DSL611"]
    assert [f.code for f in findings if f.code == "DSL606"] == ["DSL606"]


def test_noqa_on_the_dict_line_silences_a_dict_config_finding(tmp_path):
    text = SCRIPT.format(body='    "zero_optimization": {"stage": 2, "overlap_com": True},  # noqa: DSL601', tail="")
    findings = _check(tmp_path, {"pretrain.py": text})
    assert not [f for f in findings if f.code in ("DSL601", "DSL004")]


# -- the HF Trainer reads a dict: DSL612, DSL618; json.load's DSL615 is for files only -----------------------

HF = """from transformers import Trainer, TrainingArguments

DEEPSPEED = {{
    "train_micro_batch_size_per_gpu": {micro},
    "zero_optimization": {{"stage": 2}},
{extra}}}
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, deepspeed=DEEPSPEED)
Trainer(model=None, args=args).train()
"""


def test_hf_trainer_dict_config_mismatch_and_scheduler(tmp_path):
    findings = _check(tmp_path, {"train.py": HF.format(
        micro=16, extra='    "scheduler": {"type": "WarmupDecayLR", "params": {}},\n')})
    assert {(f.code, f.path, f.span.start.row) for f in findings if f.code in ("DSL612", "DSL618", "DSL615")} == {
        ("DSL618", "train.py", 4), ("DSL612", "train.py", 6)}
    assert all(f.fix is None for f in findings)


def test_hf_trainer_dict_with_unknown_values_is_silent(tmp_path):
    text = HF.format(micro="int(input())", extra='    "scheduler": build_scheduler(),\n')
    findings = _check(tmp_path, {"train.py": text})
    assert not [f for f in findings if f.code in ("DSL612", "DSL618", "DSL603")]


def test_auto_in_a_dict_that_plain_deepspeed_reads_is_not_filled(tmp_path):
    findings = _check(tmp_path, {"pretrain.py": SCRIPT.format(
        body='    "gradient_accumulation_steps": "auto",', tail="").replace(
        '"train_micro_batch_size_per_gpu": 4', '"train_micro_batch_size_per_gpu": int(input())')})
    found = [f for f in findings if f.code == "DSL604"]
    assert [(f.path, f.span.start.row) for f in found] == [("pretrain.py", 12)]
    assert "deepspeed reads this config" in found[0].message


def test_auto_in_a_dict_the_hf_trainer_reads_is_filled(tmp_path):
    findings = _check(tmp_path, {"train.py": HF.format(micro='"auto"', extra='    "gradient_accumulation_steps": "auto",\n')})
    assert not [f for f in findings if f.code == "DSL604"]


def test_a_typo_key_the_script_assigns_later_is_reported_at_the_assignment_not_in_the_dict(tmp_path):
    text = SCRIPT.format(body='    "zero_optimization": {"stage": 2},', tail="").replace(
        "net = torch.nn", 'ds_config["gradient_acumulation_steps"] = 2\nnet = torch.nn')
    found = [f for f in _check(tmp_path, {"pretrain.py": text}) if f.code == "DSL601"]
    assert [(f.path, f.span.start.row) for f in found] == [("pretrain.py", 14)]


def test_offload_with_a_client_optimizer_points_at_the_dict_block(tmp_path):
    text = SCRIPT.format(body='    "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},', tail="") \
        .replace("model_parameters=net.parameters(),", "optimizer=torch.optim.AdamW(net.parameters(), lr=1e-4),")
    found = [f for f in _check(tmp_path, {"pretrain.py": text}) if f.code == "DSL614"]
    assert [(r[0], r[1].start.row) for f in found for r in f.related] == [("pretrain.py", 12)]


# -- a builder returning module constants merged with `**` ------------------------------------------

PRESETS = '''BASE = {
    "train_micro_batch_size_per_gpu": 4,
    "fp16": {"enabled": True},
    "zero_optimization": {"stage": 2},
}
BF16 = {"bf16": {"enabled": True}}
OFFLOAD = {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}
PRESETS = {"fp16": {}, "bf16": BF16}


def merged():
    return {**BASE, **OFFLOAD}


def build(precision="fp16"):
    return {**BASE, **PRESETS[precision]}
'''


def _preset_script(call: str) -> dict:
    return {"presets.py": PRESETS, "train.py": "import deepspeed\nimport torch\nfrom presets import build, merged\n"
            "model = torch.nn.Linear(2, 2)\n"
            f"engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config={call})\n",
            "run.sh": "deepspeed --num_gpus 8 train.py\n"}


def test_a_builder_merging_module_constants_returns_their_keys_in_order(tmp_path):
    found = {f.code for f in _check(tmp_path, _preset_script("merged()"))}
    assert "DSL201" in found  # OFFLOAD's offload_optimizer (later keys win), 8 ranks, no core binding
    assert "DSL606" not in found  # BASE alone enables only fp16


def test_a_preset_chosen_by_the_callers_argument_is_merged(tmp_path):
    found = _check(tmp_path, _preset_script('build("bf16")'))
    assert [(f.code, f.path, f.span.start.row) for f in found if f.code == "DSL606"] == [("DSL606", "presets.py", 3)]


def test_the_default_preset_and_an_unknown_choice_are_not_both_precisions(tmp_path):
    assert "DSL606" not in {f.code for f in _check(tmp_path / "a", _preset_script("build()"))}
    unknown = _preset_script("build(precision)").copy()
    unknown["train.py"] = unknown["train.py"].replace("from presets", "import sys\nprecision = sys.argv[1]\nfrom presets")
    assert "DSL606" not in {f.code for f in _check(tmp_path / "b", unknown)}


NAMESPACE = '''import argparse

import deepspeed
import torch

from conf import get_ds_config


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--local_rank", type=int, default=-1)
    p.add_argument("--micro_batch", type=int, default=4)
    p.add_argument("--global_batch", type=int, default=64)
    return p.parse_args()


args = parse_args()
model = torch.nn.Linear(2, 2)
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=get_ds_config(args))
'''
BUILDER = ('def get_ds_config(args):\n    return {"train_batch_size": args.global_batch, '
           '"train_micro_batch_size_per_gpu": args.micro_batch, "gradient_accumulation_steps": 4}\n')


def test_a_builder_given_the_namespace_reads_the_options_defaults(tmp_path):
    found = _check(tmp_path, {"train.py": NAMESPACE, "conf.py": BUILDER, "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert [(f.code, f.path) for f in found if f.code == "DSL610"] == [("DSL610", "conf.py")]  # 64 != 4 x 4 x 8


def test_an_option_the_launch_line_passes_is_unknown(tmp_path):
    found = _check(tmp_path, {"train.py": NAMESPACE, "conf.py": BUILDER,
                              "run.sh": "deepspeed --num_gpus 8 train.py --global_batch 128\n"})
    assert "DSL610" not in {f.code for f in found}


def test_an_option_the_script_assigns_after_parsing_is_unknown(tmp_path):
    changed = NAMESPACE.replace("args = parse_args()\n", "args = parse_args()\nargs.global_batch = 128\n")
    found = _check(tmp_path, {"train.py": changed, "conf.py": BUILDER, "run.sh": "deepspeed --num_gpus 8 train.py\n"})
    assert "DSL610" not in {f.code for f in found}


# -- an entry of an imported table of configs, chosen by a value the files do not fix --------------

TABLE = '''BASE = {
    "train_batch_size": 128,
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": 2,
}
STAGES = {"zero1": 1, "zero2": 2}
PRESETS = ENTRIES
'''
CHOOSER = ("import argparse\n\nimport deepspeed\nimport torch\n\nfrom ds_presets import PRESETS\n\n"
           "p = argparse.ArgumentParser()\np.add_argument('--preset', choices=sorted(PRESETS), default='zero1')\n"
           "args = p.parse_args()\nmodel = torch.nn.Linear(2, 2)\n"
           "engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), "
           "config=PRESETS[args.preset])\n")


def _table(entries: str) -> dict:
    return {"ds_presets.py": TABLE.replace("ENTRIES", entries), "train.py": CHOOSER,
            "run.sh": "deepspeed --num_gpus 16 train.py --preset zero2\n"}


def test_what_every_entry_of_an_imported_table_shares_is_the_config(tmp_path):
    comprehension = '{name: {**BASE, "zero_optimization": {"stage": s}} for name, s in STAGES.items()}'
    found = _check(tmp_path / "a", _table(comprehension))
    assert [(f.code, f.path, f.span.start.row) for f in found if f.code == "DSL610"] == [("DSL610", "ds_presets.py", 2)]
    literal = '{"zero1": {**BASE, "zero_optimization": {"stage": 1}}, "zero2": {**BASE, "zero_optimization": {"stage": 2}}}'
    found = _check(tmp_path / "b", _table(literal))
    assert [(f.code, f.path) for f in found if f.code == "DSL610"] == [("DSL610", "ds_presets.py")]


def test_entries_that_disagree_on_a_key_leave_it_unknown(tmp_path):
    disagree = ('{"small": {**BASE, "train_batch_size": 256}, "large": {**BASE}}')  # 256 = 8 x 2 x 16: one fits
    assert "DSL610" not in {f.code for f in _check(tmp_path, _table(disagree))}
