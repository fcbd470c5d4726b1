"""Rank gates that the other conditions on the path settle: a rank test `or`-ed with a rank-free
part that an inner (or outer) guard makes true decides nothing (`if kind != LEGACY or rank == 0:`
around `if kind == SHARDED:`), and a flag passed to a helper whose collective runs only under that
flag, when the flag is a part of the caller's rank gate that lets every rank in."""
from __future__ import annotations

import ast

import pytest

from dslint.facts.collectives import find_gated_collectives
from dslint.facts.conditions import opens_gate, rank_gate
from dslint.facts.script import build_script_facts

HEAD = '''import enum

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp


class Layout(enum.Enum):
    SINGLE_FILE = enum.auto()
    SHARDED = enum.auto()
    LOCAL = enum.auto()


'''


def facts_of(text: str):
    return build_script_facts("t.py", text, ast.parse(text))


def gated_rows(text: str) -> list:
    facts = facts_of(text)
    return sorted(call.node.lineno for call in find_gated_collectives(facts))


def row_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# -- 1. an inner guard that makes a rank-free part of the gate true ----------------------------

INNER = HEAD + '''
def save(state, layout, rank, frozen, out):
    if not frozen and (layout != Layout.SINGLE_FILE or rank == 0):
        state = {k: v.clone() for k, v in state.items()}
        if layout == Layout.SHARDED:
            dcp.save(state, checkpoint_id=out)  # sharded: every rank is here
        elif layout == Layout.SINGLE_FILE:
            torch.save(state, out)
'''


def test_an_inner_guard_that_implies_a_rank_free_disjunct_leaves_no_gate():
    assert gated_rows(INNER) == []


@pytest.mark.parametrize("inner, why", [
    ("layout == Layout.SINGLE_FILE", "the guard makes the rank-free part false: rank 0 alone"),
    ("out.endswith('.dcp')", "the guard proves nothing about the gate"),
    ("layout in (Layout.SHARDED, Layout.SINGLE_FILE)", "one of the two leaves only rank 0"),
])
def test_an_inner_guard_that_does_not_settle_the_gate_keeps_it(inner, why):
    text = INNER.replace("if layout == Layout.SHARDED:", f"if {inner}:")
    assert gated_rows(text) == [row_of(text, "dcp.save")], why


def test_a_rebinding_between_the_gate_and_the_guard_keeps_the_gate():
    # rank 0 may enter with SINGLE_FILE and switch to SHARDED: it saves alone
    text = INNER.replace("        state = {k", "        layout = Layout.SHARDED\n        state = {k")
    assert gated_rows(text) == [row_of(text, "dcp.save")]


def test_literals_and_membership_settle_the_gate_like_enum_members():
    text = HEAD + '''
def sync(t, backend, rank):
    if backend != "gloo" or rank == 0:
        if backend in ("nccl", "mpi"):
            dist.all_reduce(t)
        if backend == "gloo":
            dist.broadcast(t, 0)
'''
    assert gated_rows(text) == [row_of(text, "dist.broadcast")]


def test_an_outer_guard_settles_an_inner_rank_gate():
    text = HEAD + '''
def sync(t, everyone, rank):
    if everyone:
        if everyone or rank == 0:
            dist.barrier()
    if not everyone:
        if everyone or rank == 0:
            dist.barrier()
'''
    assert gated_rows(text) == [row_of(text, "dist.barrier") + 3]


def test_a_rank_gate_settled_by_a_guard_still_meets_a_gate_further_out():
    text = HEAD + '''
def sync(t, layout, rank):
    if rank == 0:
        if layout != Layout.LOCAL or rank == 1:
            if layout == Layout.SHARDED:
                dist.barrier()
'''
    facts = facts_of(text)
    [call] = find_gated_collectives(facts)
    assert call.gate.node.lineno == row_of(text, "if rank == 0")


def test_an_early_return_that_the_guard_after_it_settles_is_no_gate():
    text = HEAD + '''
def publish(t, sharded, rank):
    if not (sharded or rank == 0):
        return
    t.mul_(2)
    if sharded:
        dist.broadcast(t, 0)
    dist.barrier()
'''
    assert gated_rows(text) == [row_of(text, "dist.barrier")]


def test_an_attribute_flag_is_trusted_only_while_the_method_never_stores_it():
    text = HEAD + '''
class Syncer:
    def sync(self, t):
        if self.everyone or self.rank == 0:
            if self.everyone:
                dist.all_reduce(t)

    def sync_once(self, t):
        if self.everyone or self.rank == 0:
            self.everyone = False
            if self.everyone:
                dist.all_reduce(t)
'''
    assert gated_rows(text) == [row_of(text, "self.everyone = False") + 2]


def test_an_attribute_stored_outside_the_stretch_between_the_tests_is_read_alike():
    text = HEAD + '''
def save_all(state, args, cfg, rank, steps):
    args.sharded = cfg.layout == "sharded"
    if args.sharded or rank == 0:
        if args.sharded:
            dcp.save(state, checkpoint_id=args.out)
    for step in steps:  # each pass tests the gate again
        if args.sharded or rank == 0:
            if args.sharded:
                dcp.save(state, checkpoint_id=args.out)
        args.sharded = step % 2 == 0
    if args.sharded or rank == 0:
        for step in steps:  # rank 0 alone may turn it on in a later pass
            if args.sharded:
                dcp.save(state, checkpoint_id=args.out)
            args.sharded = step % 2 == 0
'''
    assert gated_rows(text) == [row_of(text, "rank 0 alone may turn it on") + 2]


def test_a_call_in_the_guard_is_never_taken_to_read_the_same_twice():
    text = HEAD + '''
def sync(t, queue, rank):
    if queue.empty() or rank == 0:
        if queue.empty():
            dist.barrier()
'''
    assert gated_rows(text) == [row_of(text, "dist.barrier")]


# -- 2. the flag that turns a helper's collective on is the gate's rank-free part -------------

HELPER = HEAD + '''
def read(path, wait=False):
    if wait:
        dist.barrier()
    return torch.load(path, map_location="cpu")


def resume(path, rank, everyone, other):
    if everyone or rank == 0:
        a = read(path, wait=everyone)
        b = read(path, everyone)
        c = read(path, wait=other)
        d = read(path, wait=True)
        e = read(path)
    return a, b, c, d, e
'''


def test_a_flag_that_opens_the_gate_to_every_rank_does_not_hang_the_helper():
    rows = gated_rows(HELPER)
    assert rows == [row_of(HELPER, "c = read"), row_of(HELPER, "d = read")]


def test_opens_gate_reads_the_value_at_the_call():
    facts = facts_of(HELPER)
    site = next(s for s in facts.calls if s.node.lineno == row_of(HELPER, "a = read") and s.attr == "read")
    other = ast.copy_location(ast.parse("other").body[0].value, site.node.keywords[0].value)  # read at the call
    assert rank_gate(facts, site.node, site.ctx) is not None
    assert opens_gate(facts, site.node, site.ctx, site.node.keywords[0].value)
    assert not opens_gate(facts, site.node, site.ctx, other)


UTIL = '''import torch
import torch.distributed as dist


def load_to_cpu(path, overrides=None, all_ranks=False):
    state = torch.load(path, map_location="cpu")
    if all_ranks:
        dist.barrier()  # every rank read the file
    return state
'''

TRAINER = '''import torch.distributed as dist

from utils import ckpt


def restore(path, cfg):
    all_ranks = cfg.all_ranks or cfg.tpu
    if all_ranks or dist.get_rank() == 0:
        return ckpt.load_to_cpu(path, all_ranks=all_ranks)
    return None
'''


def dsl501_rows(project, files: dict) -> list:
    project.write(files)
    return sorted((f.path, f.span.start.row) for f in project.check(select=["DSL501"]).findings)


def test_an_imported_helper_given_the_gates_own_flag_is_not_blamed(project):
    files = {"utils/__init__.py": "", "utils/ckpt.py": UTIL}
    assert dsl501_rows(project, {**files, "train.py": TRAINER}) == []
    assert dsl501_rows(project, {"train.py": TRAINER.replace("all_ranks=all_ranks", "all_ranks=cfg.tpu")}) \
        == [("train.py", 9)]
