deepspeed --hostfile hostfile --include node-a train.py
