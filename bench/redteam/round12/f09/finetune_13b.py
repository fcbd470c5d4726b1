"""Fine-tune a 13B model on a single GPU with ZeRO-Infinity (parameters and optimizer on NVMe)."""
import argparse

import deepspeed
import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

from infinity.data import eval_loader, make_datasets
from infinity.evaluate import perplexity


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--model", default="meta-llama/Llama-2-13b-hf")
    parser.add_argument("--out", default="out/llama2-13b-domain")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()

    deepspeed.init_distributed()
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    tokenizer.pad_token = tokenizer.eos_token
    config = AutoConfig.from_pretrained(args.model)
    with deepspeed.zero.Init(config_dict_or_path=args.deepspeed_config, remote_device="nvme"):
        model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16)
    train_set, eval_set = make_datasets(tokenizer)
    engine, _, train_loader, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters(),
                                                      training_data=train_set)
    val_loader = eval_loader(eval_set, engine.train_micro_batch_size_per_gpu())
    for step, batch in enumerate(train_loader):  # one pass over the domain corpus
        batch = {k: v.to(engine.device) for k, v in batch.items()}
        loss = engine(**batch).loss
        engine.backward(loss)
        engine.step()
        if step % 1000 == 0:
            print(f"step {step} loss {loss.item():.3f} eval ppl {perplexity(engine, val_loader):.2f}", flush=True)
    engine.save_16bit_model(args.out)


if __name__ == "__main__":
    main()
