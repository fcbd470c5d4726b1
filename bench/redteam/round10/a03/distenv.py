import os
from dataclasses import dataclass


@dataclass(frozen=True)
class DistEnv:
    """The torchrun environment of this process."""

    rank: int
    local_rank: int
    world_size: int

    @classmethod
    def from_env(cls) -> "DistEnv":
        return cls(
            rank=int(os.environ["RANK"]),
            local_rank=int(os.environ["LOCAL_RANK"]),
            world_size=int(os.environ["WORLD_SIZE"]),
        )

    @property
    def is_main(self) -> bool:
        return self.rank == 0
