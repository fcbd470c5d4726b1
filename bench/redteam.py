#!/usr/bin/env python3
"""Red-team setups: small realistic projects written to find what dslint misses or gets wrong.

    .venv/bin/python bench/redteam.py [--round N] [--verbose]

Each folder of bench/redteam/roundN/ is a project (training script, the modules it imports, a
DeepSpeed config or one built in code, the launch layer) with an EXPECTED file: its first line is
the codes dslint should report (or "clean"), the rest says why, citing the rule docs. The script
checks each folder (`dslint check DIR --no-cache -o json`) and prints, per round, how many match,
then every setup that does not (expected, got). Not a test: these setups were written against the
rules as they were, by people who could read them; the hidden sets dslint is judged on are
written in other shapes, so a round that passes is a floor, not a measure.

Rounds (2026-12-01): 1: 36 setups (facts in other modules, values through names, Slurm/accelerate
worlds); 2: 53 (framework front ends, configs as dicts, shell functions, class hierarchies);
3: 37 (module launches, packages and re-exports, FSDP2/DeviceMesh, accelerate-built configs);
4: 34 (configs merged or loaded at runtime, CLI frameworks, pipeline parallelism, heterogeneous
Slurm jobs); 5: 50 (the stage after the facts of round 4); 6: 60 (values through returned dicts and
dataclass instances, helpers that receive the engine or model, YAML and Hydra-node configs, CPU-only
spawned workers); 7: 28 (config dicts merged with `**`/`.update`, framework subclasses, registries,
`functools.partial`, `os.environ.update`, OmegaConf containers): 13/28 at first contact, 19/28 after
the session of 2026-12-02; 8 (2026-12-02): 24 (14 broken, 10 clean: src/ layouts, Slurm per-task GPUs,
Fabric settings dataclasses, grad-off factories chosen at run time), 18/24 at first contact, 23/24 after;
9 (2026-12-02): 24 (13 broken, 11 clean: ml_collections configs, hooks dispatched by getattr, configs
generated with json.dump by a Makefile prerequisite, Ray actors made with ray.remote(...)(Cls), project
grad-off decorators and context managers), 14/24 at first contact; 10 (2026-12-03): 24 (14 broken, 10
clean: Hydra config groups, a CUDA_VISIBLE_DEVICES pin in an imported module, helpers that freeze or
turn autograd off in utils/, a DPO reference handed to a trainer class, DeepSpeedPlugin(**KW) in an
accelerator factory, Slurm thread arithmetic, LightningCLI class_path strategies), 19/24 at first contact; 11 (2026-12-03): 24 (14 broken, 10 clean:
config objects handed to loader factories, Makefile recipe lines as separate shells, .deepspeed_env on
multi-host launches, `case` arms choosing the GPU count and config together, CUDA started by a helper
before a fork, collectives in a context manager's __exit__, sibling trainer mixins, YAML-configured
workers, deep-merged configs), 13/24 at first contact, 22/24 after; 12 (2026-12-03): 24 (14 broken, 10 clean:
mmcv-style master_only trainers, EMA teachers, per-rank Dataset shards, checkpoint helpers with a GPU
map_location, DeepSpeed-Chat-style config functions, sourced env scripts, --no_ssh k8s entrypoints, HF
Trainer worker counts on srun lines), 11/24 at first contact, 16/24 after; 13 (2026-12-03): 24 (14 broken, 10 clean:
FSDP device_id from a dataclass built by a classmethod, a helper pinning CUDA_VISIBLE_DEVICES per spawn worker,
decorator-filled dataset registries, parsers built in a get_args() helper, teachers returned by a loader of another
module, Slurm worker counts through a config handed to a factory), 16/24 at first contact, 22/24 after; 14 (2026-12-03): 24 (14 broken, 10
clean: src/<pkg> libraries run with `python -m pkg.train`, trainers assembled from mixins, YAML configs read by
helpers, helpers called through module attributes, DETR/MAE-style research code with init_distributed_mode and misc
helpers, sbatch launches), 15/24 at first contact.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "redteam"


def codes_of(setup: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "dslint", "check", str(setup), "--no-cache", "-o", "json",
                           "--exit-zero"], capture_output=True, text=True)
    try:
        findings = json.loads(done.stdout or "[]")
    except ValueError:
        return f"error: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'no output'}"
    return " ".join(sorted({f["code"] for f in findings})) or "clean"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", type=int, help="only this round")
    parser.add_argument("--verbose", action="store_true", help="print every setup, not only the ones that differ")
    ns = parser.parse_args()
    for folder in sorted(HERE.glob("round*")):
        if ns.round is not None and folder.name != f"round{ns.round}":
            continue
        setups = sorted(p for p in folder.iterdir() if (p / "EXPECTED").is_file())
        differ = []
        for setup in setups:
            expected = " ".join(sorted((setup / "EXPECTED").read_text().splitlines()[0].split()))
            got = codes_of(setup)
            if got != expected:
                differ.append((setup.name, expected, got))
            if ns.verbose:
                print(f"  {setup.name:5} {'ok' if got == expected else 'DIFF':4} expected={expected} got={got}")
        print(f"{folder.name}: {len(setups) - len(differ)}/{len(setups)} as expected")
        for name, expected, got in differ:
            print(f"  {name:5} expected={expected:20} got={got}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
