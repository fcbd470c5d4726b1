"""128k-context continued pretraining with DeepSpeed Ulysses sequence parallelism (ALST recipe)."""
import argparse
import json

import deepspeed
import torch
from deepspeed.runtime.sequence_parallel.ulysses_sp import UlyssesSPAttentionHF, UlyssesSPDataLoaderAdapter
from deepspeed.runtime.utils import move_to_device
from deepspeed.utils import groups
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM

from longctx.data import LongDocs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model", default="meta-llama/Llama-3.1-8B")
    parser.add_argument("--data", default="data/long_docs_128k.jsonl")
    parser.add_argument("--seq_len", type=int, default=131072)
    parser.add_argument("--ds_config", default="configs/ds_sp4.json")
    parser.add_argument("--save_dir", default="out/llama31-8b-128k")
    args = parser.parse_args()

    with open(args.ds_config) as f:
        config = json.load(f)
    sp_size = config["sequence_parallel_size"]
    micro = config["train_micro_batch_size_per_gpu"]

    deepspeed.init_distributed()
    torch.cuda.set_device(args.local_rank)
    mpu = UlyssesSPAttentionHF.register_with_transformers(
        model_name_or_path=args.model,
        core_attn_implementation="sdpa",
        sequence_parallel_size=sp_size,
        micro_batch_size=micro,
        seq_length=args.seq_len,
        seq_length_is_variable=True,
    )
    model = AutoModelForCausalLM.from_pretrained(args.model, attn_implementation="sdpa", torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    engine, _, _, _ = deepspeed.initialize(config=config, model=model, model_parameters=model.parameters(), mpu=mpu)

    sp_group = groups._get_sequence_parallel_group()
    sp_world_size = groups._get_sequence_parallel_world_size()
    sp_rank = groups._get_sequence_parallel_rank()

    # every SP group reads one stream of documents: shard the data over the data-parallel ranks only
    dataset = LongDocs(args.data, args.seq_len)
    sampler = DistributedSampler(dataset, num_replicas=groups._get_data_parallel_world_size(),
                                 rank=groups._get_data_parallel_rank())
    loader = DataLoader(dataset, batch_size=micro, sampler=sampler)

    for epoch in range(2):
        sampler.set_epoch(epoch)
        sp_loader = UlyssesSPDataLoaderAdapter(loader, sp_rank=sp_rank, sp_group=sp_group,
                                               sp_world_size=sp_world_size, device=engine.device)
        for batch in sp_loader:
            batch = move_to_device(batch, engine.device)
            shift_labels = batch.pop("shift_labels")
            logits = engine(**batch).logits
            loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)).float(),
                                                     shift_labels.view(-1), ignore_index=-100)
            engine.backward(loss)
            engine.step()
    engine.save_16bit_model(args.save_dir)


if __name__ == "__main__":
    main()
