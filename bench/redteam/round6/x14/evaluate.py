import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


@torch.inference_mode()
def run_eval(model, loader):
    correct = torch.zeros((), device="cuda")
    for x, y in loader:
        correct += (model(x.cuda()).argmax(-1) == y.cuda()).sum()
    dist.all_reduce(correct)
    return correct.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", required=True)
    args = parser.parse_args()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Linear(256, 100)
    net.load_state_dict(torch.load(args.ckpt, map_location="cpu"))
    model = DDP(net.cuda().eval(), device_ids=[local_rank])
    ds = TensorDataset(torch.randn(50000, 256), torch.randint(0, 100, (50000,)))
    loader = DataLoader(ds, batch_size=256, sampler=DistributedSampler(ds, shuffle=False))
    print(run_eval(model, loader))


if __name__ == "__main__":
    main()
