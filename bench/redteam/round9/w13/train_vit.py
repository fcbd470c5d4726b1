import argparse

import deepspeed
import timm
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms

from ds_presets import PRESETS


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", choices=sorted(PRESETS), default="zero1")
    p.add_argument("--data", default="/datasets/imagenet21k/train")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--local_rank", type=int, default=-1)
    return p.parse_args()


def main():
    args = parse()
    deepspeed.init_distributed()
    model = timm.create_model("vit_large_patch16_224", num_classes=10450)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                           config=PRESETS[args.preset])
    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
    dataset = datasets.ImageFolder(args.data, tf)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=engine.train_micro_batch_size_per_gpu(), sampler=sampler,
                        num_workers=8, pin_memory=True, drop_last=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            images = images.to(engine.device, dtype=torch.bfloat16)
            loss = F.cross_entropy(engine(images), labels.to(engine.device))
            engine.backward(loss)
            engine.step()
    engine.save_checkpoint("ckpt", tag=f"epoch{args.epochs}")


if __name__ == "__main__":
    main()
