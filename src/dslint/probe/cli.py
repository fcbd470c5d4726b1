"""`dslint probe`: argument parsing and output. Mount with `probe_main(args) -> exit code`.

    dslint probe                         snapshot of this machine's GPU processes (--seconds, default 3)
    dslint probe --pid PID               watch a running job without touching it
    dslint probe [--seconds 20] -- CMD…  start CMD, watch it, stop everything it started
    dslint probe --collective            one process per GPU: placement and NCCL all-reduce bandwidth
    dslint probe --observation FILE      findings from a saved observation (no GPU needed)

Exit codes: 0 nothing found, 1 findings, 2 something could not be observed or a usage error.
"""
from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Optional, TextIO

from dslint.model import Finding, Location, Span

if TYPE_CHECKING:
    import argparse

FORMATS = ("full", "concise", "json", "sarif", "github")
VALUED = {"--seconds", "--interval", "--pid", "--grace", "--output-format", "-o", "--save-observation", "--observation",
          "--ranks-json", "--static-json", "--timeout"}
FLAGS = {"--collective", "-h", "--help"}


def split_command(args: list[str]) -> tuple[list[str], list[str]]:
    """(probe options, launch command). The command starts after `--`, or, where a caller dropped the
    `--` (click does), at the first word that is neither one of our options nor an option's value."""
    if "--" in args:
        i = args.index("--")
        return args[:i], args[i + 1:]
    i = 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if name in VALUED:
            i += 1 if "=" in a else 2
        elif a in FLAGS or a.startswith("-"):
            i += 1  # an unknown option stays with ours: argparse reports it
        else:
            break
    return args[:i], args[i:]


def _parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(prog="dslint probe", description="Short runtime checks on the GPU machine.")
    p.add_argument("--seconds", type=float, default=None, help="how long to watch (default 20 with a command, else 3)")
    p.add_argument("--interval", type=float, default=1.0, help="seconds between snapshots (default 1)")
    p.add_argument("--pid", type=int, default=None, help="watch this running process and its descendants")
    p.add_argument("--collective", action="store_true", help="NCCL all-reduce, one process per GPU")
    p.add_argument("--grace", type=float, default=5.0, help="seconds between SIGTERM and SIGKILL when stopping the job")
    p.add_argument("--output-format", "-o", choices=FORMATS, default="full")
    p.add_argument("--save-observation", metavar="FILE", help="write the observation as JSON")
    p.add_argument("--observation", metavar="FILE", help="read a saved observation instead of observing")
    p.add_argument("--ranks-json", metavar="FILE", help="in-process reports written by the job (with --pid or a snapshot)")
    p.add_argument("--static-json", metavar="FILE", help="`dslint check --output-format json` output, to explain probe findings")
    p.add_argument("--timeout", type=float, default=60.0, help="limit for --collective (default 60 s)")
    p.add_argument("command", nargs="*", help="the launch command, after --")
    return p


def _err(msg: str) -> None:
    print(f"dslint probe: {msg}", file=sys.stderr)


def probe_main(args: list[str]) -> int:
    """Run `dslint probe` with these arguments (everything after `probe`); return the exit code."""
    from dslint.probe.observe import Observation, ObservationError  # noqa: PLC0415

    opts, cmd = split_command(list(args))
    parser = _parser()
    try:
        ns = parser.parse_args(opts)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    cmd = cmd or ns.command
    modes = sum(bool(x) for x in (cmd, ns.pid is not None, ns.collective, ns.observation))
    if modes > 1:
        _err("choose one of: a command after --, --pid, --collective, --observation")
        return 2
    try:
        if ns.collective:
            return _collective(ns)
        if ns.observation:
            with open(ns.observation) as f:
                obs = Observation.model_validate_json(f.read())
        else:
            from dslint.probe import runner  # noqa: PLC0415

            if cmd:
                obs = runner.watch_command(cmd, seconds=ns.seconds or 20.0, interval=ns.interval, grace_s=ns.grace)
            elif ns.pid is not None:
                obs = runner.watch_pid(ns.pid, seconds=ns.seconds or 3.0, interval=ns.interval, ranks_json=ns.ranks_json)
            else:
                obs = runner.watch_machine(seconds=ns.seconds or 3.0, interval=ns.interval, ranks_json=ns.ranks_json)
    except ObservationError as e:
        _err(str(e))
        return 2
    except KeyboardInterrupt:
        _err("interrupted; the job's processes were stopped")
        return 2
    except OSError as e:
        _err(f"could not read {getattr(e, 'filename', '') or 'a file'} because {e.strerror or e}")
        return 2
    except Exception as e:
        if type(e).__name__ != "Interrupted":  # runner.Interrupted: the probe got SIGTERM/SIGHUP
            raise
        _err(f"stopped by {e}; the job's processes were stopped")
        return 2
    if ns.save_observation:
        with open(ns.save_observation, "w") as f:
            f.write(obs.model_dump_json(indent=1))
    return _report(obs, ns)


def _load_static(path: Optional[str]) -> list[Finding]:
    """Findings from ruff-style JSON (`dslint check --output-format json`)."""
    if not path:
        return []
    with open(path) as f:
        data = json.load(f)
    out = []
    for d in data:
        loc = d.get("location") or {"row": 1, "column": 1}
        end = d.get("end_location") or loc
        span = Span(Location(loc["row"], loc["column"]), Location(end["row"], end["column"]))
        related = [(r["filename"], span, r.get("message", "")) for r in d.get("related") or [] if isinstance(r, dict) and r.get("filename")]
        out.append(Finding(code=d["code"], message=d.get("message", ""), path=d.get("filename", ""), span=span, related=related))
    return out


def _summary(obs) -> str:
    import statistics

    durs = [s.duration_s for s in obs.snapshots]
    procs = {p.pid for s in obs.snapshots for p in s.processes}
    gpu_procs = {p.pid for s in obs.snapshots for g in s.gpus for p in g.processes}
    gpus = len(obs.snapshots[-1].gpus) if obs.snapshots else 0
    t = f"{len(durs)} snapshots, {statistics.median(durs) * 1000:.0f} ms median / {max(durs) * 1000:.0f} ms max each" if durs else "no snapshot"
    extra = f", in-process reports from {len(obs.ranks)} ranks" if obs.ranks else ""
    code = f", job exit code {obs.job_exit_code}" if obs.job_exit_code is not None else ""
    return f"observed {gpus} GPUs, {len(gpu_procs)} GPU processes, {len(procs)} processes; {t}{extra}{code}"


def _report(obs, ns) -> int:
    from dslint.probe.findings import attach_explanations, findings  # noqa: PLC0415

    found = findings(obs)
    attach_explanations(found, _load_static(ns.static_json), obs)
    _err(_summary(obs))
    for u in obs.unobserved:
        _err(u)
    render(found, ns.output_format, sys.stdout)
    if found:
        return 1
    return 2 if obs.unobserved else 0


def _collective(ns) -> int:
    from dslint.probe.collective import collective_findings, nvlink_generation, run_collective  # noqa: PLC0415

    res = run_collective(timeout_s=ns.timeout)
    if ns.save_observation:
        with open(ns.save_observation, "w") as f:
            f.write(res.model_dump_json(indent=1))
    link = res.link
    gen = nvlink_generation(link.nvlink_version) if link else "?"
    lk = f"{link.kind}" + (f" {gen}, {min(link.nvlink_active_links)} links" if link.kind == "nvlink" else "") if link else "?"
    nominal = f", nominal {link.nominal_gbps:.0f} GB/s per direction" if link and link.nominal_gbps else ""
    _err(f"collective: {res.world_size} ranks in {res.seconds:.1f} s, link {lk}{nominal}, NCCL {res.nccl_version}")
    for r in res.ranks:
        _err(f"  rank {r.rank} pid {r.pid} -> cuda:{r.device} {r.uuid}")
    for s in res.sizes:
        _err(f"  all-reduce {s.size_bytes >> 20:>4} MiB: {s.time_us:9.1f} us, algbw {s.algbw_gbps:7.1f} GB/s, busbw {s.busbw_gbps:7.1f} GB/s")
    found = collective_findings(res)
    render(found, ns.output_format, sys.stdout)
    return 1 if found else 0


def render(found: list[Finding], fmt: str, out: TextIO, texts: Optional[dict[str, str]] = None) -> None:
    """The shared reporters (dslint.report.render; `texts` maps a path to its text for code frames);
    a local JSON/concise printer where they are missing (a GPU machine with only the probe's wheels)."""
    try:
        from dslint.report import render as shared_render  # noqa: PLC0415
    except ImportError:
        shared_render = None
    if shared_render is not None:
        shared_render(found, fmt, out, texts)
        return
    found = sorted(found, key=lambda f: f.sort_key())
    if fmt in ("json", "sarif"):
        json.dump([_json(f) for f in found], out, indent=2)
        out.write("\n")
        return
    for f in found:
        out.write(f"{f.path}:{f.span.start.row}:{f.span.start.column}: {f.code} {f.message}\n")


def _json(f: Finding) -> dict:
    return {
        "code": f.code,
        "message": f.message,
        "filename": f.path,
        "location": {"row": f.span.start.row, "column": f.span.start.column},
        "end_location": {"row": f.span.end.row, "column": f.span.end.column},
        "fix": None,
        "url": None,
        "severity": f.severity.value,
        "name": f.name,
    }


try:  # `dslint probe …` through the main typer app (dslint.cli mounts `probe_app`)
    import typer as _typer
except ImportError:  # pragma: no cover - the probe alone runs without typer: python -m dslint.probe.cli
    _typer = None

if _typer is not None:

    def probe_app(ctx: _typer.Context) -> None:
        """Short runtime checks on the GPU machine: processes per GPU, worlds, ranks, threads, cores.

        dslint probe [--seconds S] [--pid PID | --collective | --observation FILE] [--output-format F] [-- CMD ...]
        (`python -m dslint.probe.cli --help` lists every option.)
        """
        raise _typer.Exit(probe_main(list(ctx.args)))


def main() -> None:  # `python -m dslint.probe.cli …`
    sys.exit(probe_main(sys.argv[1:]))


if __name__ == "__main__":
    main()
