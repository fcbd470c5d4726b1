"""In-process report: each rank says which GPU it computes on and what thread budget it has.

One line in the training script:

    import dslint.probe.inprocess  # noqa: F401

does nothing unless DSLINT_PROBE_OUT is set (`dslint probe -- …` sets it). Then, after the
first optimizer step (when every rank has its device and its optimizer), each rank reports
rank, local rank, device UUID, torch threads, OMP_NUM_THREADS, CPU affinity and whether a
CPU optimizer library is loaded; torch.distributed's all_gather_object brings the reports to
rank 0, which writes them as JSON to DSLINT_PROBE_OUT. With Lightning, instead pass
`dslint.probe.inprocess.ProbeCallback()` in `Trainer(callbacks=[...])`.

This sees what /proc cannot: values set after exec (Lightning's OMP_NUM_THREADS), and ranks in
another PID namespace. It creates no CUDA context: it only asks about the current device.
"""
from __future__ import annotations

import json
import os
import socket
from typing import Any, Optional

from dslint.probe.observe import read_cpu_optimizer_libs

OUT_VAR = "DSLINT_PROBE_OUT"
_done = False


def _int(v: Optional[str]) -> Optional[int]:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def _cpu_optimizer_libs() -> list[str]:
    try:
        return read_cpu_optimizer_libs()
    except OSError:
        return []


def local_report() -> dict[str, Any]:
    """This process's view of itself, as a dict matching observe.RankReport."""
    import torch  # noqa: PLC0415

    dist = torch.distributed
    initialized = dist.is_available() and dist.is_initialized()
    rank = dist.get_rank() if initialized else _int(os.environ.get("RANK")) or 0
    world = dist.get_world_size() if initialized else _int(os.environ.get("WORLD_SIZE")) or 1
    device = uuid = None
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        device = torch.cuda.current_device()  # creates no context (research/gpu-probe.md E1)
        u = str(torch.cuda.get_device_properties(device).uuid)
        uuid = u if u.startswith(("GPU-", "MIG-")) else f"GPU-{u}"
    return {
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "rank": rank,
        "local_rank": _int(os.environ.get("LOCAL_RANK")),
        "world_size": world,
        "master_addr": os.environ.get("MASTER_ADDR"),
        "master_port": os.environ.get("MASTER_PORT"),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "current_device": device,
        "device_uuid": uuid,
        "torch_threads": torch.get_num_threads(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "affinity": sorted(os.sched_getaffinity(0)),
        "cpu_optimizer_libs": _cpu_optimizer_libs(),
    }


def report(path: Optional[str] = None) -> Optional[list[dict[str, Any]]]:
    """Gather every rank's report on rank 0 and write it to `path` (default: $DSLINT_PROBE_OUT).

    Collective: every rank of the default process group must call it. Returns the list on rank 0.
    """
    import torch  # noqa: PLC0415

    path = path or os.environ.get(OUT_VAR)
    mine = local_report()
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        gathered: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, mine)
        if dist.get_rank() != 0:
            return None
    else:
        gathered = [mine]
    if path:
        _merge_write(path, gathered)
    return gathered


def _merge_write(path: str, ranks: list[dict[str, Any]]) -> None:
    """Add these ranks to the file: several worlds (a double launch) each write their rank 0's gather."""
    import fcntl  # noqa: PLC0415

    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(path) as f:
                old = json.load(f).get("ranks", [])
        except (OSError, ValueError):
            old = []
        pids = {r["pid"] for r in ranks}
        merged = [r for r in old if r.get("pid") not in pids] + ranks
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump({"ranks": merged}, f, indent=1)
        os.replace(tmp, path)


def _after_first_step(optimizer, args, kwargs) -> None:
    global _done
    if _done:
        return
    _done = True
    try:
        report()
    except Exception as e:  # the probe must never break training
        print(f"dslint probe: in-process report failed: {e}", flush=True)


def install() -> bool:
    """Report once, after the first optimizer step of any torch optimizer. False if not asked for."""
    if not os.environ.get(OUT_VAR):
        return False
    from torch.optim.optimizer import register_optimizer_step_post_hook  # noqa: PLC0415

    register_optimizer_step_post_hook(_after_first_step)
    return True


def __getattr__(name: str):
    # The Lightning callback class is built on first use, so importing this module never imports Lightning.
    if name == "ProbeCallback":
        return _lightning_callback()
    raise AttributeError(name)


def _lightning_callback():
    try:
        from lightning.pytorch.callbacks import Callback  # noqa: PLC0415
    except ImportError:  # pragma: no cover - depends on what is installed
        from pytorch_lightning.callbacks import Callback  # noqa: PLC0415

    class ProbeCallback(Callback):
        """Reports once, after the first training batch (every rank has its device by then)."""

        def __init__(self, path: Optional[str] = None) -> None:
            self.path = path
            self.done = False

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
            global _done
            if self.done or not (self.path or os.environ.get(OUT_VAR)):
                return
            self.done = _done = True
            try:
                report(self.path)
            except Exception as e:
                print(f"dslint probe: in-process report failed: {e}", flush=True)

    globals()["ProbeCallback"] = ProbeCallback
    return ProbeCallback


install()
