DEVICE = "cuda:0"
LR = 3e-4
