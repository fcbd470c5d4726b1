"""Where this process sits in the job, read once from the environment."""
import os
from dataclasses import dataclass, field


def _env_int(*names, default=0):
    for name in names:
        if name in os.environ:
            return int(os.environ[name])
    return default


@dataclass(frozen=True)
class Runtime:
    rank: int = field(default_factory=lambda: _env_int("RANK", "SLURM_PROCID"))
    world_size: int = field(default_factory=lambda: _env_int("WORLD_SIZE", "SLURM_NTASKS", default=1))
    local_rank: int = field(default_factory=lambda: int(os.environ.get("LOCAL_RANK", 0)))

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1
