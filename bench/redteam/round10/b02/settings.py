"""Model-parallel layout of the deepspeed pipeline run: 2 stages, the rest is data parallel."""

PIPE_STAGES = 2
SEQ_LEN = 1024
VOCAB = 32000
HIDDEN = 2048
N_LAYERS = 24
