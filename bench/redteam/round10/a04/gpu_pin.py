"""Give each torchrun worker exactly one visible GPU.

Imported first by the entry points, before torch initialises CUDA. Afterwards the rank's
own GPU is cuda:0 in this process, and cuDNN/NCCL never create contexts on the others.
"""
import os

_local_rank = os.environ.get("LOCAL_RANK")
if _local_rank is not None:
    _visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if _visible:
        _gpus = _visible.split(",")
    else:
        _gpus = [str(i) for i in range(int(os.environ["LOCAL_WORLD_SIZE"]))]
    os.environ["CUDA_VISIBLE_DEVICES"] = _gpus[int(_local_rank)]
