"""Placement facts: rank-indexed tables, device namespaces, what creates a CUDA context, FSDP's and
init_process_group's device_id, and torch.device(cfg.x) of a YAML config (DSL101/103/104/105)."""
from __future__ import annotations

import ast
import textwrap

from dslint.facts.bindings import semantic_model
from dslint.facts.cuda import cuda_touch, device_namespace, selects_device
from dslint.facts.script import build_script_facts
from dslint.facts.values import picked_by_rank


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def facts_of(text: str):
    text = src(text)
    return build_script_facts("m.py", text, ast.parse(text))


def codes(project, files: dict, select):
    return project.write({k: src(v) for k, v in files.items()}).codes(select=select)


# -- values.picked_by_rank ---------------------------------------------------------------------

def _constants(facts, value):
    return [n for n in ast.walk(facts.tree) if isinstance(n, ast.Constant) and n.value == value]


def test_entry_of_a_display_indexed_by_the_rank():
    facts = facts_of("""
        import os
        import torch.distributed as dist
        local = int(os.environ["LOCAL_RANK"])
        a = ("cuda:0", "cuda:1")[local]
        b = {0: dict(dev="cuda:2"), 1: dict(dev="cuda:3")}[dist.get_rank()]
        c = ("cuda:4", "cuda:5")[1]
        d = {"cuda:6": 1}[dist.get_rank()]
    """)
    model = semantic_model(facts)
    picked = {v: picked_by_rank(model, _constants(facts, v)[0]) for v in
              ("cuda:0", "cuda:1", "cuda:2", "cuda:3", "cuda:4", "cuda:6")}
    assert picked == {"cuda:0": True, "cuda:1": True, "cuda:2": True, "cuda:3": True,
                      "cuda:4": False, "cuda:6": False}  # a constant index, a key: not picked by rank


def test_table_bound_to_a_name_read_only_by_the_rank():
    facts = facts_of("""
        import os
        rank = int(os.environ["RANK"])
        gpus = ["cuda:0", "cuda:1"]
        mine = gpus[rank]
        other = ["cuda:2", "cuda:3"]
        first = other[0]
        also = other[rank]
    """)
    model = semantic_model(facts)
    assert picked_by_rank(model, _constants(facts, "cuda:0")[0])
    assert not picked_by_rank(model, _constants(facts, "cuda:2")[0])  # `other[0]` is every rank's


def test_dsl101_spares_a_rank_keyed_table_and_keeps_a_plain_literal(project):
    found = codes(project, {"job.py": """
        import os
        import torch
        import torch.distributed as dist
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        ref = [torch.full((2,), 1.0, device="cuda:0"), torch.full((2,), 2.0, device="cuda:1")][dist.get_rank()]
        stray = torch.zeros(2, device="cuda:1")
    """}, ["DSL101"])
    assert found == ["DSL101"]


# -- cuda.device_namespace / set_device through it ---------------------------------------------

def test_device_namespace_shapes():
    facts = facts_of("""
        import torch
        from torch import cuda as accel

        def namespace():
            try:
                return getattr(torch, "xpu")
            except AttributeError:
                return torch.cuda

        def not_namespace():
            return object()

        a = getattr(torch, "cuda")
        b = torch.get_device_module("cuda")
        c = namespace()
        d = accel
        e = not_namespace()
        f = getattr(object(), "cuda")
        a.set_device(0); b.set_device(0); c.set_device(0); d.set_device(0); e.set_device(0); f.set_device(0)
    """)
    by_receiver = {s.receiver: selects_device(s, facts) for s in facts.method_calls("set_device")}
    assert by_receiver == {"a": True, "b": True, "c": True, "d": True, "e": False, "f": False}
    assert not any(selects_device(s) for s in facts.method_calls("set_device") if s.receiver == "a")  # needs facts
    assert device_namespace(facts, facts.method_calls("set_device")[0].node.func.value)


def test_dsl104_sees_set_device_on_a_namespace_and_dsl105_what_follows(project):
    files = {"job.py": """
        import os
        import torch
        import torch.distributed as dist

        def pick(kind="cuda"):
            device = torch.device(kind, int(os.environ["LOCAL_RANK"]))
            module = torch.get_device_module(device)
            module.set_device(device)
            return device

        device = pick()
        dist.init_process_group("nccl")
        buf = torch.zeros(4, device="cuda")
        dist.all_reduce(buf)
    """}
    assert codes(project, files, ["DSL104", "DSL105"]) == []


def test_dsl104_set_device_on_a_helper_module_namespace(project):
    files = {"tools/devices.py": """
        import os
        import torch

        def namespace():
            return getattr(torch, "cuda")

        def setup():
            backend = namespace()
            backend.set_device(int(os.environ["LOCAL_RANK"]))
    """, "tools/__init__.py": "", "job.py": """
        import torch
        import torch.distributed as dist
        from tools.devices import setup

        setup()
        dist.init_process_group("nccl")
        buf = torch.zeros(4, device="cuda")
        dist.all_reduce(buf)
    """, "go.sh": "torchrun --nproc_per_node 2 job.py\n"}
    assert codes(project, files, ["DSL104"]) == []


def test_dsl105_touch_after_a_module_level_call_that_selects(project):
    files = {"job.py": """
        import os
        import torch
        import torch.distributed as dist

        def bind():
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

        dist.init_process_group("nccl")
        bind()
        warm = torch.ones(2, device="cuda")
    """}
    assert codes(project, files, ["DSL105"]) == []


# -- cuda_touch: what really creates a context ------------------------------------------------

def test_empty_cache_and_event_create_no_context_synchronize_does():
    facts = facts_of("""
        import torch
        torch.cuda.empty_cache()
        torch.cuda.Event()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    """)
    touched = [s.qualname for s in facts.calls if cuda_touch(s, facts)]
    assert touched == ["torch.cuda.synchronize", "torch.cuda.reset_peak_memory_stats"]


def test_dsl105_not_in_a_one_gpu_ray_actor_but_elsewhere(project):
    text = """
        import ray
        import torch
        import torch.distributed as dist

        {decorator}
        class Worker:
            def __init__(self, rank, world):
                dist.init_process_group("nccl", rank=rank, world_size=world)

            def step(self, local_rank):
                torch.cuda.synchronize()
                torch.cuda.set_device(local_rank)
    """
    assert codes(project, {"w.py": text.format(decorator="@ray.remote(num_gpus=1)")}, ["DSL105"]) == []
    assert codes(project, {"w.py": text.format(decorator="@ray.remote")}, ["DSL105"]) == ["DSL105"]


# -- device_id of FSDP and init_process_group --------------------------------------------------

FSDP_JOB = src("""
    import os
    import torch
    import torch.distributed as dist
    from torch.distributed.fsdp import FullyShardedDataParallel

    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    {line}
    net = FullyShardedDataParallel(torch.nn.Linear(4, 4), device_id={device_id})
""")


def test_fsdp_fixed_device_id_is_dsl101(project):
    found = codes(project, {"t.py": FSDP_JOB.format(line='dist.init_process_group("nccl")', device_id="gpu"
                                                    ).replace("torch.cuda.set_device", "gpu = 1\ntorch.cuda.set_device")},
                  ["DSL101"])
    assert found == ["DSL101"]


def test_fsdp_device_id_of_the_global_rank_is_dsl103(project):
    found = codes(project, {"t.py": FSDP_JOB.format(line='dist.init_process_group("nccl")\nwho = dist.get_rank()',
                                                    device_id="who"), "go.sh": "torchrun --nnodes 2 --nproc_per_node 4 t.py\n"},
                  ["DSL101", "DSL103"])
    assert found == ["DSL103"]


def test_fsdp_device_id_of_the_local_rank_and_current_device_are_fine(project):
    for device_id in ('int(os.environ["LOCAL_RANK"])', "torch.cuda.current_device()"):
        found = codes(project, {"t.py": FSDP_JOB.format(line='dist.init_process_group("nccl")', device_id=device_id)},
                      ["DSL101", "DSL103"])
        assert found == [], device_id


def test_init_process_group_fixed_device_id(project):
    found = codes(project, {"t.py": """
        import os
        import torch
        import torch.distributed as dist
        dev = 3
        dist.init_process_group("nccl", device_id=dev)
    """}, ["DSL101"])
    assert found == ["DSL101"]


def test_fsdp_fixed_device_id_in_a_one_process_launch_is_fine(project):
    found = codes(project, {"t.py": FSDP_JOB.format(line='dist.init_process_group("nccl")', device_id="0"),
                            "go.sh": "torchrun --standalone --nproc_per_node 1 t.py\n"}, ["DSL101"])
    assert found == []


# -- torch.device(cfg.x) of a YAML config ----------------------------------------------------

LOADED = """
    import torch
    import torch.distributed as dist
    from omegaconf import OmegaConf

    def main():
        opts = OmegaConf.load("cfg/run.yaml")
        dist.init_process_group("nccl")
        {body}

    if __name__ == "__main__":
        main()
"""


def _loaded(project, body: str, leaf: str):
    return codes(project, {"job/main.py": LOADED.format(body=body), "job/cfg/run.yaml": f"hw:\n  gpu: {leaf}\n",
                           "go.sh": "torchrun --nproc_per_node 2 job/main.py\n"}, ["DSL101"])


def test_torch_device_of_a_config_leaf_through_a_binding(project):
    body = "where = torch.device(opts.hw.gpu)\n        net = torch.nn.Linear(4, 4).to(where)"
    assert _loaded(project, body, "cuda:1") == ["DSL101"]
    assert _loaded(project, body, "cuda") == []


def test_torch_device_of_a_config_leaf_directly(project):
    assert _loaded(project, "net = torch.nn.Linear(4, 4).to(torch.device(opts.hw.gpu))", "cuda:0") == ["DSL101"]
