from .checkpointing import Checkpointer
