from .dims import ParallelDims, build_mesh
