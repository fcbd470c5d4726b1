from datasets import load_from_disk


def build_dataset():
    return load_from_disk("data/tok").with_format("torch")
