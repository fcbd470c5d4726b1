from datasets import load_dataset
from datasets.distributed import split_dataset_by_node
from torch.utils.data import DataLoader


def build_loader(rank, world_size, batch_size=16):
    ds = load_dataset("json", data_files="corpus/*.jsonl", split="train")
    ds = split_dataset_by_node(ds, rank=rank, world_size=world_size)
    ds = ds.shuffle(seed=0).with_format("torch")
    return DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=True)
