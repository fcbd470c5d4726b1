"""A ZeRO-3 fine-tuning loop whose evaluation and checkpointing run on rank 0 only: it hangs."""
import deepspeed
import torch
import torch.distributed as dist


def evaluate(engine, batches):
    total = torch.zeros(1, device=engine.device)
    with torch.no_grad():
        for x in batches:
            total += engine(x).float().pow(2).mean()
    dist.all_reduce(total)  # every rank must get here
    return total.item() / len(batches)


def main():
    deepspeed.init_distributed()
    model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(8)])
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds_config.json")
    val = [torch.randn(4, 1024, device=engine.device) for _ in range(8)]
    for step in range(1, 1001):
        x = torch.randn(4, 1024, device=engine.device)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()
        if step % 100 == 0 and dist.get_rank() == 0:
            print(f"step {step} val {evaluate(engine, val):.4f}")
    if dist.get_rank() == 0:
        engine.save_checkpoint("checkpoints")
        dist.barrier()


if __name__ == "__main__":
    main()
