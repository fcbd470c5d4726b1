python train_fabric.py
