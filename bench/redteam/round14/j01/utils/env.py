"""Process placement, as torchrun exports it to every rank."""
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class DistEnv:
    rank: int
    world_size: int
    local_rank: int

    @classmethod
    def from_env(cls) -> "DistEnv":
        return cls(
            rank=int(os.environ["RANK"]),
            world_size=int(os.environ["WORLD_SIZE"]),
            local_rank=int(os.environ["LOCAL_RANK"]),
        )

    @property
    def is_main(self) -> bool:
        return self.rank == 0
