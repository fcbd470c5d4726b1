"""Regenerate dslint's DeepSpeed section tables from an installed DeepSpeed.

Usage: .venv/bin/python dev/gen_dsconfig_tables.py src/dslint/dsconfig_schema/tables/sections_X_Y_Z.py
(for another DeepSpeed source tree, put it first on PYTHONPATH). Reads the pydantic models that
DeepSpeed validates its strict sub-sections with, and writes them as plain data.
tests/test_dsconfig_differential.py imports collect_tables() to check the committed table of
the installed version against DeepSpeed itself.
"""

import enum
import importlib
import os
import pprint
import sys
import types
import typing
from pathlib import Path

import deepspeed  # dev tool and tests only: dslint itself never imports it
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

# top-level key -> DeepSpeed pydantic model (module:class) that validates it
SECTION_MODELS = {
    "zero_optimization": "deepspeed.runtime.zero.config:DeepSpeedZeroConfig",
    "fp16": "deepspeed.runtime.precision_config:DeepSpeedFP16Config",
    "bf16": "deepspeed.runtime.precision_config:DeepSpeedBF16Config",
    "bfloat16": "deepspeed.runtime.precision_config:DeepSpeedBF16Config",
    "comms_logger": "deepspeed.comm.config:CommsLoggerConfig",
    "tensorboard": "deepspeed.monitor.config:TensorBoardConfig",
    "wandb": "deepspeed.monitor.config:WandbConfig",
    "csv_monitor": "deepspeed.monitor.config:CSVConfig",
    "comet": "deepspeed.monitor.config:CometConfig",
    "hybrid_engine": "deepspeed.runtime.config:HybridEngineConfig",
    "weight_quantization": "deepspeed.inference.config:WeightQuantConfig",
    "compile": "deepspeed.compile.config:CompileConfig",
    "tensor_parallel": "deepspeed.runtime.tensor_parallel.config:TPTrainingConfig",
    "timers.throughput": "deepspeed.utils.config:DeepSpeedThroughputTimerConfig",
}


def load(spec):
    mod, name = spec.split(":")
    return getattr(importlib.import_module(mod), name)


def type_expr(ann, models):
    """A small type language: bool int float str path any dict list enum:[..] model:Name opt:X union:[..]."""
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if ann is type(None):
        return "none"
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        inner = [type_expr(a, models) for a in non_none]
        expr = inner[0] if len(inner) == 1 else "union:" + "|".join(inner)
        return "opt:" + expr if len(non_none) < len(args) else expr
    if origin is typing.Literal:
        return "literal:" + repr(list(args))
    if origin in (list, typing.List, tuple, set):
        return "list"
    if origin in (dict, typing.Dict):
        return "dict"
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return "enum:" + repr([m.value for m in ann])
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        collect(ann, models)
        return "model:" + ann.__name__
    if ann is bool:
        return "bool"
    if ann is int:
        return "int"
    if ann is float:
        return "float"
    if ann is str:
        return "str"
    if isinstance(ann, type) and issubclass(ann, Path):
        return "path"
    if ann is typing.Any or ann is object:
        return "any"
    if origin is typing.Annotated or "Annotated" in str(ann):
        return type_expr(args[0], models)
    return "any"


def plain(value):
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)  # DeepSpeed's pp_int prints with commas
    if isinstance(value, (float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, BaseModel):
        return "<model>"
    return repr(value)


def collect(model, models):
    if model.__name__ in models:
        return
    models[model.__name__] = None
    fields = {}
    for name, info in model.model_fields.items():
        spec = {"type": type_expr(info.annotation, models)}
        if info.alias and info.alias != name:
            spec["alias"] = info.alias
        if info.default is not PydanticUndefined:
            spec["default"] = plain(info.default)
        elif info.default_factory is not None:
            try:
                spec["default"] = plain(info.default_factory())
            except Exception:
                spec["default"] = None
        for meta in info.metadata:
            for bound in ("ge", "gt", "le", "lt"):
                if getattr(meta, bound, None) is not None:
                    spec[bound] = getattr(meta, bound)
        extra = info.json_schema_extra or {}
        if isinstance(extra, dict) and extra.get("deprecated"):
            spec["deprecated_for"] = extra.get("new_param", "")
        fields[name] = spec
    models[model.__name__] = {"extra": model.model_config.get("extra"), "fields": fields}


def collect_tables():
    """(sections, models) read from the importable DeepSpeed: the data the tables hold."""
    models = {}
    sections = {}
    for key, spec in SECTION_MODELS.items():
        try:
            cls = load(spec)
        except (ImportError, AttributeError):
            continue
        collect(cls, models)
        sections[key] = cls.__name__
    return sections, models


def main(output: Path):
    sections, models = collect_tables()
    version = os.environ.get("DS_VERSION") or deepspeed.__version__.split("+")[0]
    output.write_text(
        f'"""DeepSpeed {version}: its strict (pydantic, extra="forbid") config sections, as data.\n\n'
        "Generated by dev/gen_dsconfig_tables.py from DeepSpeed's own models; do not edit by hand.\n"
        '"""\n\n'
        f"VERSION = {version!r}\n\n"
        f"SECTIONS = {pprint.pformat(sections, sort_dicts=True, width=110)}\n\n"
        f"MODELS = {pprint.pformat(models, sort_dicts=True, width=110)}\n"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
