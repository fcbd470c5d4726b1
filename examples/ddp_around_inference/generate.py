"""Report 2's shape: DDP around a DeepSpeed inference model, used only through .module."""
import os

import deepspeed
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForCausalLM, AutoTokenizer

local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl")
torch.cuda.set_device(local_rank)

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.bfloat16)
engine = deepspeed.init_inference(model, dtype=torch.bfloat16, replace_with_kernel_inject=True)
llm = DDP(engine.module, device_ids=[local_rank])

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
ids = tokenizer(["Hello"] * 150, return_tensors="pt").input_ids.cuda()
with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
    out = llm.module.generate(ids, max_new_tokens=64)
print(tokenizer.batch_decode(out))
