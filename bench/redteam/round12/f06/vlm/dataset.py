import json
import os

import torch
from PIL import Image
from torch.utils.data import Dataset


class LazyConversationDataset(Dataset):
    """Decodes the image and tokenizes the conversation per sample (in the loader workers)."""

    def __init__(self, data_path, image_folder, processor, max_len):
        with open(data_path) as f:
            self.rows = json.load(f)
        self.image_folder = image_folder
        self.processor = processor
        self.max_len = max_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        image = Image.open(os.path.join(self.image_folder, row["image"])).convert("RGB")
        text = self.processor.apply_chat_template(row["conversations"], tokenize=False)
        enc = self.processor(text=[text], images=[image], return_tensors="pt", truncation=True,
                             max_length=self.max_len)
        enc = {k: v[0] for k, v in enc.items()}
        enc["labels"] = enc["input_ids"].clone()
        return enc


def collate(batch):
    out = {}
    for k in batch[0]:
        vals = [b[k] for b in batch]
        if k == "pixel_values" or k == "image_grid_thw":
            out[k] = torch.cat(vals)
        else:
            out[k] = torch.nn.utils.rnn.pad_sequence(vals, batch_first=True,
                                                     padding_value=-100 if k == "labels" else 0)
    return out
