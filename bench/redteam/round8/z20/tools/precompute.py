"""Embeds the corpus once with the frozen encoder (one GPU) and stores the features on the host."""
from pathlib import Path

import torch

OUT = Path("cache")


@torch.inference_mode()
def main():
    encoder = torch.nn.Linear(768, 256).cuda().eval()
    chunks = []
    for _ in range(100):
        chunks.append(encoder(torch.randn(512, 768, device="cuda")))
    OUT.mkdir(exist_ok=True)
    torch.save(torch.cat(chunks).cpu(), OUT / "features.pt")


if __name__ == "__main__":
    main()
