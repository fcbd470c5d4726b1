import lightning as L

GPUS_PER_NODE = 4


def make_fabric(precision="bf16-mixed"):
    return L.Fabric(accelerator="cuda", devices=GPUS_PER_NODE, strategy="ddp", precision=precision)
