import os


def is_main():
    return int(os.environ.get("RANK", "0")) == 0
