from datasets import load_from_disk
from torch.utils.data import DataLoader, DistributedSampler
from transformers import DataCollatorWithPadding


def build_dataloaders(cfg, tokenizer):
    """Loaders over the pre-tokenised MNLI splits (input_ids, attention_mask, labels)."""
    splits = load_from_disk(cfg.dataset_path)
    collate = DataCollatorWithPadding(tokenizer, pad_to_multiple_of=8)
    train_set, val_set = splits["train"], splits["validation_matched"]

    train_sampler = DistributedSampler(train_set, shuffle=True, seed=cfg.seed)
    train_loader = DataLoader(train_set, batch_size=cfg.per_device_batch_size, sampler=train_sampler,
                              collate_fn=collate, num_workers=cfg.num_workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=2 * cfg.per_device_batch_size, shuffle=False,
                            collate_fn=collate, num_workers=cfg.num_workers)
    return train_loader, val_loader
