python tools/inspect_ckpt.py out/det/last.pt
