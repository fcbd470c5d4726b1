"""dslint's DeepSpeed config verdicts against DeepSpeed's own DeepSpeedConfig.

Every config of the shared corpus (with "auto" filled the way the HF Trainer does) and every
generated mutation (typo'd keys at each level, misplaced blocks, bad types and values, removed
keys) is parsed by the installed DeepSpeed and checked by dsconfig_schema.validate_config.
The verdicts must agree: DeepSpeed raises exactly when dslint reports a `fatal` problem, and
the key DeepSpeed names is one dslint names. Where dslint reports more than DeepSpeed (keys
DeepSpeed silently ignores), the situation must be one of SILENTLY_IGNORED_BUT_FLAGGED.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dslint.dsconfig_schema import is_supported, resolve_version, validate_config
from dslint.dsconfig_schema.models import schemas, section_models
from dslint.dsconfig_schema.tables import hf_auto, toplevel

CORPUS = Path(__file__).parents[2] / "shared" / "corpus" / "ds_configs"
GENERATOR = Path(__file__).parents[1] / "dev" / "gen_dsconfig_tables.py"

# Deliberate disagreements: DeepSpeed parses these without a word; dslint reports them
# (never as fatal) because each one silently changes what the job does.
SILENTLY_IGNORED_BUT_FLAGGED = {
    ("unknown-key", "top-level"): "top-level keys are read with dict.get, so a typo is silently ignored "
    "(research S1; deepspeed#653, #1935)",
    ("misplaced-key", "top-level"): "an offload block or ZeRO key at the top level does nothing (deepspeed#1935)",
    ("unknown-key", "loose-section"): "optimizer/scheduler/aio/activation_checkpointing/... are read with "
    "dict.get: a typo inside them is silently ignored",
    ("misplaced-key", "loose-section"): "same, for a key that belongs in another section",
    ("removed-key", "loose-section"): "aio.thread_count was renamed intra_op_parallelism in v0.16.4 and is ignored",
    ("auto-not-filled", "strict-section"): "DeepSpeedConfigModel drops 'auto' and the field silently takes its "
    "default (stage 'auto' -> 0, research S6)",
    ("unknown-key", "strict-section"): "an unknown key whose value is 'auto' is dropped before pydantic sees it",
    ("auto-not-filled", "top-level"): "'auto' in gradient_clipping passes parsing and fails in engine.step "
    "(deepspeed#1270)",
    ("auto-not-filled", "loose-section"): "'auto' in optimizer/scheduler params reaches the constructor and fails "
    "when the engine builds it",
    ("bad-type", "top-level"): "top-level scalars are not type-checked: a string where a bool belongs counts as true",
    ("deprecated-key", "top-level"): "'bfloat16' is only the legacy spelling of 'bf16' (ignored when both exist)",
    ("deprecated-key", "strict-section"): "deprecated ZeRO keys still work, with a warning",
}

# Corpus files DeepSpeed rejects for batch arithmetic at every world size: it is a world-size
# check (the DSL6xx batch rule's job), not a key/type/value problem validate_config reports.
BATCH_ONLY_FAILURES = {
    "deepspeedai__DeepSpeed/deepspeed__autotuning__config_templates__template_zero2.json":
    "no batch keys at all: 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided'",
    "deepspeedai__DeepSpeed/deepspeed__autotuning__config_templates__template_zero3.json":
    "no batch keys at all: 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided'",
    "huggingface__transformers/tests__deepspeed__ds_config_zero3.json":
    "no batch keys (the transformers tests add them); on 0.19.8 its reduce_bucket_size 0 is rejected first",
}

_BATCH_ASSERTS = ("Check batch related parameters", "has to be greater than 0", "Either train_batch_size")


@dataclass
class Verdict:
    error: bool
    keys: set[str] = field(default_factory=set)  # dotted paths DeepSpeed names (may be empty)
    batch: bool = False  # the error is DeepSpeed's batch-size arithmetic assert
    message: str = ""


class DeepSpeedOracle:
    """DeepSpeed's own config parser, with a fake world size (research §0: replace config.dist)."""

    def __init__(self, dsc, version: str):
        self.dsc = dsc
        self.version = version
        self.model_sections = {}
        for key, model_name in section_models(resolve_version(version)).items():
            self.model_sections.setdefault(model_name, []).append(key)

    def parse(self, data: dict, world_size: int = 1) -> Verdict:
        from pydantic import ValidationError

        class FakeDist:
            def get_rank(self, group=None):
                return 0

            def get_world_size(self, group=None):
                return world_size

        saved = self.dsc.dist
        self.dsc.dist = FakeDist()
        try:
            self.dsc.DeepSpeedConfig(copy.deepcopy(data))
            return Verdict(False)
        except ValidationError as error:
            sections = [s for s in self.model_sections.get(error.title, []) if s.split(".")[0] in data] or [""]
            section = sections[0]
            keys = {".".join([section] + [str(p) for p in e["loc"]]).strip(".") for e in error.errors()}
            return Verdict(True, keys, message=str(error))
        except self.dsc.DeepSpeedConfigError as error:
            text = str(error)
            removed = {**getattr(self.dsc, "_REMOVED_TOP_LEVEL_CONFIG_KEYS", {}),
                       **{f"zero_optimization.{k}": m
                          for k, m in getattr(self.dsc, "_REMOVED_ZERO_CONFIG_KEYS", {}).items()}}
            keys = {key for key, message in removed.items() if message == text}
            return Verdict(True, keys, message=text)
        except AssertionError as error:
            text = str(error)
            return Verdict(True, batch=any(s in text for s in _BATCH_ASSERTS), message=text)
        except (TypeError, ValueError, AttributeError) as error:
            return Verdict(True, message=f"{type(error).__name__}: {error}")
        finally:
            self.dsc.dist = saved


@pytest.fixture(scope="session")
def oracle() -> DeepSpeedOracle:
    """Import DeepSpeed once per session (about 2 s)."""
    if importlib.util.find_spec("deepspeed") is None:
        pytest.skip("deepspeed is not installed in this environment (pip install -e '.[test]')")
    import deepspeed
    import deepspeed.runtime.config as dsc

    return DeepSpeedOracle(dsc, deepspeed.__version__)


def category(path: tuple) -> str:
    if len(path) == 1:
        return "top-level"
    if path[0] in toplevel.LOOSE_SECTIONS_COMMON or path[0] in toplevel.LOOSE_SECTIONS_BY_VERSION["0.19.6"]:
        return "loose-section"
    return "strict-section"


def assert_agrees(oracle: DeepSpeedOracle, data: dict, world_size: int = 1, label: str = "") -> Verdict:
    """DeepSpeed's verdict and dslint's agree on error/no error and on the key."""
    theirs = oracle.parse(data, world_size)
    problems = validate_config(data, version=oracle.version)
    fatal = [p for p in problems if p.fatal]
    ours = {p.dotted for p in fatal}
    assert not theirs.batch, f"{label}: batch arithmetic failure, choose another world size: {theirs.message}"
    assert theirs.error == bool(fatal), (
        f"{label}: DeepSpeed {'raised' if theirs.error else 'accepted'} ({theirs.message[:300]!r}) "
        f"but dslint's fatal problems are {[(p.dotted, p.message) for p in fatal]}"
    )
    for key in theirs.keys:
        assert any(mine == key or mine.startswith(key + ".") for mine in ours), (
            f"{label}: DeepSpeed names {key!r}, dslint names {sorted(ours)}: {theirs.message[:300]}"
        )
    for problem in problems:
        if not problem.fatal:
            assert (problem.kind, category(problem.path)) in SILENTLY_IGNORED_BUT_FLAGGED, (
                f"{label}: non-fatal {problem.kind} at {problem.dotted} is not a listed deliberate "
                f"disagreement: {problem.message}"
            )
    return theirs


# --- the installed version and the committed tables ---------------------------------------


def test_installed_deepspeed_is_a_supported_version(oracle):
    assert is_supported(oracle.version), f"deepspeed {oracle.version}: add its tables (dev/gen_dsconfig_tables.py)"


def test_committed_section_tables_match_installed_deepspeed(oracle):
    spec = importlib.util.spec_from_file_location("gen_dsconfig_tables", GENERATOR)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    live_sections, live_models = generator.collect_tables()
    from dslint.dsconfig_schema.tables import sections

    committed = sections(resolve_version(oracle.version))
    assert committed.SECTIONS == live_sections
    assert committed.MODELS == live_models


# --- the corpus ---------------------------------------------------------------------------

HF_VALUES = {
    ("train_micro_batch_size_per_gpu",): 4,
    ("gradient_accumulation_steps",): 2,
    ("gradient_clipping",): 1.0,
    ("optimizer", "params", "lr"): 1e-5,
    ("optimizer", "params", "betas"): [0.9, 0.999],
    ("optimizer", "params", "eps"): 1e-8,
    ("optimizer", "params", "weight_decay"): 0.0,
    ("scheduler", "params", "warmup_min_lr"): 0.0,
    ("scheduler", "params", "warmup_max_lr"): 1e-5,
    ("scheduler", "params", "warmup_num_steps"): 10,
    ("scheduler", "params", "total_num_steps"): 100,
    ("fp16", "enabled"): False,
    ("amp", "enabled"): False,
    ("amp", "opt_level"): "O1",
    ("zero_optimization", "reduce_bucket_size"): 4096 * 4096,
    ("zero_optimization", "stage3_prefetch_bucket_size"): int(0.9 * 4096 * 4096),
    ("zero_optimization", "stage3_param_persistence_threshold"): 10 * 4096,
}


def hf_fill(data: dict, data_parallel: int = 2) -> dict:
    """Replace "auto" where the HF Trainer does (bf16 on, per-device batch 4, gas 2)."""
    filled = copy.deepcopy(data)
    fp16_on = isinstance(filled.get("fp16"), dict) and filled["fp16"].get("enabled") is True
    values = dict(HF_VALUES)
    values[("bf16", "enabled")] = not fp16_on
    for path in hf_auto.HF_TRAINER_FILLS:
        node = filled
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get(path[-1]) == "auto" and path != ("train_batch_size",):
            node[path[-1]] = values[path]
    if filled.get("train_batch_size") == "auto":
        micro, gas = filled.get("train_micro_batch_size_per_gpu", 4), filled.get("gradient_accumulation_steps", 1)
        filled["train_batch_size"] = micro * gas * data_parallel if isinstance(micro, int) and isinstance(
            gas, int) else 32
    return filled


def world_size_for(data: dict) -> int:
    """A world size at which DeepSpeed's batch arithmetic holds, when there is one."""
    def number(key):
        value = data.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

    tbs, micro, gas = number("train_batch_size"), number("train_micro_batch_size_per_gpu"), number(
        "gradient_accumulation_steps")
    data_parallel = 1
    if tbs and micro and gas and tbs % (micro * gas) == 0:
        data_parallel = tbs // (micro * gas)
    elif tbs and micro and not gas and tbs % micro == 0:
        data_parallel = tbs // micro
    elif tbs and gas and not micro and tbs % gas == 0:
        data_parallel = tbs // gas
    sequence_parallel = data.get("sequence_parallel_size")
    if isinstance(sequence_parallel, int) and sequence_parallel > 0:
        data_parallel *= sequence_parallel
    return max(data_parallel, 1)


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*.json"))


def load_like_deepspeed(path: Path) -> dict:
    """DeepSpeed reads a config path with hjson (unquoted template placeholders become strings)."""
    import hjson

    return json.loads(json.dumps(hjson.loads(path.read_text())))


def test_corpus_verdicts_agree_with_deepspeed(oracle):
    files = corpus_files()
    if not files:
        pytest.skip(f"the shared DeepSpeed config corpus is absent ({CORPUS})")
    checked = 0
    for path in files:
        name = str(path.relative_to(CORPUS))
        filled = hf_fill(load_like_deepspeed(path))
        if oracle.parse(filled, world_size_for(filled)).batch:
            assert name in BATCH_ONLY_FAILURES, f"{name}: unexpected batch-arithmetic failure"
            assert not [p for p in validate_config(filled, version=oracle.version) if p.fatal]
            continue
        assert_agrees(oracle, filled, world_size_for(filled), label=name)
        checked += 1
    assert checked >= 90


def test_corpus_raw_configs_under_hf_auto_report_no_fatal_auto(oracle):
    """Read as the HF Trainer gets them, the corpus's fillable "auto" values are not problems."""
    for path in corpus_files():
        raw = load_like_deepspeed(path)
        for problem in validate_config(raw, version=oracle.version, hf_auto=True):
            assert not (problem.kind == "auto-not-filled" and problem.fatal), (path.name, problem)


# --- generated mutations ------------------------------------------------------------------

BASE = {
    "train_batch_size": 4,  # all three, so that a typo in any one still leaves valid arithmetic
    "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 2,
    "gradient_clipping": 1.0,
    "steps_per_print": 10,
    "optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "weight_decay": 0.0}},
    "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 10}},
    "bf16": {"enabled": True},
    "zero_optimization": {
        "stage": 3,
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_bucket_size": 500000000,
        "stage3_prefetch_bucket_size": 50000000,
        "stage3_gather_16bit_weights_on_model_save": True,
        "offload_optimizer": {"device": "cpu", "pin_memory": True},
        "offload_param": {"device": "cpu", "pin_memory": True},
    },
    "activation_checkpointing": {"partition_activations": True, "cpu_checkpointing": False},
    "aio": {"block_size": 1048576, "queue_depth": 8},
    "flops_profiler": {"enabled": False, "profile_step": 1},
    "tensorboard": {"enabled": False, "output_path": "runs"},
    "comms_logger": {"enabled": False},
    "wall_clock_breakdown": False,
}


def typo(key: str) -> str:
    """A realistic misspelling: two letters in the middle swapped (or one doubled)."""
    middle = len(key) // 2
    if key[middle - 1] != key[middle]:
        return key[: middle - 1] + key[middle] + key[middle - 1] + key[middle + 1:]
    return key[:middle] + key[middle] + key[middle:]


def key_paths(data: dict, prefix: tuple = ()) -> list[tuple]:
    found = []
    for key, value in data.items():
        found.append(prefix + (key,))
        if isinstance(value, dict) and key != "params":
            found.extend(key_paths(value, prefix + (key,)))
    return found


def with_change(data: dict, path: tuple, *, rename: str | None = None, value=None, delete=False) -> dict:
    changed = copy.deepcopy(data)
    node = changed
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    elif rename is not None:
        node[rename] = node.pop(path[-1])
    else:
        node[path[-1]] = value
    return changed


def test_base_config_is_clean(oracle):
    assert not oracle.parse(BASE).error
    assert validate_config(BASE, version=oracle.version) == []


@pytest.mark.parametrize("path", key_paths(BASE), ids=lambda p: ".".join(p))
def test_typo_at_every_level_agrees_and_suggests_the_key(oracle, path):
    wrong = typo(path[-1])
    mutated = with_change(BASE, path, rename=wrong)
    verdict = assert_agrees(oracle, mutated, label=f"typo {wrong}")
    problems = [p for p in validate_config(mutated, version=oracle.version) if p.path == path[:-1] + (wrong,)]
    assert len(problems) == 1, problems
    assert problems[0].kind == "unknown-key"
    assert problems[0].suggestion == path[-1] and problems[0].unambiguous
    assert problems[0].fatal == verdict.error


MISPLACED = [
    # (where the key is moved from, where to): DeepSpeed ignores the first three silently.
    (("zero_optimization", "offload_optimizer"), ("offload_optimizer",)),
    (("zero_optimization", "offload_param"), ("offload_param",)),
    (("zero_optimization", "stage3_gather_16bit_weights_on_model_save"),
     ("stage3_gather_16bit_weights_on_model_save",)),
    (("gradient_clipping",), ("zero_optimization", "gradient_clipping")),
    (("zero_optimization", "offload_optimizer", "pin_memory"), ("bf16", "pin_memory")),
    (("steps_per_print",), ("optimizer", "steps_per_print")),
]


@pytest.mark.parametrize("source,target", MISPLACED, ids=lambda p: ".".join(p))
def test_misplaced_keys_agree_and_point_home(oracle, source, target):
    value = BASE
    for key in source:
        value = value[key]
    mutated = with_change(BASE, source, delete=True)
    mutated = with_change(mutated, target, value=copy.deepcopy(value))
    assert_agrees(oracle, mutated, label=f"misplaced {target}")
    problems = [p for p in validate_config(mutated, version=oracle.version) if p.path == target]
    assert [p.kind for p in problems] == ["misplaced-key"]
    if source[-1] != "pin_memory":  # pin_memory is valid in two offload blocks: no single home
        assert problems[0].suggestion == ".".join(source) and problems[0].unambiguous


def bad_values_for(spec: dict) -> list:
    kind = spec["type"].replace("opt:", "")
    if kind == "bool":
        return ["maybe", [True]]
    if kind == "int":
        return ["lots", 5.5, [1]]
    if kind == "float":
        return ["high"]
    if kind.startswith("enum:") or kind.startswith("literal:"):
        return ["no-such-choice", 17]
    if kind == "str":
        return [12, [1]]
    if kind.startswith("model:"):
        return [True, "x"]
    return []


def strict_field_mutations() -> list:
    cases = []
    version = resolve_version(None)
    tables = schemas(version)
    for section in ("zero_optimization", "fp16", "bf16", "tensorboard", "comms_logger", "hybrid_engine", "compile"):
        model = tables[section_models(version)[section]]
        for name, spec in sorted(model.fields.items()):
            key = spec.get("alias", name)
            for bad in bad_values_for(spec):
                cases.append(((section, key), bad))
    for block in ("offload_optimizer", "offload_param"):
        model = tables[tables["DeepSpeedZeroConfig"].children[block]]
        for name, spec in sorted(model.fields.items()):
            for bad in bad_values_for(spec):
                cases.append((("zero_optimization", block, name), bad))
    return cases


@pytest.mark.parametrize("path,bad", strict_field_mutations(), ids=lambda v: repr(v)[:40])
def test_bad_types_and_values_in_strict_sections_agree(oracle, path, bad):
    base = copy.deepcopy(BASE)
    for key in path[:-1]:
        base.setdefault(key, {})
    mutated = with_change(base, path, value=bad)
    verdict = assert_agrees(oracle, mutated, label=f"{'.'.join(path)}={bad!r}")
    assert verdict.error


SPECIAL = [
    ("batch key as a string", {"gradient_accumulation_steps": "8"}),
    ("batch key auto without HF", {"train_micro_batch_size_per_gpu": "auto"}),
    ("unknown communication_data_type", {"communication_data_type": "fp8"}),
    ("communication_data_type in capitals", {"communication_data_type": "BF16"}),
    ("unknown allreduce op", {"gradient_allreduce_op": "max"}),
    ("bad checkpoint tag validation", {"checkpoint": {"tag_validation": "sometimes"}}),
    ("checkpoint tag validation lower case", {"checkpoint": {"tag_validation": "fail"}}),
    ("bad pipeline_stage", {"checkpoint": {"parallel_write": {"pipeline_stage": "yes"}}}),
    ("bad autocast dtype", {"torch_autocast": {"enabled": True, "dtype": "fp64"}}),
    ("good autocast dtype", {"torch_autocast": {"enabled": True, "dtype": "bfloat16"}}),
    ("negative loss scale", {"bf16": {"enabled": False}, "fp16": {"enabled": True, "loss_scale": -1}}),
    ("zero min loss scale, dynamic", {"bf16": {"enabled": False}, "fp16": {"enabled": True, "min_loss_scale": 0}}),
    ("zero min loss scale, static", {"bf16": {"enabled": False},
                                      "fp16": {"enabled": True, "loss_scale": 128, "min_loss_scale": 0}}),
    ("fractional min loss scale", {"bf16": {"enabled": False}, "fp16": {"enabled": True, "min_loss_scale": 1e-10}}),
    ("fp16 and bf16", {"fp16": {"enabled": True}}),
    ("stage as a string", {"zero_optimization": {"stage": "2"}}),
    ("stage 4", {"zero_optimization": {"stage": 4}}),
    ("stage auto", {"zero_optimization": {"stage": "auto", "overlap_comm": "auto"}}),
    ("zero null", {"zero_optimization": None}),
    ("zero legacy bool", {"zero_optimization": True}),
    ("fp16 auto as a section", {"fp16": "auto"}),
    ("partial offload below stage 3",
     {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "ratio": 0.5}}}),
    ("deprecated and new together",
     {"zero_optimization": {"stage": 2, "cpu_offload": True, "offload_optimizer": {"device": "cpu"}}}),
    ("deprecated alone", {"zero_optimization": {"stage": 2, "cpu_offload": True}}),
    ("alias and name together",
     {"zero_optimization": {"stage": 3, "stage3_max_live_parameters": 10, "max_live_parameters": 5}}),
    ("offload_optimizer as a bool", {"zero_optimization": {"stage": 2, "offload_optimizer": True}}),
    ("offload device gpu", {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "gpu"}}}),
    ("unknown key whose value is auto", {"zero_optimization": {"stage": 2, "stage3_typo_key": "auto"}}),
    ("bfloat16 legacy and bf16", {"bfloat16": {"enabled": "not-a-bool"}}),
    ("bfloat16 legacy alone", {"bf16": None, "bfloat16": {"enabled": True}}),
    ("renamed aio key", {"aio": {"thread_count": 4}}),
    ("max_grad_norm in optimizer params", {"optimizer": {"type": "Adam", "params": {"lr": 1e-4,
                                                                                     "max_grad_norm": 1.0}}}),
    ("string where a bool belongs", {"prescale_gradients": "false"}),
    ("timers throughput typo", {"timers": {"throughput": {"enabeld": True}}}),
    ("optimizer as a string", {"optimizer": "auto"}),
    ("keep_in_fp32_modules bad", {"data_types": {"keep_in_fp32_modules": "all"}}),
    ("reduce_bucket_size zero", {"zero_optimization": {"stage": 2, "reduce_bucket_size": 0}}),
    ("compute_grad_norm off at stage 3", {"zero_optimization": {"stage": 3, "compute_grad_norm": False}}),
    ("zenflow select strategy", {"zero_optimization": {"stage": 2, "zenflow": {"select_strategy": "often"}}}),
]


def overlay(base: dict, change: dict) -> dict:
    merged = copy.deepcopy(base)
    for key, value in change.items():
        if value is None and key in merged:
            del merged[key]
        else:
            merged[key] = value
    return merged


@pytest.mark.parametrize("label,change", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_cases_agree(oracle, label, change):
    base = {k: v for k, v in BASE.items() if k not in ("zero_optimization",)} if "zero_optimization" in change \
        else BASE
    assert_agrees(oracle, overlay(base, change), label=label)


@pytest.mark.parametrize("key", sorted(set().union(*toplevel.REMOVED_TOP_LEVEL.values())))
def test_removed_top_level_blocks_agree(oracle, key):
    verdict = assert_agrees(oracle, overlay(BASE, {key: {"enabled": False}}), label=key)
    removed_here = key in toplevel.REMOVED_TOP_LEVEL.get(resolve_version(oracle.version), {})
    assert verdict.error == removed_here


@pytest.mark.parametrize("key", sorted(set().union(*toplevel.REMOVED_ZERO_KEYS.values())))
def test_removed_zero_keys_agree(oracle, key):
    value = {"mics_shard_size": 2, "mics_hierarchical_params_gather": False, "zeropp_loco_param": {}}[key]
    mutated = copy.deepcopy(BASE)
    mutated["zero_optimization"][key] = value
    assert_agrees(oracle, mutated, label=key)


def test_dslint_never_imports_deepspeed_or_torch():
    """The check path stays light: importing and running the schema pulls in neither."""
    import subprocess

    code = (
        "import sys; from dslint.dsconfig_schema import validate_config, effective_config;"
        "validate_config({'zero_optimization': {'stage': 3}}); effective_config({});"
        "assert 'deepspeed' not in sys.modules and 'torch' not in sys.modules, 'heavy import'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
