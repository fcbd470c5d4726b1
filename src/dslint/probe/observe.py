"""Observations: what the probe saw, as plain pydantic models, and the readers that fill them.

Sources: NVML (GPUs by UUID and the compute processes on each), /proc (command line, the
environment at exec time, parent, threads, affinity, CPU time, run-queue wait, mapped CPU
optimizer libraries), /sys (cores, NUMA nodes), /proc/meminfo and /proc/pressure/cpu.
Nothing here creates a CUDA context. pynvml is imported inside the functions that use it.
"""
from __future__ import annotations

import datetime as _dt
import os
import re
import socket
import time
from typing import Iterable, Optional

from pydantic import BaseModel, Field

# Environment variables that say which world and rank a process belongs to, and its thread budget.
ENV_KEYS = (
    "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK",
    "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
    "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_JOB_NAME", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS",
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
    "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
)
# Shared objects of DeepSpeed's CPU optimizers (JIT-built `cpu_adam.so` or prebuilt `cpu_adam_op…so`).
CPU_OPTIMIZER_LIB = re.compile(r"/(cpu_adam|cpu_adagrad|cpu_lion)[^/]*\.so")

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class ObservationError(Exception):
    """Something the probe must see could not be observed; the message says what and why."""


class GpuProcess(BaseModel):
    pid: int
    used_memory_mib: Optional[float] = None  # None: NVML does not report it here


class Gpu(BaseModel):
    index: int  # NVML (PCI) index, not a CUDA_VISIBLE_DEVICES-relative one
    uuid: str
    name: str = ""
    memory_total_mib: Optional[float] = None
    memory_used_mib: Optional[float] = None
    processes: list[GpuProcess] = Field(default_factory=list)


class ProcessInfo(BaseModel):
    pid: int
    ppid: int
    pgid: int = 0
    start_ticks: int = 0  # field 22 of /proc/PID/stat: tells a reused PID apart
    cmdline: list[str] = Field(default_factory=list)
    cwd: Optional[str] = None  # to resolve a relative script path in cmdline
    env: dict[str, str] = Field(default_factory=dict)  # only ENV_KEYS, as set at exec time
    threads: Optional[int] = None
    affinity: Optional[list[int]] = None
    cpu_seconds: Optional[float] = None  # utime + stime of all threads
    run_ns: Optional[int] = None  # sum over threads of /proc/PID/task/*/schedstat
    wait_ns: Optional[int] = None
    cpu_optimizer_libs: list[str] = Field(default_factory=list)
    unreadable: list[str] = Field(default_factory=list)  # "environ: permission denied"


class Host(BaseModel):
    hostname: str
    logical_cpus: int
    online_cpus: list[int] = Field(default_factory=list)
    numa_nodes: dict[int, list[int]] = Field(default_factory=dict)
    mem_total_mib: Optional[float] = None
    mem_available_mib: Optional[float] = None


class Snapshot(BaseModel):
    t: float  # seconds since the watch began
    duration_s: float  # how long taking this snapshot took
    gpus: list[Gpu] = Field(default_factory=list)
    processes: list[ProcessInfo] = Field(default_factory=list)
    psi_cpu_some_us: Optional[int] = None  # `total=` of the "some" line of /proc/pressure/cpu


class RankReport(BaseModel):
    """What one rank says about itself through the in-process hook."""

    host: str
    pid: int
    rank: int
    local_rank: Optional[int] = None
    world_size: int
    master_addr: Optional[str] = None
    master_port: Optional[str] = None
    cuda_visible_devices: Optional[str] = None
    current_device: Optional[int] = None
    device_uuid: Optional[str] = None
    torch_threads: Optional[int] = None
    omp_num_threads: Optional[str] = None
    affinity: list[int] = Field(default_factory=list)
    cpu_optimizer_libs: list[str] = Field(default_factory=list)


class Observation(BaseModel):
    version: int = 1
    created: str = ""
    mode: str = "snapshot"  # snapshot | pid | command
    command: Optional[list[str]] = None
    cwd: Optional[str] = None  # the probe's working directory: finding paths are relative to it
    root_pids: list[int] = Field(default_factory=list)
    host: Host
    snapshots: list[Snapshot] = Field(default_factory=list)
    ranks: list[RankReport] = Field(default_factory=list)
    unobserved: list[str] = Field(default_factory=list)  # "could not observe X because Y"
    job_exit_code: Optional[int] = None


# ---------------------------------------------------------------- host


def _read(path: str) -> str:
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        return f.read()


def parse_cpu_list(text: str) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11]."""
    out: list[int] = []
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def format_cpu_list(cpus: Iterable[int]) -> str:
    """[0, 1, 2, 5] -> '0-2,5'."""
    cs = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(cs):
        j = i
        while j + 1 < len(cs) and cs[j + 1] == cs[j] + 1:
            j += 1
        parts.append(str(cs[i]) if i == j else f"{cs[i]}-{cs[j]}")
        i = j + 1
    return ",".join(parts)


def observe_host() -> Host:
    online: list[int] = []
    try:
        online = parse_cpu_list(_read("/sys/devices/system/cpu/online"))
    except OSError:
        online = list(range(os.cpu_count() or 1))
    numa: dict[int, list[int]] = {}
    try:
        for name in sorted(os.listdir("/sys/devices/system/node")):
            m = re.fullmatch(r"node(\d+)", name)
            if m:
                numa[int(m.group(1))] = parse_cpu_list(_read(f"/sys/devices/system/node/{name}/cpulist"))
    except OSError:
        pass
    total = avail = None
    try:
        for line in _read("/proc/meminfo").splitlines():
            key, _, rest = line.partition(":")
            if key == "MemTotal":
                total = int(rest.split()[0]) / 1024
            elif key == "MemAvailable":
                avail = int(rest.split()[0]) / 1024
    except OSError:
        pass
    return Host(
        hostname=socket.gethostname(),
        logical_cpus=os.cpu_count() or len(online),
        online_cpus=online,
        numa_nodes=numa,
        mem_total_mib=total,
        mem_available_mib=avail,
    )


def read_psi_cpu_some() -> Optional[int]:
    try:
        for line in _read("/proc/pressure/cpu").splitlines():
            if line.startswith("some"):
                m = re.search(r"total=(\d+)", line)
                return int(m.group(1)) if m else None
    except OSError:
        return None
    return None


# ---------------------------------------------------------------- processes


def _stat_fields(pid: int) -> Optional[list[str]]:
    """Fields of /proc/PID/stat after the command name (index 0 is field 3, the state)."""
    try:
        text = _read(f"/proc/{pid}/stat")
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def process_table() -> dict[int, tuple[int, int, int]]:
    """pid -> (ppid, pgid, start_ticks) for every process visible in /proc."""
    table: dict[int, tuple[int, int, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        f = _stat_fields(int(name))
        if f is None or len(f) < 20:
            continue
        table[int(name)] = (int(f[1]), int(f[2]), int(f[19]))
    return table


def descendants(roots: Iterable[int], table: dict[int, tuple[int, int, int]]) -> set[int]:
    """The roots that still exist and every process below them."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out: set[int] = set()
    stack = [r for r in roots if r in table]
    while stack:
        p = stack.pop()
        if p in out:
            continue
        out.add(p)
        stack.extend(children.get(p, []))
    return out


def read_environ(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        raw = f.read()
    env: dict[str, str] = {}
    for item in raw.split(b"\0"):
        k, sep, v = item.partition(b"=")
        if sep:
            env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


def read_cpu_optimizer_libs(pid: int | str = "self") -> list[str]:
    """File names of the CPU optimizer libraries mapped into the process (raises OSError)."""
    with open(f"/proc/{pid}/maps", "r", errors="replace") as fh:
        return sorted({line.rsplit("/", 1)[-1].strip() for line in fh if CPU_OPTIMIZER_LIB.search(line)})


def _gone(e: OSError) -> bool:
    import errno  # noqa: PLC0415

    return e.errno in (errno.ENOENT, errno.ESRCH)


def _why(e: OSError) -> str:
    if isinstance(e, PermissionError):
        return "permission denied (run the probe as the job's user or as root)"
    return e.strerror or type(e).__name__


def read_process(pid: int, table: dict[int, tuple[int, int, int]], lib_cache: dict) -> Optional[ProcessInfo]:
    """Everything /proc tells about one process; None if it is gone."""
    f = _stat_fields(pid)
    if f is None:
        return None
    info = ProcessInfo(pid=pid, ppid=int(f[1]), pgid=int(f[2]), start_ticks=int(f[19]))
    info.cpu_seconds = (int(f[11]) + int(f[12])) / CLK_TCK
    try:
        raw = open(f"/proc/{pid}/cmdline", "rb").read()
        info.cmdline = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
        info.cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError as e:
        if _gone(e):
            return None
        if not info.cmdline:
            info.unreadable.append(f"cmdline: {_why(e)}")
    try:
        env = read_environ(pid)
        info.env = {k: env[k] for k in ENV_KEYS if k in env}
    except OSError as e:
        if _gone(e):  # it exited between listing and reading: not something we failed to see
            return None
        info.unreadable.append(f"environ: {_why(e)}")
    try:
        for line in _read(f"/proc/{pid}/status").splitlines():
            if line.startswith("Threads:"):
                info.threads = int(line.split()[1])
            elif line.startswith("Cpus_allowed_list:"):
                info.affinity = parse_cpu_list(line.split(":", 1)[1])
    except OSError as e:
        if _gone(e):
            return None
        info.unreadable.append(f"status: {_why(e)}")
    run = wait = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                parts = _read(f"/proc/{pid}/task/{tid}/schedstat").split()
                run += int(parts[0])
                wait += int(parts[1])
            except (OSError, IndexError, ValueError):
                continue
        info.run_ns, info.wait_ns = run, wait
    except OSError as e:
        if _gone(e):
            return None
        info.unreadable.append(f"schedstat: {_why(e)}")
    key = (pid, info.start_ticks)
    libs = lib_cache.get(key)
    if not libs:  # a library, once mapped, stays: stop reading maps once found
        try:
            libs = read_cpu_optimizer_libs(pid)
            lib_cache[key] = libs
        except OSError as e:
            if _gone(e):
                return None
            info.unreadable.append(f"maps: {_why(e)}")
            libs = []
    info.cpu_optimizer_libs = list(libs)
    return info


# ---------------------------------------------------------------- GPUs (NVML)


class Nvml:
    """A thin NVML session. Raises ObservationError with the reason when NVML is unusable."""

    def __init__(self) -> None:
        try:
            import pynvml  # noqa: PLC0415 - optional, imported only when the probe runs
        except ImportError as e:
            raise ObservationError(
                "could not observe GPUs because the NVML Python binding is not installed "
                f"(pip install nvidia-ml-py, or dslint[probe]): {e}"
            ) from None
        self.nv = pynvml
        try:
            pynvml.nvmlInit()
        except Exception as e:  # NVMLError_LibraryNotFound, DriverNotLoaded, NoPermission…
            raise ObservationError(f"could not observe GPUs because NVML could not be initialised: {e}") from None
        try:
            self.count = pynvml.nvmlDeviceGetCount()
        except Exception as e:
            raise ObservationError(f"could not observe GPUs because NVML could not count them: {e}") from None
        if self.count == 0:
            raise ObservationError("could not observe GPUs because NVML reports no GPU on this machine")
        try:
            self.handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(self.count)]
            self.names = [(_s(pynvml.nvmlDeviceGetUUID(h)), _s(pynvml.nvmlDeviceGetName(h))) for h in self.handles]
        except Exception as e:  # NoPermission on a GPU
            raise ObservationError(f"could not observe GPUs because NVML could not open them: {e}") from None

    def gpus(self, unobserved: list[str]) -> list[Gpu]:
        nv = self.nv
        out: list[Gpu] = []
        for i, h in enumerate(self.handles):
            uuid, name = self.names[i]
            g = Gpu(index=i, uuid=uuid, name=name)
            try:
                mem = nv.nvmlDeviceGetMemoryInfo(h)
                g.memory_total_mib = mem.total / 2**20
                g.memory_used_mib = mem.used / 2**20
            except Exception as e:
                _note(unobserved, f"could not observe memory of GPU {i} because {e}")
            try:
                procs = nv.nvmlDeviceGetComputeRunningProcesses(h)
            except Exception as e:
                _note(unobserved, f"could not observe the processes on GPU {i} ({uuid}) because {e}")
                procs = []
            for p in procs:
                used = getattr(p, "usedGpuMemory", None)
                g.processes.append(GpuProcess(pid=int(p.pid), used_memory_mib=None if used is None else used / 2**20))
            out.append(g)
        return out

    def close(self) -> None:
        try:
            self.nv.nvmlShutdown()
        except Exception:
            pass


def _s(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _note(unobserved: list[str], text: str) -> None:
    if text not in unobserved:
        unobserved.append(text)


# ---------------------------------------------------------------- snapshots


class Observer:
    """Takes snapshots of the GPUs and of the processes of interest.

    Processes of interest: the roots (a job the probe started, or --pid) and everything below
    them, plus every process NVML lists on a GPU and everything below those.
    """

    def __init__(self, nvml: Optional[Nvml], roots: Iterable[int] = (), t0: Optional[float] = None) -> None:
        self.nvml = nvml
        self.roots = list(roots)
        self.t0 = time.monotonic() if t0 is None else t0
        self.lib_cache: dict = {}
        self.unobserved: list[str] = []
        self.seen: dict[int, int] = {}  # pid -> start_ticks of every process of interest seen

    def snapshot(self) -> Snapshot:
        start = time.monotonic()
        gpus = self.nvml.gpus(self.unobserved) if self.nvml else []
        table = process_table()
        gpu_pids = {p.pid for g in gpus for p in g.processes}
        missing = sorted(p for p in gpu_pids if p not in table)
        if missing:
            _note(
                self.unobserved,
                "could not observe GPU processes " + ", ".join(map(str, missing))
                + " because they are not visible in /proc here (another PID namespace: a container "
                "without --pid=host); use the in-process hook (import dslint.probe.inprocess)",
            )
        pids = descendants(list(self.roots) + sorted(gpu_pids), table)
        procs: list[ProcessInfo] = []
        for pid in sorted(pids):
            info = read_process(pid, table, self.lib_cache)
            if info is None:
                continue
            self.seen[pid] = info.start_ticks
            procs.append(info)
            for u in info.unreadable:
                _note(self.unobserved, f"could not observe {u.split(':')[0]} of process {pid} because {u.split(': ', 1)[1]}")
        snap = Snapshot(
            t=round(start - self.t0, 3),
            duration_s=0.0,
            gpus=gpus,
            processes=procs,
            psi_cpu_some_us=read_psi_cpu_some(),
        )
        snap.duration_s = round(time.monotonic() - start, 4)
        return snap


def new_observation(mode: str, command: Optional[list[str]] = None, roots: Iterable[int] = ()) -> Observation:
    return Observation(
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        mode=mode,
        command=command,
        cwd=os.getcwd(),
        root_pids=list(roots),
        host=observe_host(),
    )
