"""`dslint probe --collective`: one process per GPU, NCCL all-reduce, each rank on its own GPU.

The parent never imports torch: it reads the link type from NVML, starts one worker per GPU
(`python -m dslint.probe.collective --worker`, torchrun-style environment) in a session of its
own, waits with a timeout, and stops the workers however they end. Rank 0 writes the results.
Bus bandwidth follows nccl-tests: busbw = algbw * 2(n-1)/n.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import time
from typing import Optional

from pydantic import BaseModel, Field

from dslint.model import Finding, Location, Severity, Span
from dslint.probe.observe import Nvml, ObservationError

SIZES_MIB = (1, 8, 64, 256)
# nvmlDeviceGetNvLinkVersion returns an enum, not the generation: 1 = 1.0, 2 = 2.0, 3 = 2.2,
# 4 = 3.0, 5 = 3.1, 6 = 4.0 (H100/H200), 7 = 5.0. -> (generation, GB/s per link per direction).
NVLINK_VERSIONS = {1: ("1.0", 20.0), 2: ("2.0", 25.0), 3: ("2.2", 25.0), 4: ("3.0", 25.0), 5: ("3.1", 25.0),
                   6: ("4.0", 25.0), 7: ("5.0", 50.0)}
# PCIe per direction for an x16 link after encoding (GB/s), by generation.
PCIE_X16_GBPS = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}


def nvlink_generation(version: Optional[int]) -> str:
    """NVML's NVLink version enum as the generation ("4.0"), "?" when unknown."""
    return NVLINK_VERSIONS.get(version or 0, ("?",))[0]


def _pcie_x16_gbps(pcie: list[str]) -> Optional[float]:
    """Nominal per-direction bandwidth of the slowest PCIe generation among "genN xW" entries."""
    gens = [int(s[3]) for s in pcie if s.startswith("gen") and s[3].isdigit()]
    return PCIE_X16_GBPS.get(min(gens)) if gens else None


class LinkInfo(BaseModel):
    kind: str  # nvlink | pcie | unknown
    nvlink_active_links: list[int] = Field(default_factory=list)  # per GPU
    nvlink_version: Optional[int] = None  # NVML's enum value (6 = NVLink 4.0), see NVLINK_VERSIONS
    pcie: list[str] = Field(default_factory=list)  # "gen5 x16" per GPU
    nominal_gbps: Optional[float] = None  # per direction, per GPU: what the link allows


class SizeResult(BaseModel):
    size_bytes: int
    time_us: float  # slowest rank's mean time per all-reduce
    algbw_gbps: float
    busbw_gbps: float


class RankPlacement(BaseModel):
    rank: int
    local_rank: int
    pid: int
    host: str
    device: int
    uuid: str


class CollectiveResult(BaseModel):
    world_size: int
    ranks: list[RankPlacement] = Field(default_factory=list)
    sizes: list[SizeResult] = Field(default_factory=list)
    link: Optional[LinkInfo] = None
    seconds: float = 0.0
    nccl_version: str = ""


def link_info(nvml: Nvml) -> LinkInfo:
    nv = nvml.nv
    active: list[int] = []
    version = None
    pcie = []
    for h in nvml.handles:
        n = 0
        for link in range(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18)):
            try:
                if nv.nvmlDeviceGetNvLinkState(h, link) == 1:
                    n += 1
                    if version is None:
                        try:
                            version = int(nv.nvmlDeviceGetNvLinkVersion(h, link))
                        except Exception:
                            pass
            except Exception:  # past the last link (InvalidArgument) or not supported
                break
        active.append(n)
        try:
            pcie.append(f"gen{nv.nvmlDeviceGetCurrPcieLinkGeneration(h)} x{nv.nvmlDeviceGetCurrPcieLinkWidth(h)}")
        except Exception:
            pcie.append("unknown")
    info = LinkInfo(kind="unknown", nvlink_active_links=active, nvlink_version=version, pcie=pcie)
    p2p_nvlink = True
    if len(nvml.handles) > 1:
        idx = getattr(nv, "NVML_P2P_CAPS_INDEX_NVLINK", 3)
        for i in range(len(nvml.handles)):
            for j in range(i + 1, len(nvml.handles)):
                try:
                    if nv.nvmlDeviceGetP2PStatus(nvml.handles[i], nvml.handles[j], int(idx)) != 0:
                        p2p_nvlink = False
                except Exception:
                    p2p_nvlink = False
    if active and min(active) > 0 and p2p_nvlink:
        info.kind = "nvlink"
        info.nominal_gbps = min(active) * NVLINK_VERSIONS.get(version or 6, ("?", 25.0))[1]
    else:
        info.kind = "pcie"
        info.nominal_gbps = _pcie_x16_gbps(pcie)
    return info


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_collective(timeout_s: float = 60.0, n: Optional[int] = None) -> CollectiveResult:
    """Start one worker per GPU, run the all-reduce sweep, stop the workers. Raises ObservationError."""
    from dslint.probe.runner import Job  # noqa: PLC0415

    t0 = time.monotonic()
    nvml = Nvml()
    try:
        link = link_info(nvml)
        count = nvml.count
    finally:
        nvml.close()
    n = n or count
    out_dir = tempfile.mkdtemp(prefix="dslint-collective-")
    out_path = os.path.join(out_dir, "result.json")
    port = str(_free_port())
    jobs = []
    try:
        for r in range(n):
            env = dict(os.environ)
            env.update(
                RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(n),
                MASTER_ADDR="127.0.0.1", MASTER_PORT=port, DSLINT_COLLECTIVE_OUT=out_path,
            )
            jobs.append(Job([sys.executable, "-m", "dslint.probe.collective", "--worker"], env=env, stdout=sys.stderr, stderr=sys.stderr))
        deadline = t0 + timeout_s
        while time.monotonic() < deadline:
            codes = [j.proc.poll() for j in jobs]
            if all(c is not None for c in codes) or any(c not in (None, 0) for c in codes):
                break
            time.sleep(0.1)
        codes = [j.proc.poll() for j in jobs]
    finally:
        for j in jobs:
            j.stop(grace_s=3.0)
    if any(c is None for c in codes):
        raise ObservationError(f"could not measure the all-reduce because the {n} workers did not finish within {timeout_s:.0f} s")
    if any(c != 0 for c in codes):
        raise ObservationError(f"could not measure the all-reduce because a worker failed (exit codes {codes}; its output is above)")
    try:
        with open(out_path) as f:
            res = CollectiveResult.model_validate(json.load(f))
    except (OSError, ValueError) as e:
        raise ObservationError(f"could not read the all-reduce result because {e}") from None
    finally:
        try:
            os.unlink(out_path)
            os.rmdir(out_dir)
        except OSError:
            pass
    res.link = link
    res.seconds = round(time.monotonic() - t0, 2)
    return res


def collective_findings(res: CollectiveResult) -> list[Finding]:
    """DSL902 if two workers landed on one GPU; DSL906 if NVLinked GPUs all-reduce below PCIe speed."""
    out: list[Finding] = []
    span = Span(Location(1, 1), Location(1, 1))
    by_uuid: dict[tuple[str, str], list[RankPlacement]] = {}
    for r in res.ranks:
        by_uuid.setdefault((r.host, r.uuid), []).append(r)
    for (host, uuid), rs in by_uuid.items():
        if len(rs) > 1:
            out.append(Finding(
                code="DSL902", name="ranks-share-gpu-runtime", path="<probe>", span=span, severity=Severity.ERROR,
                message=f"ranks {[r.rank for r in rs][:8]} of the collective check share one GPU; check "
                "CUDA_VISIBLE_DEVICES and the rank-to-device mapping",
                related=[("<probe>", span, f"ranks {[r.rank for r in rs]} all landed on {uuid} on {host}")],
            ))
    link = res.link
    if link and link.kind == "nvlink" and res.sizes and res.world_size > 1:
        big = max(res.sizes, key=lambda s: s.size_bytes)
        pcie_bound = _pcie_x16_gbps(link.pcie)
        if pcie_bound and big.busbw_gbps < pcie_bound:
            out.append(Finding(
                code="DSL906", name="collective-below-link", path="<probe>", span=span, severity=Severity.WARNING,
                message=f"all-reduce reached {big.busbw_gbps:.0f} GB/s on NVLinked GPUs, below even PCIe "
                f"({pcie_bound:.0f} GB/s); check NCCL_P2P_DISABLE, NCCL_P2P_LEVEL and the container's IPC",
                related=[("<probe>", span, f"all-reduce of {big.size_bytes >> 20} MiB: {big.busbw_gbps:.0f} GB/s bus "
                          f"bandwidth on {min(link.nvlink_active_links)} NVLink "
                          f"{nvlink_generation(link.nvlink_version)} links (nominal {link.nominal_gbps:.0f} GB/s "
                          "per direction)")],
            ))
    return out


def _worker() -> int:
    import torch  # noqa: PLC0415
    import torch.distributed as dist  # noqa: PLC0415

    rank, local, n = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    u = str(torch.cuda.get_device_properties(local).uuid)
    me = {"rank": rank, "local_rank": local, "pid": os.getpid(), "host": socket.gethostname(), "device": local,
          "uuid": u if u.startswith(("GPU-", "MIG-")) else f"GPU-{u}"}
    places: list = [None] * n
    dist.all_gather_object(places, me)
    sizes = []
    for mib in SIZES_MIB:
        numel = mib * 2**20 // 4
        x = torch.randn(numel, device=dev, dtype=torch.float32)
        for _ in range(5):
            dist.all_reduce(x)
        iters = 20 if mib <= 64 else 10
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        for _ in range(iters):
            dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        t = torch.tensor([start.elapsed_time(end) / iters * 1000.0], device=dev)  # us
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        time_us = float(t.item())
        nbytes = numel * 4
        algbw = nbytes / (time_us * 1e-6) / 1e9
        sizes.append({"size_bytes": nbytes, "time_us": round(time_us, 2), "algbw_gbps": round(algbw, 2),
                      "busbw_gbps": round(algbw * 2 * (n - 1) / n, 2)})
        del x
    if rank == 0:
        v = torch.cuda.nccl.version()
        res = {"world_size": n, "ranks": places, "sizes": sizes, "nccl_version": ".".join(map(str, v)) if isinstance(v, tuple) else str(v)}
        path = os.environ["DSLINT_COLLECTIVE_OUT"]
        with open(path + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(path + ".tmp", path)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__" and "--worker" in sys.argv:
    sys.exit(_worker())
