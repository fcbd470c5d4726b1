"""Process-level settings applied before torch is imported."""
import os


def configure_cpu_threads() -> int:
    """Give each local rank its share of the host's cores for the offloaded (CPU) Adam step.

    Must run before `import torch`: libgomp reads OMP_NUM_THREADS once, when it loads.
    A value the user exported explicitly is kept.
    """
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    share = max(1, (os.cpu_count() or 1) // local_world)
    os.environ.setdefault("OMP_NUM_THREADS", str(share))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    return int(os.environ["OMP_NUM_THREADS"])
