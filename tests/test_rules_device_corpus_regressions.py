"""False positives found on real training code (DeepSpeedExamples, pytorch/examples, torchtitan,
Lightning's examples), rewritten fresh in the same shape so they stay fixed."""
from __future__ import annotations

import textwrap


def codes(project, text, select):
    return project.write({"train.py": textwrap.dedent(text).lstrip("\n")}).codes(select=select)


def test_unmapped_load_in_the_single_process_branch_is_quiet(project):
    # pytorch/examples imagenet: the per-GPU branch maps to cuda:{gpu}, the other one is DataParallel
    assert codes(project, """
        import torch
        import torch.distributed as dist
        def main_worker(gpu, args):
            dist.init_process_group("nccl", rank=args.rank, world_size=args.world_size)
            if args.resume:
                if gpu is None:
                    checkpoint = torch.load(args.resume)
                else:
                    checkpoint = torch.load(args.resume, map_location=f"cuda:{gpu}")
    """, ["DSL102"]) == []


def test_unmapped_load_without_a_mapped_alternative_is_still_flagged(project):
    assert codes(project, """
        import torch
        import deepspeed
        def main(args, net):
            if args.init_from:
                net.load_state_dict(torch.load(args.init_from))
            engine, *_ = deepspeed.initialize(model=net, args=args)
        if __name__ == "__main__":
            main(None, None)
    """, ["DSL102"]) == ["DSL102"]


def test_unmapped_load_in_a_function_nothing_calls_is_quiet(project):
    # DeepSpeedExamples HelloDeepSpeed: load_model_checkpoint() is dead code (resume uses engine.load_checkpoint)
    assert codes(project, """
        import torch
        import deepspeed
        def load_model_checkpoint(path, net):
            net.load_state_dict(torch.load(path))
        def main(args, net):
            engine, *_ = deepspeed.initialize(model=net, args=args)
        if __name__ == "__main__":
            main(None, None)
    """, ["DSL102"]) == []


def test_unmapped_load_of_a_file_the_script_saved_from_the_cpu_is_quiet(project):
    # dino eval_knn.py: features dumped as x.cpu() and loaded back by the same script
    assert codes(project, """
        import os
        import torch
        import torch.distributed as dist
        def main(args, feats):
            dist.init_process_group("nccl")
            if args.dump:
                torch.save(feats.cpu(), os.path.join(args.dump, "trainfeat.pth"))
            if args.load:
                feats = torch.load(os.path.join(args.load, "trainfeat.pth"))
        if __name__ == "__main__":
            main(None, None)
    """, ["DSL102"]) == []


def test_fake_backend_single_process_tracing_may_use_cuda_0(project):
    # torchtitan's precompile entry point: one process, fake process group of the training size
    assert codes(project, """
        import torch
        import torch.distributed as dist
        def precompile(world_size):
            dist.init_process_group("fake", rank=0, world_size=world_size)
            device = torch.device("cuda:0")
            torch.cuda.set_device(device)
    """, ["DSL1"]) == []


def test_synthetic_random_loader_in_a_deepspeed_benchmark_is_quiet(project):
    # DeepSpeedExamples' offload/ZenFlow benchmarks: random tensors, every rank makes its own
    assert codes(project, """
        import deepspeed
        import torch
        def make_random_data(n, dim):
            x = torch.randn(n, dim)
            y = torch.empty(n, dtype=torch.long).random_(dim)
            return torch.utils.data.TensorDataset(x, y)
        def loader_for(engine, n, dim):
            data = make_random_data(n, dim)
            return torch.utils.data.DataLoader(data, batch_size=engine.train_micro_batch_size_per_gpu())
        def run(model, cfg):
            engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
            for x, y in loader_for(engine, 64, 8):
                engine.backward(engine(x).sum())
                engine.step()
    """, ["DSL301"]) == []


def test_shuffled_real_dataset_under_deepspeed_is_still_flagged(project):
    assert codes(project, """
        import deepspeed
        import torch
        from torchvision import datasets
        def main(args, model):
            train_set = datasets.CIFAR10(args.data, train=True, download=True)
            loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True)
            engine, *_ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    """, ["DSL301"]) == ["DSL301"]


def test_torch_load_in_a_test_file_is_not_reported(project):
    """litgpt's tests/test_lora.py: one test builds Fabric(devices=2), another loads a checkpoint
    saved by Fabric(devices=1); the file as a whole is not one multi-process script."""
    body = ('import torch\nfrom lightning import Fabric\n\n\ndef test_filter(tmp_path):\n'
            '    fabric = Fabric(devices=1)\n    saved = torch.load(tmp_path / "model.pth")\n\n\n'
            'def test_fsdp():\n    fabric = Fabric(devices=2, strategy="fsdp")\n')
    script = body.replace("def test_", "def run_") + "\n\nrun_filter(None)\nrun_fsdp()\n"
    project.write({"tests/test_lora.py": body, "train.py": script})
    found = [(f.path, f.code) for f in project.check(select=["DSL102"]).findings]
    assert found == [("train.py", "DSL102")]
