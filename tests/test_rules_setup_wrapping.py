"""DSL303–DSL309: the DDP-equivalent wrapper — missing, bypassed, doubled or useless."""
from __future__ import annotations

import textwrap


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def codes(project, text, select):
    return project.write({"train.py": src(text)}).codes(select=select)


def fixed(project, text, select):
    project.write({"train.py": src(text)})
    project.fix(select=select)
    first = project.read("train.py")
    project.fix(select=select)
    assert project.read("train.py") == first, "a second fix changed the file"
    return first


# -- DSL303 unsynchronised-model -----------------------------------------------------------

def test_meta_learning_with_a_distributed_optimizer_is_quiet(project):
    # shape of Lightning's examples/fabric/meta_learning/train_torch.py: a third-party optimizer syncs
    assert codes(project, """
        import os
        import cherry
        import torch
        import torch.distributed as dist
        def main():
            dist.init_process_group("gloo", rank=int(os.environ["LOCAL_RANK"]), world_size=2)
            model = torch.nn.Linear(2, 2)
            optimizer = torch.optim.Adam(model.parameters())
            optimizer = cherry.optim.Distributed(model.parameters(), opt=optimizer, sync=1)
            for _ in range(10):
                model(torch.randn(2, 2)).sum().backward()
                optimizer.step()
    """, ["DSL303"]) == []


def test_manual_gradient_all_reduce_is_quiet(project):
    assert codes(project, """
        import torch
        import torch.distributed as dist
        dist.init_process_group("nccl")
        model = torch.nn.Linear(2, 2).cuda()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model(torch.randn(2, 2)).sum().backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        opt.step()
    """, ["DSL303"]) == []


# -- DSL304 ddp-module-bypass --------------------------------------------------------------

BYPASS = """
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    class Runner:
        def __init__(self, net, local_rank):
            self.model = DDP(net, device_ids=[local_rank])

        def train_step(self, x):
            loss = self.model.module.forward(x).sum()
            loss.backward()

        @torch.no_grad()
        def evaluate(self, x):
            return self.model.module(x)
"""


def test_module_forward_in_training_is_fixed_to_the_wrapper_call(project):
    assert codes(project, BYPASS, ["DSL304"]) == ["DSL304"]
    out = fixed(project, BYPASS, ["DSL304"])
    assert out == src(BYPASS).replace("self.model.module.forward(x).sum()", "self.model(x).sum()")


# -- DSL305 ddp-for-inference --------------------------------------------------------------

INFERENCE = """
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    def generate(model, ids, local_rank):
        dist.init_process_group("nccl")
        llm = DDP(model.cuda(), device_ids=[local_rank])
        llm.eval()
        with torch.no_grad():
            first = llm(ids)
        return llm.module.generate(ids), first

    def other(ddp_thing):
        return ddp_thing.module.config
"""


def test_inference_only_ddp_is_removed_with_its_module_hops_in_that_function_only(project):
    assert codes(project, INFERENCE, ["DSL305"]) == ["DSL305"]
    out = fixed(project, INFERENCE, ["DSL305"])
    assert out == src(INFERENCE).replace("DDP(model.cuda(), device_ids=[local_rank])", "model.cuda()") \
        .replace("llm.module.generate", "llm.generate") \
        .replace("from torch.nn.parallel import DistributedDataParallel as DDP\n", "")  # the import it left unused


def test_ddp_given_to_a_helper_or_trained_is_quiet(project):
    assert codes(project, """
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        from engine import train_one_epoch
        def main(model, loader, local_rank):
            model = DDP(model, device_ids=[local_rank])
            train_one_epoch(model, loader)
    """, ["DSL305"]) == []
    assert codes(project, """
        from torch.nn.parallel import DistributedDataParallel as DDP
        def main(model, x, opt, local_rank):
            ddp = DDP(model, device_ids=[local_rank])
            ddp(x).sum().backward()
            opt.step()
    """, ["DSL305"]) == []


# -- DSL306 ddp-inside-deepspeed -----------------------------------------------------------

def test_ddp_then_accelerate_prepare(project):
    assert codes(project, """
        from accelerate import Accelerator
        from torch.nn.parallel import DistributedDataParallel
        accelerator = Accelerator()
        def main(net, local_rank):
            model = net.to(local_rank)
            model = DistributedDataParallel(model, device_ids=[local_rank])
            model = accelerator.prepare(model)
    """, ["DSL306"]) == ["DSL306"]


def test_deepspeed_with_the_plain_model_is_quiet(project):
    assert codes(project, """
        import deepspeed
        from torch.nn.parallel import DistributedDataParallel as DDP
        def main(net, args):
            engine, *_ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())
            other = DDP(net)
    """, ["DSL306"]) == []


# -- DSL307 lightning-module-wraps-ddp -----------------------------------------------------

def test_pytorch_lightning_alias_and_plain_modules(project):
    assert codes(project, """
        import pytorch_lightning as pl
        import torch.nn as nn
        from torch.nn.parallel import DistributedDataParallel as DDP
        class Lit(pl.LightningModule):
            def configure_model(self):
                self.net = DDP(nn.Linear(2, 2))
        class Plain(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = DDP(nn.Linear(2, 2))
    """, ["DSL307"]) == ["DSL307"]


# -- DSL308 deepspeed-engine-bypass --------------------------------------------------------

def test_dpo_with_a_frozen_reference_engine_is_quiet(project):
    # shape of DeepSpeed-Chat's step2_dpo_finetuning: the reference engine only runs forward
    assert codes(project, """
        import deepspeed
        def main(args, model, ref_model, loader):
            model, optimizer, _, lr_scheduler = deepspeed.initialize(model=model, args=args)
            ref_model, *_ = deepspeed.initialize(model=ref_model, config=args.ref_config)
            ref_model.eval()
            for batch in loader:
                ref = ref_model(**batch)
                loss = model(**batch).loss - ref.loss
                model.backward(loss)
                model.step()
    """, ["DSL308"]) == []


def test_legacy_optimizer_backward_and_rebound_optimizer_are_quiet(project):
    # shapes of DeepSpeedExamples' bing_bert (FP16_Optimizer API) and compression/bert LKD
    assert codes(project, """
        import deepspeed
        from torch.optim import AdamW
        def main(args, model, layer, loader):
            model, optimizer, _, _ = deepspeed.initialize(args=args, model=model)
            for batch in loader:
                loss = model(batch)
                if args.fp16:
                    optimizer.backward(loss)
                else:
                    loss.backward()
                optimizer.step()
        def lkd(args, model, layer, loader):
            model, optimizer, _, _ = deepspeed.initialize(args=args, model=model)
            for l in range(3):
                optimizer = AdamW(layer.parameters())
                for batch in loader:
                    loss = layer(batch)
                    loss.backward()
                    optimizer.step()
    """, ["DSL308"]) == []


ENGINE_LOOP = """
    import deepspeed

    def train(args, net, loader):
        engine, optimizer, _, _ = deepspeed.initialize(args=args, model=net, model_parameters=net.parameters())
        for batch in loader:
            loss = engine(batch)
            loss.backward()  # grads
            optimizer.step()
            optimizer.zero_grad()
"""


def test_engine_bypass_fix_uses_engine_backward_and_step(project):
    assert codes(project, ENGINE_LOOP, ["DSL308"]) == ["DSL308", "DSL308"]
    out = fixed(project, ENGINE_LOOP, ["DSL308"])
    assert out == src(ENGINE_LOOP).replace("loss.backward()  # grads", "engine.backward(loss)  # grads") \
        .replace("optimizer.step()", "engine.step()")


# -- DSL309 distributed-sampler-with-accelerate --------------------------------------------

def test_sampler_name_flows_into_prepare(project):
    assert codes(project, """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader
        from torch.utils.data.distributed import DistributedSampler
        accelerator = Accelerator()
        def main(ds):
            sampler = DistributedSampler(ds)
            loader = DataLoader(ds, batch_size=8, sampler=sampler)
            model, loader = accelerator.prepare(object(), loader)
    """, ["DSL309"]) == ["DSL309"]


def test_plain_loader_or_unprepared_sampler_is_quiet(project):
    assert codes(project, """
        from accelerate import Accelerator
        from torch.utils.data import DataLoader, DistributedSampler
        accelerator = Accelerator()
        def main(ds):
            loader = accelerator.prepare(DataLoader(ds, batch_size=8, shuffle=True))
            other = DataLoader(ds, sampler=DistributedSampler(ds))
            return loader, other
    """, ["DSL309"]) == []


# -- a whole script in a realistic shape ---------------------------------------------------

WHOLE = """
    import argparse
    import os

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler


    def get_args():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=3)
        return parser.parse_args()


    def build_loader(dataset):
        return DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))


    def main():
        args = get_args()
        rank = dist.get_rank() if dist.is_initialized() else int(os.environ["RANK"])
        dist.init_process_group("nccl")
        torch.cuda.synchronize()
        torch.cuda.set_device(rank)
        model = DDP(torch.nn.Linear(8, 1).cuda(), device_ids=[rank])
        opt = torch.optim.AdamW(model.parameters())
        loader = build_loader(torch.utils.data.TensorDataset(torch.randn(256, 8)))
        for epoch in range(args.epochs):
            loader.sampler.set_epoch(epoch)
            for (x,) in loader:
                loss = model.module(x.cuda()).pow(2).mean()
                loss.backward()
                opt.step()
                opt.zero_grad()
        if rank == 0:
            torch.save(model.module.state_dict(), "model.pt")


    if __name__ == "__main__":
        main()
"""


def test_whole_script_findings(project):
    project.write({"train.py": src(WHOLE)})
    found = [(f.code, f.span.start.row) for f in project.check(select=["DSL1", "DSL3"]).findings]
    assert found == [("DSL105", 25), ("DSL103", 26), ("DSL103", 27), ("DSL304", 33)]
