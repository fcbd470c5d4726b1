python train.py --gpus 4
