import segmentation_models_pytorch as smp

from seg.trainer import SegTrainer

if __name__ == "__main__":
    net = smp.Unet("resnet34", encoder_weights=None, in_channels=3, classes=6)
    SegTrainer(net, "data/tiles_train.npy").fit()
