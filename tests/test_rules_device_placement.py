"""DSL103–DSL108: rank/device placement and in-script spawners (flag, no-flag, fix, summary)."""
from __future__ import annotations

import textwrap

from dslint.facts.script import build_script_facts
from dslint.facts.summary import summarize

import ast


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def codes(project, text, select):
    return project.write({"train.py": src(text)}).codes(select=select)


# -- DSL103 global-rank-as-device -----------------------------------------------------------

def test_global_rank_from_get_rank_used_for_set_device_and_device_ids(project):
    found = codes(project, """
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        dist.init_process_group("nccl")
        rank = dist.get_rank()
        torch.cuda.set_device(rank)
        model = DDP(torch.nn.Linear(2, 2).to(rank), device_ids=[rank])
    """, ["DSL103"])
    assert found == ["DSL103", "DSL103", "DSL103"]


def test_rank_env_through_int_is_a_global_rank(project):
    assert codes(project, """
        import os
        import torch
        import torch.distributed as dist
        dist.init_process_group("nccl")
        device = torch.device("cuda", int(os.environ["RANK"]))
    """, ["DSL103"]) == ["DSL103"]


def test_spawn_index_and_modulo_are_local_ranks(project):
    assert codes(project, """
        import torch
        import torch.distributed as dist
        import torch.multiprocessing as mp
        def worker(rank, world_size):
            dist.init_process_group("nccl", rank=rank, world_size=world_size)
            torch.cuda.set_device(rank)
            local = dist.get_rank() % torch.cuda.device_count()
            torch.cuda.set_device(local)
        if __name__ == "__main__":
            mp.spawn(worker, args=(2,), nprocs=2)
    """, ["DSL103"]) == []


# -- DSL104 process-group-without-device ----------------------------------------------------

PG_NO_DEVICE = """
    import os
    import torch
    import torch.distributed as dist

    def main():
        local_rank = int(os.environ["LOCAL_RANK"])
        dist.init_process_group(backend="nccl")  # start
        model = torch.nn.Linear(8, 8).cuda()

    main()
"""


def test_nccl_group_without_device_binding_is_fixed_with_set_device(project):
    project.write({"train.py": src(PG_NO_DEVICE)})
    assert project.codes(select=["DSL104"]) == ["DSL104"]
    project.fix(select=["DSL104"])
    expected = src(PG_NO_DEVICE).replace(
        "    dist.init_process_group", "    torch.cuda.set_device(local_rank)\n    dist.init_process_group")
    assert "    torch.cuda.set_device(local_rank)\n    dist.init_process_group(backend=\"nccl\")  # start\n" in expected
    assert project.read("train.py") == expected
    project.fix(select=["DSL104"])
    assert project.read("train.py") == expected
    assert project.codes(select=["DSL104"]) == []


def test_no_fix_without_a_local_rank_in_scope(project):
    project.write({"train.py": src("""
        import torch
        import torch.distributed as dist
        dist.init_process_group("nccl")
        x = torch.zeros(2, device="cuda")
    """)})
    (finding,) = project.check(select=["DSL104"]).findings
    assert finding.fix is None


def test_indexed_placement_gloo_world_size_one_and_deepspeed_are_quiet(project):
    assert codes(project, """
        import os
        import torch
        import torch.distributed as dist
        lr = int(os.environ["LOCAL_RANK"])
        dist.init_process_group("nccl")
        model = torch.nn.Linear(8, 8).to(lr)
    """, ["DSL104"]) == []
    assert codes(project, """
        import torch
        import torch.distributed as dist
        dist.init_process_group("gloo")
        x = torch.zeros(2).cuda()
        dist.barrier()
    """, ["DSL104"]) == []
    # a single-process test harness (torchtitan's shape)
    assert codes(project, """
        import torch
        import torch.distributed as dist
        class T:
            def setUp(self):
                dist.init_process_group(backend="nccl", init_method="tcp://localhost:1", world_size=1, rank=0)
            def test(self):
                x = torch.randint(0, 5, (3,), device="cuda")
    """, ["DSL104"]) == []


# -- DSL105 cuda-before-set-device ----------------------------------------------------------

def test_cuda_before_set_device_in_function_module_level_and_helper(project):
    found = project.write({"train.py": src("""
        import os
        import torch
        import torch.distributed as dist

        STREAM = torch.cuda.Stream()

        def build():
            return torch.nn.Linear(2, 2).cuda()

        def main():
            model = build()
            torch.cuda.synchronize()
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
            dist.init_process_group("nccl")
            later = torch.zeros(2).cuda()

        if __name__ == "__main__":
            main()
    """)}).check(select=["DSL105"]).findings
    assert sorted(f.span.start.row for f in found) == [5, 11, 12]


def test_other_branch_and_main_guard_and_explicit_index_are_quiet(project):
    assert codes(project, """
        import os
        import torch
        import torch.distributed as dist

        def main(args):
            local_rank = int(os.environ.get("LOCAL_RANK", 0))
            if args.distributed:
                torch.cuda.set_device(local_rank)
                dist.init_process_group("nccl")
            else:
                model = torch.nn.Linear(2, 2).cuda()
            x = torch.zeros(2).cuda(local_rank)
            ok = torch.cuda.is_available() and torch.cuda.device_count() > 1

        if __name__ == "__main__":
            main(None)
    """, ["DSL105"]) == []


# -- DSL106 cuda-visible-devices-in-script --------------------------------------------------

def test_cvd_after_is_available_at_import_time(project):
    assert codes(project, """
        import os
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        def main(gpus):
            os.environ["CUDA_VISIBLE_DEVICES"] = gpus
    """, ["DSL106"]) == ["DSL106"]


def test_cvd_pinned_to_one_gpu_in_a_launched_script(project):
    assert codes(project, """
        import os
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        import torch
        local_rank = int(os.environ["LOCAL_RANK"])
    """, ["DSL106"]) == ["DSL106"]


def test_cvd_before_cuda_per_rank_or_conditional_is_quiet(project):
    assert codes(project, """
        import os
        import torch
        local_rank = int(os.environ["LOCAL_RANK"])
        os.environ["CUDA_VISIBLE_DEVICES"] = str(local_rank)
        if not os.environ.get("CUDA_VISIBLE_DEVICES"):
            os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        n = torch.cuda.device_count()
    """, ["DSL106"]) == []


# -- DSL107 fork-after-cuda -----------------------------------------------------------------

def test_fork_strategy_after_cuda_in_pytorch_lightning_namespace(project):
    assert codes(project, """
        import pytorch_lightning as pl
        def main(model):
            model.cuda()
            trainer = pl.Trainer(devices=2, strategy="ddp_fork")
            trainer.fit(model)
    """, ["DSL107"]) == ["DSL107"]


def test_spawn_strategy_or_cuda_after_fit_is_quiet(project):
    assert codes(project, """
        from lightning.pytorch import Trainer
        def main(model):
            model.cuda()
            Trainer(devices=2, strategy="ddp_spawn").fit(model)
        def other(model):
            trainer = Trainer(devices=2, strategy="ddp_notebook")
            trainer.fit(model)
            model.cuda()
    """, ["DSL107"]) == []


# -- DSL108 and the spawner summary ---------------------------------------------------------

def test_spawn_guarded_by_launcher_check_is_quiet(project):
    assert codes(project, """
        import os
        import torch.multiprocessing as mp
        def worker(i):
            local_rank = int(os.environ["LOCAL_RANK"])
        if __name__ == "__main__":
            if "LOCAL_RANK" in os.environ:
                worker(int(os.environ["LOCAL_RANK"]))
            else:
                mp.spawn(worker, nprocs=2)
    """, ["DSL108"]) == []


def test_init_process_group_in_the_spawning_process(project):
    assert codes(project, """
        import torch.distributed as dist
        import torch.multiprocessing as mp
        def worker(i):
            pass
        def main():
            dist.init_process_group("nccl")
            mp.spawn(worker, nprocs=4)
        if __name__ == "__main__":
            main()
    """, ["DSL108"]) == ["DSL108"]


def _summary(text: str):
    text = src(text)
    return summarize(build_script_facts("train.py", text, ast.parse(text)))


def test_spawner_summary_records_kind_nprocs_and_lightning_join_behaviour():
    summary = _summary("""
        import lightning as L
        import torch.multiprocessing as mp
        from lightning.fabric import Fabric
        def worker(i):
            pass
        trainer = L.Trainer(accelerator="gpu", devices=2, strategy="deepspeed_stage_2_offload")
        spawning = L.Trainer(devices=4, strategy="ddp_spawn")
        fabric = Fabric(devices="auto")
        if __name__ == "__main__":
            mp.spawn(worker, nprocs=2)
    """)
    records = {(r["kind"], r["row"]): r for r in summary.extra["spawners"]}
    trainer = records[("lightning.pytorch.Trainer", 6)]
    assert (trainer["devices"], trainer["strategy"], trainer["joins_launcher"], trainer["multiprocess"]) == \
        (2, "deepspeed_stage_2_offload", True, True)
    spawning = records[("lightning.pytorch.Trainer", 7)]
    assert (spawning["start_method"], spawning["joins_launcher"]) == ("spawn", False)
    assert records[("lightning.fabric.Fabric", 8)]["joins_launcher"] is True
    spawn = records[("torch.multiprocessing.spawn", 10)]
    assert (spawn["nprocs"], spawn["joins_launcher"], spawn["conditional"]) == (2, False, False)


def test_a_checkpoint_loaded_onto_a_fixed_gpu_in_every_rank(project):
    text = """
        import os
        import torch
        import torch.distributed as dist
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        state = torch.load("ckpt.pt", map_location="cuda:0")
        fine = torch.load("ckpt.pt", map_location="cpu")
        own = torch.load("ckpt.pt", map_location=f"cuda:{os.environ['LOCAL_RANK']}")
    """
    findings = project.write({"train.py": src(text)}).check(select=["DSL101"]).findings
    assert [(f.span.start.row, f.message.split(" loads")[0]) for f in findings] == [(6, "map_location='cuda:0'")]
