"""Probe rules: pure functions from an Observation to findings (DSL9xx).

Each rule flags only what the observation proves. Where the proof needs a measurement (run-queue
wait, cores busy) or the in-process report and neither is there, the rule says nothing.
"""
from __future__ import annotations

import os.path
import re
import statistics
from dataclasses import dataclass, field
from typing import Iterable, Optional

from dslint.model import Finding, Location, Severity, Span
from dslint.probe.observe import Observation, ProcessInfo, RankReport, Snapshot, format_cpu_list

PROBE_PATH = "<probe>"

# code -> (name, one-line summary).
from dslint.rules.probe_codes import PROBE_CODES
from dslint.rules.registry import file_label

RULES: dict[str, tuple[str, str]] = {code: (name, summary) for code, (name, summary, _) in PROBE_CODES.items()}

# A measured run-queue wait over run time above this means the ranks wait for a core more than
# they run (0.87–0.99 oversubscribed against <= 0.01 bound, research/gpu-probe.md E2).
WAIT_RUN_OVERSUBSCRIBED = 0.5
# A rank doing CPU optimizer work on one thread keeps about one core busy (E2 t1: 1.0).
STARVED_MAX_CORES_BUSY = 1.5
# A non-home context smaller than this share of the home one is a stray context (518 MiB vs >= 1.6 GiB).
STRAY_SHARE = 0.5
# Run-queue wait counts only in intervals where the rank keeps at least this many cores busy
# (its optimizer step runs), not while it imports, initialises or waits for the GPU.
BUSY_CORES_FOR_WAIT = 2.0
# Intervals shorter than this give noisy rates.
MIN_INTERVAL_S = 0.3


def _span() -> Span:
    return Span(Location(1, 1), Location(1, 1))


def _finding(code: str, message: str, path: str, severity: Severity, evidence: Iterable[str] = ()) -> Finding:
    """A probe finding: a one-line message, and what was observed (PIDs, GPUs, threads) as notes."""
    return Finding(code=code, message=message, path=path, span=_span(), severity=severity, name=RULES[code][0],
                   related=[(path, _span(), note) for note in evidence])


def _note(finding: Finding, note: str) -> None:
    finding.related.append((finding.path, _span(), note))


def script_of(cmdline: list[str]) -> Optional[str]:
    """The training script a command line runs: the first argument ending in .py, or `-m module`."""
    for i, a in enumerate(cmdline):
        if a.endswith(".py"):
            return a
        if a == "-m" and i + 1 < len(cmdline):
            nxt = cmdline[i + 1]
            if not nxt.startswith(("torch.distributed", "deepspeed.launcher")):
                return nxt
    return None


def script_path(p: ProcessInfo, base: Optional[str]) -> Optional[str]:
    """The process's script as a path relative to `base` (the probe's directory) when it lies below it."""
    sc = script_of(p.cmdline)
    if sc is None or not sc.endswith(".py"):
        return sc
    full = sc if os.path.isabs(sc) or not p.cwd else os.path.normpath(os.path.join(p.cwd, sc))
    if base and os.path.isabs(full):
        rel = os.path.relpath(full, base)
        if not rel.startswith(".."):
            return rel
    return full


def _short_cmd(cmd: list[str], limit: int = 80) -> str:
    s = " ".join(cmd)
    return s if len(s) <= limit else s[: limit - 1] + "…"


# ---------------------------------------------------------------- worlds


@dataclass(frozen=True)
class World:
    """A key that tells training worlds apart on one host."""

    master_addr: str
    master_port: str
    run_id: str
    lone_pid: int = 0  # no world variables at all: the process is its own "world"

    def describe(self) -> str:
        if self.lone_pid:
            return f"process {self.lone_pid} (no RANK/MASTER_PORT in its environment)"
        parts = []
        if self.master_port:
            parts.append(f"MASTER_PORT {self.master_port}")
        if self.run_id:
            parts.append(f"TORCHELASTIC_RUN_ID {self.run_id}")
        return "world with " + ", ".join(parts) if parts else "world"


def _world_from_env(env: dict[str, str]) -> Optional[World]:
    if "MASTER_PORT" in env or "TORCHELASTIC_RUN_ID" in env:
        return World(env.get("MASTER_ADDR", ""), env.get("MASTER_PORT", ""), env.get("TORCHELASTIC_RUN_ID", ""))
    return None


def worlds(snap: Snapshot) -> dict[int, tuple[World, Optional[str], bool]]:
    """pid -> (world, rank as text or None, inferred).

    A process with no world variables whose direct child carries them and LOCAL_RANK >= 1 is the
    rank 0 of that child's world: Lightning's main process starts its other ranks itself and
    exports MASTER_PORT only to them (research/gpu-probe.md E3).
    """
    by_pid = {p.pid: p for p in snap.processes}
    children: dict[int, list[ProcessInfo]] = {}
    for p in snap.processes:
        children.setdefault(p.ppid, []).append(p)
    out: dict[int, tuple[World, Optional[str], bool]] = {}
    unknown = {p.pid for p in snap.processes if any(u.startswith("environ") for u in p.unreadable)}
    for p in snap.processes:
        w = _world_from_env(p.env)
        if w is not None:
            out[p.pid] = (w, p.env.get("RANK", p.env.get("LOCAL_RANK")), False)
    for p in snap.processes:
        if p.pid in out or p.pid in unknown:
            continue
        spawned = [c for c in children.get(p.pid, []) if c.pid in out and c.env.get("LOCAL_RANK", "0") not in ("", "0")]
        if spawned:
            out[p.pid] = (out[spawned[0].pid][0], "0", True)
    for pid in by_pid:
        if pid not in unknown:  # an unreadable environment says nothing about the world
            out.setdefault(pid, (World("", "", "", lone_pid=pid), None, False))
    return out


# ---------------------------------------------------------------- GPU residency


@dataclass
class Residency:
    home: dict[int, str] = field(default_factory=dict)  # pid -> uuid of the GPU it computes on
    stray: list[tuple[int, str, float, str, float]] = field(default_factory=list)  # pid, uuid, MiB, home uuid, MiB


def residency(snap: Snapshot) -> Residency:
    """Each GPU process's home GPU (where it holds the most memory) and its stray contexts.

    A process on several GPUs whose memory NVML does not report gets no home: we cannot tell
    its own GPU from a stray context, so no rule uses it.
    """
    on: dict[int, list[tuple[str, Optional[float]]]] = {}
    for g in snap.gpus:
        for p in g.processes:
            on.setdefault(p.pid, []).append((g.uuid, p.used_memory_mib))
    res = Residency()
    for pid, places in on.items():
        if len(places) == 1:
            res.home[pid] = places[0][0]
            continue
        if any(m is None for _, m in places):
            continue
        places.sort(key=lambda x: -(x[1] or 0))
        home_uuid, home_mib = places[0]
        res.home[pid] = home_uuid
        for uuid, mib in places[1:]:
            if mib is not None and home_mib and mib < STRAY_SHARE * home_mib:
                res.stray.append((pid, uuid, mib, home_uuid, home_mib))
            else:
                res.home.pop(pid, None)  # computes on several GPUs (model parallel in one process)
                break
    return res


def _gpu_label(snap: Snapshot, uuid: str) -> str:
    for g in snap.gpus:
        if g.uuid == uuid:
            return f"GPU {g.index} ({uuid})"
    return uuid


def _proc_label(p: Optional[ProcessInfo], pid: int, rank: Optional[str] = None) -> str:
    r = f" rank {rank}" if rank is not None else ""
    cmd = f" `{_short_cmd(p.cmdline)}`" if p and p.cmdline else ""
    return f"PID {pid}{r}{cmd}"


def _path_for(procs: Iterable[Optional[ProcessInfo]], base: Optional[str] = None) -> str:
    scripts = {script_path(p, base) for p in procs if p is not None}
    scripts.discard(None)
    return scripts.pop() if len(scripts) == 1 else PROBE_PATH  # type: ignore[return-value]


def gpu_findings(obs: Observation) -> list[Finding]:
    """DSL901 several worlds on one GPU, DSL902 two ranks of one world on one GPU, DSL905 stray contexts.

    Each fact is reported once, at the first snapshot that shows it; DSL901 names every GPU that
    the same set of worlds shares.
    """
    base = obs.cwd
    shared: dict[frozenset, tuple[Snapshot, dict[World, list[int]], list[str]]] = {}
    found: dict[tuple, Finding] = {}
    for snap in obs.snapshots:
        by_pid = {p.pid: p for p in snap.processes}
        wmap = worlds(snap)
        res = residency(snap)
        for g in snap.gpus:
            home = [p.pid for p in g.processes if res.home.get(p.pid) == g.uuid and p.pid in wmap]
            groups: dict[World, list[int]] = {}
            for pid in home:
                groups.setdefault(wmap[pid][0], []).append(pid)
            if len(groups) >= 2:
                key = frozenset(groups)
                if key not in shared:
                    shared[key] = (snap, groups, [g.uuid])
                elif g.uuid not in shared[key][2]:
                    shared[key][2].append(g.uuid)
                    if shared[key][0] is snap:
                        for w, pids in groups.items():
                            shared[key][1].setdefault(w, []).extend(pids)
            for w, pids in groups.items():
                if w.lone_pid or len(pids) < 2:
                    continue
                key2 = ("DSL902", g.uuid, w)
                if key2 not in found:
                    who = ", ".join(_proc_label(by_pid.get(pid), pid, wmap[pid][1]) for pid in pids)
                    msg = (f"{len(pids)} ranks of one world compute on GPU {g.index}; call "
                           "torch.cuda.set_device(local_rank) before any CUDA work")
                    evidence = [f"{w.describe()} on {_gpu_label(snap, g.uuid)} at t={snap.t:.0f}s: {who}"]
                    found[key2] = _finding("DSL902", msg, _path_for((by_pid.get(p) for p in pids), base), Severity.ERROR,
                                           evidence)
        for pid, uuid, mib, home_uuid, home_mib in res.stray:
            key3 = ("DSL905", pid, uuid)
            if key3 in found:
                continue
            p = by_pid.get(pid)
            rank = wmap[pid][1] if pid in wmap else None
            r = f" (rank {rank})" if rank is not None else ""
            msg = (f"PID {pid}{r} also holds a {mib:.0f} MiB CUDA context on another GPU; select the device before any "
                   "CUDA work and load checkpoints with map_location")
            evidence = [f"{_proc_label(p, pid, rank)} computes on {_gpu_label(snap, home_uuid)} ({home_mib:.0f} MiB) "
                        f"and holds a context on {_gpu_label(snap, uuid)} ({mib:.0f} MiB)"]
            found[key3] = _finding("DSL905", msg, _path_for([p], base), Severity.WARNING, evidence)
    out = []
    for snap, groups, uuids in shared.values():
        by_pid = {p.pid: p for p in snap.processes}
        wmap = worlds(snap)
        desc = "; ".join(
            f"{w.describe()}: " + ", ".join(_proc_label(by_pid.get(pid), pid, wmap[pid][1]) for pid in sorted(set(pids)))
            for w, pids in groups.items()
        )
        gpus = " and ".join(_gpu_label(snap, u) for u in uuids)
        all_pids = sorted({pid for pids in groups.values() for pid in pids})
        msg = (f"{len(groups)} separate worlds share {len(uuids)} GPU{'s' if len(uuids) > 1 else ''}; start the job "
               "with one launcher, not a launcher plus the framework's own spawning")
        evidence = [f"{gpus} at t={snap.t:.0f}s: {desc}", f"process trees: {_tree_roots(snap, all_pids)}"]
        out.append(_finding("DSL901", msg, _path_for((by_pid.get(p) for p in all_pids), base), Severity.ERROR,
                            evidence))
    return out + list(found.values())


def _tree_roots(snap: Snapshot, pids: list[int]) -> str:
    """'PID 10 `python train.py` -> [10, 11]; PID 20 … -> [20, 21]': the top of each observed tree."""
    by_pid = {p.pid: p for p in snap.processes}
    tops: dict[int, list[int]] = {}
    for pid in pids:
        top = pid
        while by_pid.get(top) and by_pid[top].ppid in by_pid:
            top = by_pid[top].ppid
        tops.setdefault(top, []).append(pid)
    return "; ".join(f"{_proc_label(by_pid.get(t), t)} above {sorted(v)}" for t, v in tops.items())


# ---------------------------------------------------------------- CPU side


@dataclass
class CpuRates:
    """Per-process rates over the intervals in which its CPU optimizer library was loaded."""

    cores_busy: list[float] = field(default_factory=list)
    wait_per_run: list[float] = field(default_factory=list)

    def max_busy(self) -> Optional[float]:
        return max(self.cores_busy) if self.cores_busy else None

    def median_wait(self) -> Optional[float]:
        return statistics.median(self.wait_per_run) if self.wait_per_run else None


def cpu_rates(obs: Observation) -> dict[tuple[int, int], CpuRates]:
    """(pid, start_ticks) -> rates between consecutive snapshots, for processes with a CPU optimizer loaded."""
    rates: dict[tuple[int, int], CpuRates] = {}
    for a, b in zip(obs.snapshots, obs.snapshots[1:]):
        dt = b.t - a.t
        if dt < MIN_INTERVAL_S:
            continue
        before = {(p.pid, p.start_ticks): p for p in a.processes}
        for q in b.processes:
            p = before.get((q.pid, q.start_ticks))
            if p is None or not p.cpu_optimizer_libs:
                continue
            r = rates.setdefault((q.pid, q.start_ticks), CpuRates())
            busy = None
            if p.cpu_seconds is not None and q.cpu_seconds is not None:
                busy = (q.cpu_seconds - p.cpu_seconds) / dt
                r.cores_busy.append(busy)
            if busy is not None and busy >= BUSY_CORES_FOR_WAIT and None not in (p.run_ns, q.run_ns, p.wait_ns, q.wait_ns):
                drun = q.run_ns - p.run_ns  # type: ignore[operator]
                dwait = q.wait_ns - p.wait_ns  # type: ignore[operator]
                if drun > 0 and dwait >= 0:
                    r.wait_per_run.append(dwait / drun)
    return rates


def psi_share(obs: Observation) -> Optional[float]:
    """Median share of wall time in which some runnable task waited for a CPU (PSI "some"),
    over the intervals in which a CPU optimizer rank kept at least BUSY_CORES_FOR_WAIT cores busy."""
    shares = []
    for a, b in zip(obs.snapshots, obs.snapshots[1:]):
        dt = b.t - a.t
        if a.psi_cpu_some_us is None or b.psi_cpu_some_us is None or dt < MIN_INTERVAL_S:
            continue
        before = {(p.pid, p.start_ticks): p for p in a.processes if p.cpu_optimizer_libs and p.cpu_seconds is not None}
        busy = any(
            (q.cpu_seconds - before[(q.pid, q.start_ticks)].cpu_seconds) / dt >= BUSY_CORES_FOR_WAIT  # type: ignore[operator]
            for q in b.processes
            if (q.pid, q.start_ticks) in before and q.cpu_seconds is not None
        )
        if busy:
            shares.append((b.psi_cpu_some_us - a.psi_cpu_some_us) / 1e6 / dt)
    return statistics.median(shares) if shares else None


def _latest_optimizer_procs(obs: Observation) -> list[ProcessInfo]:
    """The last record of each process with a CPU optimizer loaded (command line and cwd from any record:
    an exiting process shows an empty one)."""
    latest: dict[tuple[int, int], ProcessInfo] = {}
    cmd: dict[tuple[int, int], tuple[list[str], Optional[str]]] = {}
    for s in obs.snapshots:
        for p in s.processes:
            k = (p.pid, p.start_ticks)
            if p.cmdline:
                cmd[k] = (p.cmdline, p.cwd)
            if p.cpu_optimizer_libs and not any(u.startswith("environ") for u in p.unreadable):
                latest[k] = p
    out = []
    for k, p in latest.items():
        if not p.cmdline and k in cmd:
            p = p.model_copy(update={"cmdline": cmd[k][0], "cwd": cmd[k][1]})
        out.append(p)
    return out


def _ranks_by_pid(obs: Observation) -> dict[int, RankReport]:
    return {r.pid: r for r in obs.ranks if r.host == obs.host.hostname}


def _overlap_groups(procs: list[tuple[int, set[int]]]) -> list[list[int]]:
    """Connected groups of processes whose affinities overlap (only groups of 2 or more)."""
    parent = {pid: pid for pid, _ in procs}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, (pa, ca) in enumerate(procs):
        for pb, cb in procs[i + 1:]:
            if ca & cb:
                parent[find(pa)] = find(pb)
    groups: dict[int, list[int]] = {}
    for pid, _ in procs:
        groups.setdefault(find(pid), []).append(pid)
    return [sorted(g) for g in groups.values() if len(g) >= 2]


def cpu_findings(obs: Observation) -> list[Finding]:
    """DSL903 oversubscribed and DSL904 starved CPU optimizer ranks."""
    out: list[Finding] = []
    rates = cpu_rates(obs)
    inproc = _ranks_by_pid(obs)
    # In-process reports also cover processes /proc did not show (another PID namespace).
    procs = {p.pid: p for p in _latest_optimizer_procs(obs)}
    cores_of: dict[int, set[int]] = {}
    threads_of: dict[int, Optional[int]] = {}
    label: dict[int, str] = {}
    rate_of: dict[int, CpuRates] = {}
    for pid, p in procs.items():
        rep = inproc.get(pid)
        cores_of[pid] = set(rep.affinity if rep and rep.affinity else (p.affinity or []))
        threads_of[pid] = rep.torch_threads if rep else None
        label[pid] = _proc_label(p, pid, p.env.get("RANK", p.env.get("LOCAL_RANK")))
        rate_of[pid] = rates.get((pid, p.start_ticks), CpuRates())
    for rep in obs.ranks:
        if rep.host == obs.host.hostname and rep.pid not in procs and rep.cpu_optimizer_libs:
            cores_of[rep.pid] = set(rep.affinity)
            threads_of[rep.pid] = rep.torch_threads
            label[rep.pid] = f"rank {rep.rank} (PID {rep.pid}, in-process report)"
            rate_of[rep.pid] = CpuRates()
    pids = sorted(cores_of)
    if not pids:
        return out
    share = psi_share(obs)
    psi_text = f"; some task waited for a CPU {share:.0%} of the time (PSI)" if share is not None else ""

    # DSL903: overlapping affinities, and proof that the cores are oversubscribed.
    for group in _overlap_groups([(pid, cores_of[pid]) for pid in pids if cores_of[pid]]):
        union = set().union(*(cores_of[p] for p in group))
        known = [threads_of[p] for p in group]
        budget_proof = None not in known and sum(known) > len(union)  # type: ignore[arg-type]
        waits = {p: rate_of[p].median_wait() for p in group}
        measured = [w for w in waits.values() if w is not None]
        wait_proof = len(measured) >= 2 and sum(w > WAIT_RUN_OVERSUBSCRIBED for w in measured) >= 2
        if not (budget_proof or wait_proof):
            continue
        details = []
        for p in group:
            bits = [f"affinity {format_cpu_list(cores_of[p])}"]
            if threads_of[p] is not None:
                bits.append(f"{threads_of[p]} torch threads")
            omp = procs[p].env.get("OMP_NUM_THREADS") if p in procs else None
            bits.append(f"OMP_NUM_THREADS={omp}" if omp else "OMP_NUM_THREADS unset at exec")
            if waits[p] is not None:
                bits.append(f"run-queue wait/run {waits[p]:.2f}")
            details.append(f"{label[p]} ({', '.join(bits)})")
        per_rank = max(1, len(union) // len(group))
        why = []
        if budget_proof:
            why.append(f"{sum(known)} compute threads on {len(union)} cores")  # type: ignore[arg-type]
        if wait_proof:
            why.append("its threads wait for a core longer than they run")
        msg = (f"{len(group)} ranks run a CPU optimizer on shared cores ({why[0]}); give each its own: "
               f"OMP_NUM_THREADS={per_rank} or deepspeed --bind_cores_to_rank")
        evidence = [f"{'; '.join(why)}{psi_text}", *details]
        out.append(_finding("DSL903", msg, _path_for((procs.get(p) for p in group), obs.cwd), Severity.WARNING,
                            evidence))

    # DSL904: a CPU optimizer rank at one thread, with idle cores it may use.
    starved = []
    for pid in pids:
        rep = inproc.get(pid)
        env_one = pid in procs and procs[pid].env.get("OMP_NUM_THREADS") == "1"
        busy = rate_of[pid].max_busy()
        if rep is not None and rep.torch_threads is not None:
            one = rep.torch_threads == 1
        else:
            # The environment alone is not proof (the script may call torch.set_num_threads): need the measurement.
            one = env_one and busy is not None and busy <= STARVED_MAX_CORES_BUSY
        if not one:
            continue
        sharing = [q for q in pids if cores_of[q] & cores_of[pid]] or [pid]
        per_rank = len(set().union(*(cores_of[q] for q in sharing))) // len(sharing)
        if per_rank < 2:
            continue
        starved.append((pid, per_rank, busy))
    if starved:
        per_rank = min(s[1] for s in starved)
        details = "; ".join(
            f"{label[pid]} ({'at most %.1f cores busy' % busy if busy is not None else 'torch threads 1'}, "
            f"{format_cpu_list(cores_of[pid])} allowed)"
            for pid, _, busy in starved
        )
        launcher = ""
        cmd = " ".join(obs.command or [])
        if "torchrun" in cmd or "torch.distributed.run" in cmd or "torch.distributed.launch" in cmd:
            launcher = " (torchrun sets OMP_NUM_THREADS=1)"
        msg = (f"{len(starved)} rank(s) run a CPU optimizer on one thread with {per_rank} cores each free{launcher}; "
               f"set OMP_NUM_THREADS={per_rank} in front of the launcher")
        evidence = [details + psi_text]
        out.append(_finding("DSL904", msg, _path_for((procs.get(p) for p, _, _ in starved), obs.cwd), Severity.WARNING,
                            evidence))
    return out


def rank_report_findings(obs: Observation) -> list[Finding]:
    """DSL902 from the in-process reports: two ranks of one world report the same device UUID."""
    out: list[Finding] = []
    seen: dict[tuple, list[RankReport]] = {}
    for r in obs.ranks:
        if r.device_uuid:
            seen.setdefault((r.master_addr, r.master_port, r.world_size, r.host, r.device_uuid), []).append(r)
    for (_, port, _, host, uuid), reps in seen.items():
        if len(reps) < 2:
            continue
        who = ", ".join(f"rank {r.rank} (PID {r.pid}, current_device {r.current_device})" for r in reps)
        msg = (f"{len(reps)} ranks of one world report the same GPU; call torch.cuda.set_device(local_rank) before "
               "any CUDA work")
        evidence = [f"MASTER_PORT {port}, GPU {uuid} on {host}: {who} (in-process report)"]
        out.append(_finding("DSL902", msg, PROBE_PATH, Severity.ERROR, evidence))
    return out


def findings(obs: Observation) -> list[Finding]:
    """All probe findings for one observation, deduplicated (in-process DSL902 only when NVML did not show it)."""
    gpu = gpu_findings(obs)
    cpu = cpu_findings(obs)
    if any(f.code == "DSL901" for f in gpu):
        for f in cpu:
            if f.code == "DSL903":
                _note(f, "the extra world of DSL901 brings its own threads here: fix the launch first")
    out = gpu + cpu
    if not any(f.code == "DSL902" for f in gpu):
        out += rank_report_findings(obs)
    return out


# ---------------------------------------------------------------- explanations from static findings

# Which static findings (code prefixes) can explain which probe finding. The CPU side names single
# rules: DSL203 (pinned memory) is in the same family as DSL201 but explains no thread problem.
EXPLAINED_BY = {
    "DSL901": ("DSL701", "DSL702", "DSL108"),  # double launch, launcher/framework mismatch, spawn under a launcher
    "DSL902": ("DSL1",),  # device placement
    "DSL905": ("DSL1",),
    "DSL903": ("DSL201", "DSL204"),  # CPU offload without a core budget, loader workers over cores
    "DSL904": ("DSL202",),  # CPU offload starved by the launcher's OMP_NUM_THREADS=1
}


def _same_file(a: str, b: str) -> bool:
    import os.path

    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.basename(a) == os.path.basename(b)


def _launches(launch_file: str, scripts: list[str]) -> bool:
    """Whether a launch file (shell, sbatch) names one of these scripts: its launch line starts it."""
    names = {os.path.basename(w) for w in scripts if w.endswith(".py")}
    if not names or launch_file.endswith(".py"):
        return False
    try:
        with open(launch_file, encoding="utf-8", errors="replace") as f:
            text = f.read(200_000)
    except OSError:
        return False
    # The name as a word of its own: `train.py` must not match `ds_train.py`.
    return any(re.search(r"(?:^|[\s/'\"=])" + re.escape(n) + r"(?:$|[\s'\";&|)])", text, re.M) for n in names)


def explain(probe_finding: Finding, static_findings: list[Finding], paths: Iterable[str] = ()) -> Optional[str]:
    """The static finding that explains a probe finding, as 'launch.sh:4 DSL701 …', or None."""
    s = explaining(probe_finding, static_findings, paths)
    return f"{s.path}:{s.span.start.row} {s.code} {s.message}" if s is not None else None


def explaining(probe_finding: Finding, static_findings: list[Finding], paths: Iterable[str] = ()) -> Optional[Finding]:
    """The static finding that explains a probe finding, or None.

    A static finding explains it when its code starts with one of the prefixes in EXPLAINED_BY and
    it is about the same files: its path (or a related path) is the probe finding's path or one of
    `paths` (the files the observed job ran), or it is a launch file that starts one of those scripts.
    """
    prefixes = EXPLAINED_BY.get(probe_finding.code, ())
    wanted = [p for p in [probe_finding.path, *paths] if p and p != PROBE_PATH]
    for s in sorted(static_findings, key=lambda f: f.sort_key()):
        if not s.code.startswith(prefixes):
            continue
        about = [s.path, *(r[0] for r in s.related)]
        if any(_same_file(a, w) for a in about for w in wanted) or _launches(s.path, wanted):
            return s
    return None


def observed_paths(obs: Observation) -> list[str]:
    """Files the observed job ran: its command's arguments and each process's script."""
    paths: list[str] = []
    for a in obs.command or []:
        if "/" in a or "." in a:
            paths.append(a)
    for s in obs.snapshots:
        for p in s.processes:
            sc = script_of(p.cmdline)
            if sc and sc not in paths:
                paths.append(sc)
    return paths


def attach_explanations(found: list[Finding], static_findings: list[Finding], obs: Observation) -> list[Finding]:
    """Where a static finding explains a probe finding, the probe message says so in place of its
    advice ('...; explained by launch.sh:4 DSL701'): the static finding, a note at its place, says
    what to change there, and the probe's own advice becomes a note."""
    paths = observed_paths(obs)
    for f in found:
        s = explaining(f, static_findings, paths)
        if s is not None:
            observed, _, advice = f.message.rpartition("; ")
            if advice and observed:
                _note(f, advice)
            f.message = f"{observed or f.message}; explained by {file_label(s.path, 24)}:{s.span.start.row} {s.code}"
            f.related.append((s.path, s.span, f"{s.code}: {s.message}"))
    return found
