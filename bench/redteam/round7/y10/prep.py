import os


def download(root):
    os.makedirs(root, exist_ok=True)
