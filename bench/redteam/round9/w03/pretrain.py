import torch
import torch.nn.functional as F
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from lm.model import TinyLM
from lm.runtime import distributed


def main():
    with distributed() as (rank, world_size):
        model = TinyLM().cuda()
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for block in model.blocks:
            fully_shard(block, mp_policy=mp)
        fully_shard(model, mp_policy=mp)
        optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95))

        tokens = torch.randint(0, 32000, (20000, 513))
        data = TensorDataset(tokens)
        sampler = DistributedSampler(data, num_replicas=world_size, rank=rank)
        loader = DataLoader(data, batch_size=8, sampler=sampler, drop_last=True)
        for epoch in range(2):
            sampler.set_epoch(epoch)
            for (batch,) in loader:
                batch = batch.cuda()
                logits = model(batch[:, :-1])
                loss = F.cross_entropy(logits.flatten(0, 1).float(), batch[:, 1:].flatten())
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            if rank == 0:
                print(f"epoch {epoch}: {loss.item():.3f}")


if __name__ == "__main__":
    main()
