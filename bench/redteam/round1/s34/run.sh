accelerate launch --config_file single_gpu.yaml finetune.py --resume ckpt/last.pt
