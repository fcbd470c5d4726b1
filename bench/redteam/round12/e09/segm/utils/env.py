import os
import random

import numpy as np
import torch


def setup_env(seed, deterministic=False):
    """Seed every RNG and set the cuDNN/TF32 switches; touches no GPU."""
    if not torch.cuda.is_available():
        raise SystemExit("this recipe needs CUDA")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    torch.backends.cudnn.benchmark = not deterministic
    torch.backends.cudnn.deterministic = deterministic
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.cuda.empty_cache()
