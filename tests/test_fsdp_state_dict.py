"""An FSDP1 module's state_dict()/load_state_dict() is a collective: with FULL_STATE_DICT (the
default) or SHARDED_STATE_DICT the hooks unshard (all-gather) the parameters on every rank, so
under a rank gate the other ranks never join (DSL502). LOCAL_STATE_DICT reads the local shard only."""
from __future__ import annotations

import ast

from dslint.facts.collectives import CHECKPOINT, find_gated_collectives
from dslint.facts.script import build_script_facts

HEAD = """import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel, ShardingStrategy, StateDictType
from torch.distributed.fsdp import ShardedStateDictConfig


def build(net):
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    return net
"""


def gated(text: str) -> list:
    facts = build_script_facts("t.py", text, ast.parse(text))
    return [(c.node.lineno, c.collective.kind, c.collective.label) for c in find_gated_collectives(facts)]


def test_state_dict_of_a_name_bound_to_an_fsdp_wrapper_under_a_rank_gate_is_a_gated_checkpoint():
    text = HEAD + """
def save(net, path):
    sharded = FullyShardedDataParallel(build(net), device_id=torch.cuda.current_device())
    if dist.get_rank() == 0:
        torch.save(sharded.state_dict(), path)
    if dist.get_rank() == 0:
        sharded.load_state_dict(torch.load(path, map_location="cpu"))
"""
    assert gated(text) == [(17, CHECKPOINT, "sharded.state_dict"), (19, CHECKPOINT, "sharded.load_state_dict")]


def test_the_module_named_by_an_enclosing_state_dict_type_is_an_fsdp_module_even_as_a_parameter():
    text = HEAD + """
def export(module, path):
    if dist.get_rank() != 0:
        return
    with FullyShardedDataParallel.state_dict_type(module, StateDictType.SHARDED_STATE_DICT, ShardedStateDictConfig()):
        weights = module.state_dict()
    torch.save(weights, path)
"""
    assert gated(text) == [(18, CHECKPOINT, "module.state_dict")]


def test_local_state_dicts_unknown_types_and_other_receivers_are_not_collectives():
    text = HEAD + """
def export(module, kind, opt, path):
    module = FullyShardedDataParallel(module)
    if dist.get_rank() == 0:
        with FullyShardedDataParallel.state_dict_type(module, StateDictType.LOCAL_STATE_DICT):
            torch.save(module.state_dict(), path)
        with FullyShardedDataParallel.state_dict_type(module, kind):
            torch.save(module.state_dict(), path)
        torch.save(opt.state_dict(), path)
        torch.save(module.module.state_dict(), path)
"""
    assert gated(text) == []


def test_a_no_shard_wrapper_with_original_parameters_needs_no_unshard():
    text = HEAD + """
def save(net, path):
    plain = FullyShardedDataParallel(net, sharding_strategy=ShardingStrategy.NO_SHARD, use_orig_params=True)
    if dist.get_rank() == 0:
        torch.save(plain.state_dict(), path)
    gathered = FullyShardedDataParallel(net, sharding_strategy=ShardingStrategy.SHARD_GRAD_OP, use_orig_params=True)
    if dist.get_rank() == 0:
        torch.save(gathered.state_dict(), path)
"""
    assert gated(text) == [(20, CHECKPOINT, "gathered.state_dict")]


def test_a_state_dict_type_set_for_the_whole_run_leaves_the_default_unknown():
    text = HEAD + """
def save(net, path):
    net = FullyShardedDataParallel(net)
    FullyShardedDataParallel.set_state_dict_type(net, StateDictType.LOCAL_STATE_DICT)
    if dist.get_rank() == 0:
        torch.save(net.state_dict(), path)
"""
    assert gated(text) == []


ENTRY = HEAD + """
from ckpt import write_full


def main(net):
    net = FullyShardedDataParallel(build(net))
    if dist.get_rank() == 0:
        write_full(net, "final.pt")
"""

CKPT = """import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, FullStateDictConfig, StateDictType


def write_full(model, path):
    policy = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, policy):
        torch.save(model.state_dict(), path)
"""


def test_a_project_helper_that_gathers_the_full_state_dict_called_by_rank_zero_only_is_flagged(project):
    project.write({"train.py": ENTRY, "ckpt.py": CKPT})
    findings = [f for f in project.check().findings if f.code == "DSL502"]
    assert [(f.path, f.span.start.row) for f in findings] == [("train.py", 20)]
    assert "model.state_dict" in findings[0].message and "ckpt.py:8" in findings[0].message


def test_a_gated_fsdp_state_dict_gets_no_fix_that_would_move_it_out_of_its_branch(project):
    project.write({"train.py": HEAD + """
def main(net):
    net = FullyShardedDataParallel(build(net))
    if dist.get_rank() == 0:
        state = torch.load("init.pt", map_location="cpu")
        net.load_state_dict(state)
"""})
    (finding,) = [f for f in project.check().findings if f.code == "DSL502"]
    assert finding.span.start.row == 18 and finding.fix is None
