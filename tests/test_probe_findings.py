"""Probe rules on observations recorded on 2 x H200 (tests/fixtures/probe, see bench/RESULTS.md)."""
import json
from pathlib import Path

import pytest

from dslint.model import Finding, Location, Span
from dslint.probe.collective import CollectiveResult, collective_findings
from dslint.probe.findings import attach_explanations, explain, findings
from dslint.probe.observe import Gpu, GpuProcess, Host, Observation, ProcessInfo, Snapshot

FIX = Path(__file__).parent / "fixtures" / "probe"


def load(name: str) -> Observation:
    return Observation.model_validate_json((FIX / f"{name}.json").read_text())


def codes(obs: Observation) -> list[str]:
    return sorted(f.code for f in findings(obs))


def told(f: Finding) -> str:
    """The message and the notes with what the probe observed (PIDs, GPUs, threads)."""
    return " | ".join([f.message, *(note for _, _, note in f.related)])


@pytest.mark.parametrize("name", ["ds_bind", "tr_omp16", "l_string", "l_pinned", "l_bound", "l_pid", "idle"])
def test_fixed_and_bound_setups_have_no_finding(name):
    assert codes(load(name)) == []


def test_double_launch_is_one_finding_naming_both_worlds_and_both_gpus():
    obs = load("l_double")
    found = [f for f in findings(obs) if f.code == "DSL901"]
    assert len(found) == 1
    assert found[0].message.startswith("2 separate worlds share 2 GPUs; start the job with one launcher")
    msg = told(found[0])
    ports = {p.env["MASTER_PORT"] for s in obs.snapshots for p in s.processes if "MASTER_PORT" in p.env}
    assert len(ports) == 2
    for port in ports:
        assert f"MASTER_PORT {port}" in msg
    for gpu in obs.snapshots[-1].gpus:
        assert gpu.uuid in msg
    assert "launch.sh" in msg  # the tree above both worlds
    assert found[0].path == "examples/probe_double_launch/train.py"  # relative to where the probe ran


def test_double_launch_threads_oversubscribe_from_the_in_process_report():
    f = [f for f in findings(load("l_double")) if f.code == "DSL903"]
    assert len(f) == 1
    assert "64 compute threads on 32 cores" in f[0].message
    assert "fix the launch first" in told(f[0])


def test_double_launch_without_in_process_report_says_nothing_about_threads():
    # The measured run-queue wait there (0.33-0.38) is below the threshold: no proof, no finding.
    obs = load("l_double")
    obs.ranks = []
    assert codes(obs) == ["DSL901"]


def test_deepspeed_launcher_without_binding_oversubscribes():
    f = findings(load("ds_free"))
    assert [x.code for x in f] == ["DSL903"]
    assert f[0].path == "examples/probe_double_launch/ds_train.py"
    assert "OMP_NUM_THREADS=16" in f[0].message


def test_oversubscription_is_proven_by_run_queue_wait_alone():
    obs = load("ds_free")
    obs.ranks = []
    f = findings(obs)
    assert [x.code for x in f] == ["DSL903"]
    assert "wait for a core longer than they run" in f[0].message


def test_torchrun_default_threads_starve_cpu_adam():
    f = findings(load("tr_omp1"))
    assert [x.code for x in f] == ["DSL904"]
    assert "torchrun sets OMP_NUM_THREADS=1" in f[0].message
    assert "OMP_NUM_THREADS=16" in f[0].message


def test_starvation_from_environment_needs_the_measurement():
    obs = load("tr_omp1")
    obs.ranks = []
    assert codes(obs) == ["DSL904"]  # OMP_NUM_THREADS=1 at exec and at most ~1 core busy
    obs.snapshots = obs.snapshots[-1:]  # one snapshot: no rate, environment alone is no proof
    assert codes(obs) == []


def test_bound_ranks_with_disjoint_affinity_are_fine_even_with_many_threads():
    obs = load("ds_bind")
    for r in obs.ranks:
        r.torch_threads = 64  # disjoint affinities: no overlap group, nothing to flag
    assert codes(obs) == []


# ---- synthetic snapshots for what the recorded runs did not show


def _obs(gpus, procs):
    return Observation(host=Host(hostname="h", logical_cpus=32), snapshots=[Snapshot(t=0, duration_s=0.01, gpus=gpus, processes=procs)])


def _rank(pid, ppid, rank, port="29500"):
    return ProcessInfo(pid=pid, ppid=ppid, cmdline=["python", "train.py"],
                       env={"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": "2", "MASTER_PORT": port})


def test_stray_context_is_dsl905_not_a_second_world():
    gpus = [Gpu(index=0, uuid="GPU-a", processes=[GpuProcess(pid=10, used_memory_mib=1634), GpuProcess(pid=11, used_memory_mib=520)]),
            Gpu(index=1, uuid="GPU-b", processes=[GpuProcess(pid=11, used_memory_mib=1634)])]
    f = findings(_obs(gpus, [_rank(10, 1, 0), _rank(11, 1, 1)]))
    assert [x.code for x in f] == ["DSL905"]
    assert f[0].message.startswith("PID 11 (rank 1) also holds a 520 MiB CUDA context on another GPU")
    assert "GPU 0 (GPU-a) (520 MiB)" in told(f[0])


def test_two_ranks_of_one_world_on_one_gpu():
    gpus = [Gpu(index=0, uuid="GPU-a", processes=[GpuProcess(pid=10, used_memory_mib=9000), GpuProcess(pid=11, used_memory_mib=9000)]),
            Gpu(index=1, uuid="GPU-b")]
    f = findings(_obs(gpus, [_rank(10, 1, 0), _rank(11, 1, 1)]))
    assert [x.code for x in f] == ["DSL902"]


def test_process_on_two_gpus_without_memory_numbers_is_not_judged():
    gpus = [Gpu(index=0, uuid="GPU-a", processes=[GpuProcess(pid=10), GpuProcess(pid=11)]),
            Gpu(index=1, uuid="GPU-b", processes=[GpuProcess(pid=11)])]
    assert codes(_obs(gpus, [_rank(10, 1, 0, "1"), _rank(11, 1, 1, "2")])) == []


def test_unreadable_environment_is_not_taken_for_a_separate_job():
    gpus = [Gpu(index=0, uuid="GPU-a", processes=[GpuProcess(pid=10, used_memory_mib=9000), GpuProcess(pid=11, used_memory_mib=9000)])]
    other = ProcessInfo(pid=11, ppid=1, unreadable=["environ: permission denied"])
    assert codes(_obs(gpus, [_rank(10, 1, 0), other])) == []


# ---- explanations


def _static(code, path, row=4):
    return Finding(code=code, message="mpirun starts a script whose Trainer spawns its own ranks", path=path,
                   span=Span(Location(row, 1), Location(row, 20)))


def test_static_launch_finding_explains_the_double_launch():
    obs = load("l_double")
    found = [f for f in findings(obs) if f.code == "DSL901"]
    static = [_static("DSL101", "examples/probe_double_launch/train.py"), _static("DSL702", "examples/probe_double_launch/launch.sh")]
    attach_explanations(found, static, obs)
    assert found[0].message == "2 separate worlds share 2 GPUs; explained by launch.sh:4 DSL702"
    assert ("examples/probe_double_launch/launch.sh", 4) in [(p, s.start.row) for p, s, _ in found[0].related]


def _real_static():
    """`dslint check examples/probe_double_launch --output-format json`, recorded."""
    from dslint.probe.cli import _load_static

    return _load_static(str(FIX / "static_examples.json"))


@pytest.mark.parametrize("name, code, by", [
    ("l_double", "DSL901", "examples/probe_double_launch/train.py:13 DSL701"),
    ("ds_free", "DSL903", "examples/probe_double_launch/launch_deepspeed.sh:6 DSL201"),
    ("tr_omp1", "DSL904", "examples/probe_double_launch/launch_torchrun.sh:5 DSL202"),
])
def test_recorded_static_findings_explain_the_probe(name, code, by, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # launch files are read to see what they start
    obs = load(name)
    found = next(f for f in attach_explanations(findings(obs), _real_static(), obs) if f.code == code)
    path, row_code = by.split(":")
    assert found.message.endswith(f"; explained by {path.rsplit('/', 1)[-1]}:{row_code}")
    assert len(found.message) <= 160
    assert any(p == path and f"{s.start.row} {note.split(':')[0]}" == row_code for p, s, note in found.related)


def test_pinned_memory_and_a_launch_file_of_another_script_explain_no_thread_problem(monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    obs = load("l_double")  # DSL203 is on train.py; launch_deepspeed.sh starts ds_train.py, not train.py
    f = next(f for f in attach_explanations(findings(obs), _real_static(), obs) if f.code == "DSL903")
    assert "explained by" not in f.message


def test_no_explanation_from_another_family_or_file():
    f = findings(load("ds_free"))[0]
    assert explain(f, [_static("DSL702", "examples/probe_double_launch/ds_train.py")]) is None
    assert explain(f, [_static("DSL201", "other/train.py")]) is None
    assert explain(f, [_static("DSL201", "examples/probe_double_launch/ds_train.py", 7)]).startswith(
        "examples/probe_double_launch/ds_train.py:7 DSL201")


# ---- collective


def test_collective_on_nvlink_is_clean_and_each_rank_on_its_own_gpu():
    res = CollectiveResult.model_validate(json.loads((FIX / "collective.json").read_text()))
    assert res.link.kind == "nvlink" and len({r.uuid for r in res.ranks}) == res.world_size == 2
    assert collective_findings(res) == []


def test_collective_below_pcie_on_nvlink_and_shared_gpu_are_flagged():
    res = CollectiveResult.model_validate(json.loads((FIX / "collective.json").read_text()))
    for s in res.sizes:
        s.busbw_gbps = 20.0
    res.ranks[1].uuid = res.ranks[0].uuid
    assert sorted(f.code for f in collective_findings(res)) == ["DSL902", "DSL906"]


class _FakeNv:
    """What link_info asks NVML, as the 2 x H200 machine answered (18 NVLink 4.0 links each, PCIe gen5 x16)."""

    NVML_NVLINK_MAX_LINKS = 18
    NVML_P2P_CAPS_INDEX_NVLINK = 3

    def __init__(self, links):
        self.links = links

    def nvmlDeviceGetNvLinkState(self, h, link):
        if link >= self.links:
            raise RuntimeError("Invalid Argument")
        return 1

    def nvmlDeviceGetNvLinkVersion(self, h, link):
        return 6

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h):
        return 5

    def nvmlDeviceGetCurrPcieLinkWidth(self, h):
        return 16

    def nvmlDeviceGetP2PStatus(self, a, b, idx):
        return 0 if self.links else 4


class _FakeNvml:
    def __init__(self, links):
        self.nv = _FakeNv(links)
        self.handles = [0, 1]


def test_link_info_reads_nvlink_generation_from_nvmls_enum():
    from dslint.probe.collective import link_info

    info = link_info(_FakeNvml(18))
    assert (info.kind, info.nvlink_active_links, info.nominal_gbps) == ("nvlink", [18, 18], 450.0)
    pcie = link_info(_FakeNvml(0))
    assert (pcie.kind, pcie.pcie, pcie.nominal_gbps) == ("pcie", ["gen5 x16", "gen5 x16"], 63.0)
