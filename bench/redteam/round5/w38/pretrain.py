import os
import torch
import torch.distributed as dist
from datasets import load_dataset
from datasets.distributed import split_dataset_by_node
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    stream = load_dataset("allenai/c4", "en", split="train", streaming=True).with_format("torch")
    stream = split_dataset_by_node(stream, rank=dist.get_rank(), world_size=dist.get_world_size())
    loader = DataLoader(stream, batch_size=16, num_workers=2)
    model = DDP(torch.nn.Embedding(32000, 256).cuda(), device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for step, batch in enumerate(loader):
        loss = model(batch["input_ids"].cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 10000:
            break


if __name__ == "__main__":
    main()
