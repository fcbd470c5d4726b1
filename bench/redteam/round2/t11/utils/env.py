import os


def prepare_env():
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    os.environ["NCCL_ASYNC_ERROR_HANDLING"] = "1"
