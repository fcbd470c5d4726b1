python -m torch.distributed.launch --nproc_per_node=4 --use_env run_glue.py --local_rank 0
