import os

import numpy as np
import torch
from torch.utils.data import Dataset


class RatingsDataset(Dataset):
    """(user, item, rating) triples, preprocessed into one .npz per split."""

    def __init__(self, root: str, split: str):
        arrays = np.load(os.path.join(root, f"{split}.npz"))
        self.users = torch.from_numpy(arrays["user"].astype(np.int64))
        self.items = torch.from_numpy(arrays["item"].astype(np.int64))
        self.ratings = torch.from_numpy(arrays["rating"].astype(np.float32))
        self.num_users = int(arrays["num_users"])
        self.num_items = int(arrays["num_items"])

    def __len__(self):
        return len(self.ratings)

    def __getitem__(self, i):
        return self.users[i], self.items[i], self.ratings[i]
