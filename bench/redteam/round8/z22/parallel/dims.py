from dataclasses import dataclass

from torch.distributed.device_mesh import DeviceMesh, init_device_mesh


@dataclass(frozen=True)
class ParallelDims:
    dp_rank: int
    dp_size: int
    tp_size: int


def build_mesh(dp: int, tp: int) -> tuple[DeviceMesh, ParallelDims]:
    mesh = init_device_mesh("cuda", (dp, tp), mesh_dim_names=("dp", "tp"))
    dims = ParallelDims(dp_rank=mesh["dp"].get_local_rank(), dp_size=mesh["dp"].size(), tp_size=tp)
    return mesh, dims
