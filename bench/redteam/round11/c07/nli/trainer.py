import torch.nn.functional as F
from torch.utils.data import DataLoader
from transformers import Trainer


class NLITrainer(Trainer):
    """Trainer with our own train loader (prefetching workers) and a smoothed loss."""

    def __init__(self, *args, label_smoothing=0.1, **kwargs):
        super().__init__(*args, **kwargs)
        self.label_smoothing = label_smoothing

    def get_train_dataloader(self):
        if self.train_dataset is None:
            raise ValueError("NLITrainer needs a train_dataset")
        workers = self.args.dataloader_num_workers
        loader = DataLoader(
            self.train_dataset,
            batch_size=self._train_batch_size,
            shuffle=True,
            collate_fn=self.data_collator,
            num_workers=workers,
            pin_memory=True,
            persistent_workers=workers > 0,
            prefetch_factor=4 if workers > 0 else None,
            drop_last=self.args.dataloader_drop_last,
        )
        return self.accelerator.prepare(loader)

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = F.cross_entropy(outputs.logits, labels, label_smoothing=self.label_smoothing)
        return (loss, outputs) if return_outputs else loss
