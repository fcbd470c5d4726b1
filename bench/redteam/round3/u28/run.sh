python launch.py --num-gpus 4
