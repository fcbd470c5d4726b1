"""facts/values.py: constants through bindings, the environment, argparse and dataclass defaults, ranks."""
import ast
import sys
import textwrap

from dslint.facts import script
from dslint.facts.bindings import semantic_model
from dslint.facts.script import build_script_facts
from dslint.facts.values import (UNKNOWN, EnvAccess, argparse_defaults, argparse_source, class_field_default, constant,
                                 env_accesses, env_reads, env_writes, is_rank_expression, literal)


def _model(source: str):
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    return semantic_model(build_script_facts("train.py", source, tree)), tree


def _arg(tree, func: str, position: int = 0) -> ast.expr:
    """Argument `position` of the one call whose callee is spelled `func`."""
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == func]
    return call.args[position]


# -- constants ----------------------------------------------------------------------------------
def test_literal_is_the_script_facts_literal():
    assert literal is script.literal
    assert literal(ast.parse("[0, 1]", mode="eval").body) == [0, 1]
    assert literal(ast.parse("f(x)", mode="eval").body) is None


def test_constant_through_bindings_and_conversions():
    model, tree = _model("""
        GPUS = 8
        port = int("29500")
        offset = -GPUS
        per_node = GPUS // 2
        device = "cuda:" + str(3)
        ids = (0, 1)
        name = "cuda:{}".format(ids[1])
        pct = "%d%%" % 90
        report(port, offset, per_node, device, name, pct, missing, print)
    """)
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "report"]
    assert [constant(model, a) for a in call.args] == [29500, -8, 4, "cuda:3", "cuda:1", "90%", UNKNOWN, UNKNOWN]


def test_fstring_with_known_parts_is_constant():
    model, tree = _model("""
        index = 0
        a = f"cuda:{0}"
        b = f"cuda:{index}"
        c = f"{index:02d}-{'x'!r}"
        use(a, b, c)
    """)
    assert [constant(model, a) for a in _call_args(tree, "use")] == ["cuda:0", "cuda:0", "00-'x'"]


def test_fstring_local_rank_device_is_not_constant():
    model, tree = _model("""
        import os
        import torch

        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        device = f"cuda:{local_rank}"
        strict = f"cuda:{os.environ['LOCAL_RANK']}"
        torch.cuda.set_device(device)
        use(strict)
    """)
    device = _arg(tree, "torch.cuda.set_device")
    assert constant(model, device) is UNKNOWN
    assert constant(model, device, assume_env_unset=True) == "cuda:0"
    assert constant(model, _arg(tree, "use"), assume_env_unset=True) is UNKNOWN  # a KeyError, not a default


def test_constant_of_a_rebound_name_is_unknown():
    model, tree = _model("""
        def main(args):
            device = "cuda"
            if args.cpu:
                device = "cpu"
            run(device)
    """)
    assert constant(model, _arg(tree, "run")) is UNKNOWN


def test_constant_deep_expression_no_recursion_error():
    source = "b = " + " + ".join(["1"] * 5000) + "\nprint(b)\n"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(30000)
    try:
        tree = ast.parse(source)
    finally:
        sys.setrecursionlimit(limit)
    model = semantic_model(build_script_facts("deep.py", source, tree))
    assert constant(model, _arg(tree, "print")) is UNKNOWN
    assert is_rank_expression(model, _arg(tree, "print")) is None


def _call_args(tree, func: str) -> list:
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == func]
    return call.args


# -- the environment ----------------------------------------------------------------------------
def test_env_assigned_is_not_read():
    model, tree = _model("""
        import os
        import subprocess

        os.environ["MASTER_ADDR"] = "localhost"
        os.environ["NCCL_DEBUG"] = os.environ.get("NCCL_DEBUG", "WARN")
        env = os.environ.copy()
        env["CUDA_VISIBLE_DEVICES"] = "0"
        subprocess.run(["python", "eval.py"], env=env)
    """)
    assert [a.kind for a in env_writes(model, "MASTER_ADDR")] == ["write"]
    assert env_reads(model, "MASTER_ADDR") == []
    assert [a.kind for a in env_accesses(model) if a.key == "NCCL_DEBUG"] == ["write", "read"]
    assert [a.key for a in env_accesses(model)] == ["MASTER_ADDR", "NCCL_DEBUG", "NCCL_DEBUG"]  # not the copy
    (write,) = env_writes(model, "MASTER_ADDR")
    assert isinstance(write, EnvAccess) and ast.unparse(write.value) == "'localhost'"


def test_env_access_kinds():
    model, tree = _model("""
        import os
        from os import environ, getenv

        PORT_VAR = "MASTER_PORT"
        os.environ[PORT_VAR] = "29500"
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.update({"NCCL_P2P_DISABLE": "1", **extra})
        os.environ.update(TOKENIZERS_PARALLELISM="false")
        del os.environ["CUDA_VISIBLE_DEVICES"]
        os.putenv("NCCL_IB_DISABLE", "1")
        world = environ["WORLD_SIZE"]
        rank = getenv("RANK", "0")
        old = os.environ.pop("SLURM_NTASKS", None)
        os.environ["PATH"] += ":/opt/bin"
        env = os.environ
        env["NCCL_ALGO"] = "Ring"
    """)
    assert [(a.key, a.kind) for a in env_accesses(model)] == [
        ("MASTER_PORT", "write"),
        ("OMP_NUM_THREADS", "setdefault"),
        ("NCCL_P2P_DISABLE", "write"), (None, "write"),
        ("TOKENIZERS_PARALLELISM", "write"),
        ("CUDA_VISIBLE_DEVICES", "delete"),
        ("NCCL_IB_DISABLE", "write"),
        ("WORLD_SIZE", "read"),
        ("RANK", "read"),
        ("SLURM_NTASKS", "read"), ("SLURM_NTASKS", "delete"),
        ("PATH", "read"), ("PATH", "write"),
        ("NCCL_ALGO", "write"),
    ]
    (rank,) = env_reads(model, "RANK")
    assert ast.unparse(rank.default) == "'0'"
    assert [a.kind for a in env_writes(model, "OMP_NUM_THREADS")] == ["setdefault"]


def test_environ_shadowed_by_a_local_is_not_the_environment():
    model, tree = _model("""
        import os

        def launch(environ):
            environ["RANK"] = "0"

        def child():
            os = FakeOS()
            os.environ["RANK"] = "1"
    """)
    assert env_accesses(model) == []


# -- argparse -----------------------------------------------------------------------------------
_ARGPARSE = """
    import argparse
    import os
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--local-rank", "--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", -1)))
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("-b", "--batch-size", type=int, default="32")
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--resume")
    parser.add_argument("--out", dest="output_dir", default="runs")
    parser.add_argument("-j", type=int, default=4)
    parser.add_argument("config")
    parser.add_argument("--seed", type=int, required=True)
    group = parser.add_argument_group("precision")
    group.add_argument("--dtype", default="bf16")
    parser.set_defaults(fp16=True)
"""


def test_argparse_dest_and_defaults():
    model, tree = _model(_ARGPARSE)
    defaults = argparse_defaults(model)
    assert sorted(defaults) == ["batch_size", "config", "device", "dtype", "fp16", "j", "local_rank", "output_dir",
                                "resume", "seed"]
    assert ast.unparse(defaults["device"]) == "'cuda:0'"
    assert ast.unparse(defaults["fp16"]) == "True"  # set_defaults wins
    assert defaults["resume"] is None


def test_argparse_default_feeds_device():
    model, tree = _model(_ARGPARSE + """
    args = parser.parse_args()
    device = torch.device(args.device)
    report(args.batch_size, args.fp16, args.resume, args.output_dir, args.j, args.config, args.seed, args.dtype,
           args.local_rank, args.unknown)
    """)
    device = _arg(tree, "torch.device")
    assert constant(model, device) == "cuda:0"
    dest, default = argparse_source(model, device)
    assert dest == "device" and ast.unparse(default) == "'cuda:0'"
    assert [constant(model, a) for a in _call_args(tree, "report")] == [
        32, True, None, "runs", 4, UNKNOWN, UNKNOWN, "bf16", UNKNOWN, UNKNOWN]
    local_rank = _call_args(tree, "report")[8]
    assert constant(model, local_rank, assume_env_unset=True) == -1


def test_argparse_namespace_forms():
    model, tree = _model("""
        import argparse

        def get_args():
            parser = argparse.ArgumentParser()
            add_model_args(parser)
            return parser.parse_args()

        def add_model_args(p):
            p.add_argument("--device", default="cuda")

        def main():
            args = get_args()
            known, _ = argparse.ArgumentParser().parse_known_args()
            first(args.device)

        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cpu")
        opts, rest = parser.parse_known_args()
        second(opts.device, parser.parse_known_args()[0].device)
    """)
    assert constant(model, _arg(tree, "first")) == "cuda"
    assert [constant(model, a) for a in _call_args(tree, "second")] == ["cuda", "cuda"]  # first add_argument wins


def test_parser_returned_by_a_helper_is_still_the_parser():
    model, tree = _model("""
        import argparse
        import deepspeed

        def add_train_args(parser):
            parser.add_argument("--epochs", type=int, default=3)
            return parser

        parser = argparse.ArgumentParser()
        parser = add_train_args(parser)
        parser = deepspeed.add_config_arguments(parser)
        parser.add_argument("--device", default="cuda")
        args = parser.parse_args()
        run(args.epochs, args.device)
    """)
    assert [constant(model, a) for a in _call_args(tree, "run")] == [3, "cuda"]


def test_argparse_default_overridden_in_the_script_is_not_the_default():
    model, tree = _model("""
        import argparse
        import os

        parser = argparse.ArgumentParser()
        parser.add_argument("--device", default="cuda:0")
        parser.add_argument("--local_rank", type=int, default=0)
        args = parser.parse_args()
        args.device = f"cuda:{args.local_rank}"
        run(args.device)
    """)
    device = _arg(tree, "run")
    assert argparse_source(model, device) is None
    assert constant(model, device) is UNKNOWN


# -- classes ------------------------------------------------------------------------------------
_CONFIG = """
    import dataclasses
    from dataclasses import dataclass, field
    from pydantic import BaseModel, Field

    @dataclass
    class TrainConfig:
        device: str = "cuda"
        lr: float = field(default=3e-4)
        betas: tuple = dataclasses.field(default=(0.9, 0.95))
        tags: list = field(default_factory=list)
        epochs: int

    @dataclass
    class FinetuneConfig(TrainConfig):
        lr: float = 1e-5

    class Defaults:
        device = "cuda:1"

    class ServeConfig(BaseModel):
        device: str = Field("cpu", description="where")
        port: int = Field(default=8000)
        model: str = Field(...)
"""


def test_class_field_default():
    model, tree = _model(_CONFIG)
    unparse = lambda e: None if e is None else ast.unparse(e)
    fields = ("device", "lr", "betas", "tags", "epochs")
    assert [unparse(class_field_default(model, "TrainConfig", f)) for f in fields] == [
        "'cuda'", "0.0003", "(0.9, 0.95)", None, None]
    assert unparse(class_field_default(model, "FinetuneConfig", "lr")) == "1e-05"
    assert unparse(class_field_default(model, "FinetuneConfig", "device")) == "'cuda'"
    assert unparse(class_field_default(model, "Defaults", "device")) == "'cuda:1'"
    assert [unparse(class_field_default(model, "ServeConfig", f)) for f in ("device", "port", "model")] == [
        "'cpu'", "8000", None]
    assert class_field_default(model, "Missing", "device") is None


def test_dataclass_default_feeds_device():
    model, tree = _model(_CONFIG + """
    import torch

    def main(overrides, device_arg):
        cfg = TrainConfig()
        torch.device(cfg.device)
        fine = FinetuneConfig(device="cuda:2")
        given = TrainConfig(device=device_arg)
        splat = TrainConfig(**overrides)
        positional = TrainConfig("cuda:3")
        serve = ServeConfig()
        report(fine.device, fine.lr, given.device, splat.device, positional.device, serve.device, Defaults().device)
    """)
    assert constant(model, _arg(tree, "torch.device")) == "cuda"
    assert [constant(model, a) for a in _call_args(tree, "report")] == [
        "cuda:2", 1e-5, UNKNOWN, UNKNOWN, "cuda:3", "cpu", "cuda:1"]


def test_instance_field_assigned_later_is_unknown():
    model, tree = _model(_CONFIG + """
    cfg = TrainConfig()
    cfg.device = "cpu"
    run(cfg.device)
    """)
    assert constant(model, _arg(tree, "run")) is UNKNOWN


def test_self_attribute_constant():
    model, tree = _model("""
        class Runner:
            def __init__(self):
                self.world_size = 4
                self.port = str(29500 + self.world_size)

            def start(self):
                launch(self.port)
    """)
    assert constant(model, _arg(tree, "launch")) == "29504"


# -- ranks --------------------------------------------------------------------------------------
def test_rank_expressions():
    model, tree = _model("""
        import os
        import argparse
        import torch
        import torch.distributed as dist
        from accelerate import Accelerator

        parser = argparse.ArgumentParser()
        parser.add_argument("--local_rank", type=int, default=-1)
        args = parser.parse_args()
        accelerator = Accelerator()

        def main(local_rank, rank, group):
            env_local = int(os.environ["LOCAL_RANK"])
            env_global = int(os.environ.get("RANK", 0))
            slurm = int(os.environ["SLURM_LOCALID"])
            global_rank = dist.get_rank()
            node_local = global_rank % torch.cuda.device_count()
            fallback = dist.get_rank() if dist.is_initialized() else 0
            mixed = env_local if args.local_rank < 0 else env_global
            report(env_local, env_global, slurm, global_rank, node_local, args.local_rank, local_rank, rank,
                   dist.get_rank(group), dist.get_node_local_rank(), accelerator.local_process_index,
                   accelerator.process_index, fallback, mixed, torch.cuda.current_device())
    """)
    assert [is_rank_expression(model, a) for a in _call_args(tree, "report")] == [
        "local", "global", "local", "global", "local", "local", "local", None,
        None, "local", "local", "global", "global", None, None]


def test_spawn_index_parameter():
    model, tree = _model("""
        import functools
        import torch
        import torch.multiprocessing as mp

        def worker(gpu, ngpus, args):
            torch.cuda.set_device(gpu)

        def other(rank, world_size):
            torch.cuda.set_device(rank)

        def bound(cfg, rank):
            place(rank)

        if __name__ == "__main__":
            mp.spawn(worker, nprocs=4, args=(4, None))
            mp.spawn(functools.partial(bound, {}), nprocs=4)
    """)
    calls = [n for n in ast.walk(tree)
             if isinstance(n, ast.Call) and ast.unparse(n.func) in ("torch.cuda.set_device", "place")]
    assert [is_rank_expression(model, c.args[0]) for c in calls] == ["spawn-index", None, "spawn-index"]


def test_lightning_ranks():
    model, tree = _model("""
        import lightning as L

        class Model(L.LightningModule):
            def training_step(self, batch, idx):
                report(self.global_rank, self.local_rank, self.trainer.global_rank)

        class Plain:
            def step(self):
                other(self.global_rank)

        trainer = L.Trainer(devices=2)
        final(trainer.local_rank)
    """)
    assert [is_rank_expression(model, a) for a in _call_args(tree, "report")] == ["global", "local", "global"]
    assert is_rank_expression(model, _arg(tree, "other")) is None
    assert is_rank_expression(model, _arg(tree, "final")) == "local"


def test_cli_local_rank_overridden_by_env_stays_local():
    model, tree = _model("""
        import argparse, os

        parser = argparse.ArgumentParser()
        parser.add_argument("--local-rank", type=int, default=0)
        args = parser.parse_args()
        if "LOCAL_RANK" in os.environ:
            args.local_rank = int(os.environ["LOCAL_RANK"])
        place(args.local_rank)
    """)
    assert is_rank_expression(model, _arg(tree, "place")) == "local"
