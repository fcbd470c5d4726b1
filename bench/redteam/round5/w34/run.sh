fabric run --accelerator=cuda --devices=4 --strategy=ddp train.py
