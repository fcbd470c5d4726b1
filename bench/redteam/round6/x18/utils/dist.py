import os


def get_rank():
    return int(os.environ.get("RANK", 0))


def is_main_process():
    return get_rank() == 0
