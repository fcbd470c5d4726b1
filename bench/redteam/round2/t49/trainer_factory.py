import lightning as L


def make_trainer(max_epochs):
    return L.Trainer(accelerator="gpu", devices=4, num_nodes=2, strategy="ddp", max_epochs=max_epochs)
