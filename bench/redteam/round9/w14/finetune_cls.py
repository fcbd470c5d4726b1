import torch
import torch.distributed as dist
from datasets import load_dataset
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding

from nlp.dist_utils import rank_zero_first, setup

MODEL = "microsoft/deberta-v3-base"


def main():
    rank, local_rank = setup()
    tokenizer = AutoTokenizer.from_pretrained(MODEL)
    with rank_zero_first(rank):
        raw = load_dataset("glue", "mnli", split="train")
        encoded = raw.map(lambda b: tokenizer(b["premise"], b["hypothesis"], truncation=True, max_length=256),
                          batched=True, num_proc=8, remove_columns=["premise", "hypothesis", "idx"])
    encoded = encoded.rename_column("label", "labels")
    sampler = DistributedSampler(encoded)
    loader = DataLoader(encoded, batch_size=32, sampler=sampler, collate_fn=DataCollatorWithPadding(tokenizer))

    model = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=3).cuda()
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch = {k: v.cuda(non_blocking=True) for k, v in batch.items()}
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    if rank == 0:
        model.module.save_pretrained("out/deberta-mnli")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
