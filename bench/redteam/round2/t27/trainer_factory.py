import lightning as L

NUM_NODES = 2
GPUS_PER_NODE = 8


def make_trainer(max_epochs):
    return L.Trainer(accelerator="gpu", devices=GPUS_PER_NODE, num_nodes=NUM_NODES, strategy="ddp", max_epochs=max_epochs)
