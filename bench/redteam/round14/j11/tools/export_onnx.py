"""Export a trained checkpoint to ONNX (single process, one GPU)."""
import argparse

import torch
import torchvision

from utils.checkpoint import load_weights


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkpoint")
    parser.add_argument("--arch", default="convnext_tiny")
    parser.add_argument("--num_classes", type=int, default=1000)
    parser.add_argument("--input_size", type=int, default=224)
    parser.add_argument("--out", default="model.onnx")
    args = parser.parse_args()

    model = getattr(torchvision.models, args.arch)(num_classes=args.num_classes)
    model.load_state_dict(load_weights(args.checkpoint))
    model = model.cuda().eval()
    dummy = torch.randn(1, 3, args.input_size, args.input_size, device="cuda")
    with torch.no_grad():
        torch.onnx.export(model, dummy, args.out, input_names=["images"], output_names=["logits"],
                          dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
