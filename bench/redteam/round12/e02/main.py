import argparse
import math

import deepspeed
import torch
from deepspeed.ops.adam import FusedAdam
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoTokenizer, default_data_collator, get_scheduler

from utils.ds_utils import get_train_ds_config
from utils.model_utils import create_hf_model
from utils.utils import get_all_reduce_mean, print_rank_0, save_hf_format, save_zero_three_model, to_device


def parse_args():
    parser = argparse.ArgumentParser(description="Finetune a causal LM on prompt/response pairs")
    parser.add_argument("--data_path", default="data/sft.pt")
    parser.add_argument("--model_name_or_path", required=True)
    parser.add_argument("--per_device_train_batch_size", type=int, default=4)
    parser.add_argument("--per_device_eval_batch_size", type=int, default=4)
    parser.add_argument("--learning_rate", type=float, default=1e-5)
    parser.add_argument("--num_train_epochs", type=int, default=2)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=1)
    parser.add_argument("--output_dir", default=None)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--zero_stage", type=int, default=0)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def evaluation(model, eval_dataloader, device):
    model.eval()
    losses = 0
    for step, batch in enumerate(eval_dataloader):
        batch = to_device(batch, device)
        with torch.no_grad():
            outputs = model(**batch)
        losses += outputs.loss.float()
    losses = get_all_reduce_mean(losses / (step + 1))
    model.train()
    return torch.exp(losses).item()


def main():
    args = parse_args()
    torch.cuda.set_device(args.local_rank)
    device = torch.device("cuda", args.local_rank)
    deepspeed.init_distributed()
    args.global_rank = torch.distributed.get_rank()

    ds_config = get_train_ds_config(offload=False, stage=args.zero_stage)
    ds_config["train_micro_batch_size_per_gpu"] = args.per_device_train_batch_size
    ds_config["train_batch_size"] = (args.per_device_train_batch_size * torch.distributed.get_world_size()
                                     * args.gradient_accumulation_steps)
    torch.distributed.barrier()

    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path, fast_tokenizer=True)
    tokenizer.pad_token = tokenizer.eos_token
    model, _dschf = create_hf_model(args.model_name_or_path, tokenizer, ds_config)
    model.gradient_checkpointing_enable()

    train_dataset, eval_dataset = torch.load(args.data_path, map_location="cpu")
    train_sampler = DistributedSampler(train_dataset)
    eval_sampler = DistributedSampler(eval_dataset, shuffle=False)
    train_dataloader = DataLoader(train_dataset, collate_fn=default_data_collator, sampler=train_sampler,
                                  batch_size=args.per_device_train_batch_size)
    eval_dataloader = DataLoader(eval_dataset, collate_fn=default_data_collator, sampler=eval_sampler,
                                 batch_size=args.per_device_eval_batch_size)

    optimizer = FusedAdam(model.parameters(), lr=args.learning_rate, betas=(0.9, 0.95))
    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    lr_scheduler = get_scheduler("cosine", optimizer=optimizer, num_warmup_steps=0,
                                 num_training_steps=args.num_train_epochs * num_update_steps_per_epoch)
    model, optimizer, _, lr_scheduler = deepspeed.initialize(model=model, optimizer=optimizer, args=args,
                                                             config=ds_config, lr_scheduler=lr_scheduler,
                                                             dist_init_required=True)

    print_rank_0(f"ppl before training: {evaluation(model, eval_dataloader, device)}", args.global_rank)
    for epoch in range(args.num_train_epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for step, batch in enumerate(train_dataloader):
            batch = to_device(batch, device)
            outputs = model(**batch, use_cache=False)
            model.backward(outputs.loss)
            model.step()
        ppl = evaluation(model, eval_dataloader, device)
        print_rank_0(f"epoch {epoch + 1}: ppl {ppl}", args.global_rank)

    if args.output_dir is not None:
        print_rank_0("saving the final model ...", args.global_rank)
        if args.zero_stage == 3:
            # each rank holds only a partition of every parameter: gather them one by one on all ranks
            save_zero_three_model(model, args.global_rank, args.output_dir, zero_stage=args.zero_stage)
            if args.global_rank == 0:
                tokenizer.save_pretrained(args.output_dir)
        elif args.global_rank == 0:
            save_hf_format(model, tokenizer, args)


if __name__ == "__main__":
    main()
