"""Hyper-parameters of the Mistral-7B instruction run (kept in one place for the paper's appendix)."""
BASE_MODEL = "mistralai/Mistral-7B-v0.1"
MAX_LEN = 2048
PER_DEVICE_BATCH = 4
GRAD_ACCUM = 4
LEARNING_RATE = 2e-5
EPOCHS = 3
WARMUP_RATIO = 0.03
DS_CONFIG = "configs/zero2_gbs128.json"
