"""Lightning + DeepSpeed ZeRO-2 Offload with DeepSpeedCPUAdam: the setup of the first report.

`python train.py` is one world of 2 ranks: Lightning starts rank 1 itself. `launch.sh` starts
this script twice, as a per-GPU cluster wrapper (or `mpirun -np 2` without mpi4py) would: each
copy sees no LOCAL_RANK, spawns its own rank 1, and two worlds share both GPUs.
The strategy string also leaves pin_memory off (see train_fixed.py).
"""
import lightning as L

from common import Net, loader, trainer_args

if __name__ == "__main__":
    trainer = L.Trainer(accelerator="gpu", devices=2, strategy="deepspeed_stage_2_offload", precision="bf16-mixed",
                        **trainer_args())
    trainer.fit(Net(), loader())
