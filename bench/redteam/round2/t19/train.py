import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForSequenceClassification

from export import export_artifacts


def main():
    accelerator = Accelerator()
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    data = TensorDataset(torch.randint(0, 30000, (2048, 128)), torch.randint(0, 2, (2048,)))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for ids, labels in loader:
        loss = model(input_ids=ids, labels=labels).loss
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
    export_artifacts(accelerator, model, {"final_loss": loss.item()}, "out")


if __name__ == "__main__":
    main()
