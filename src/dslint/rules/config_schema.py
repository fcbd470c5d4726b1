"""DSL601–DSL605: what DeepSpeed's own schema says about a config's keys and values.

The schema lives in `dslint.dsconfig_schema` (every key, type, default and allowed value per
DeepSpeed version); these rules turn its problems into findings at the exact key or value, with
a rename fix where the intended key is unambiguous.
"""
from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Iterator, Optional

from ..dsconfig_schema.problems import (
    AUTO_NOT_FILLED,
    BAD_TYPE,
    BAD_VALUE,
    DEPRECATED_KEY,
    MISPLACED_KEY,
    REMOVED_KEY,
    UNKNOWN_KEY,
    ConfigProblem,
)
from ..facts.link import link_setups, named_by_accelerate_yaml
from ..facts.program import norm_path
from ..fixes import make_fix
from ..model import Applicability, Severity, Span
from ..sources.dsconfig import JsonDoc
from .context import ConfigContext, SetupContext
from .registry import Report, config_rule, decider, setup_rule, short

if TYPE_CHECKING:
    from ..dsconfig_schema import EffectiveConfig

BUCKET_KEYS = ("reduce_bucket_size", "allgather_bucket_size", "stage3_prefetch_bucket_size", "prefetch_bucket_size",
               "stage3_param_persistence_threshold", "param_persistence_threshold", "stage3_max_live_parameters",
               "stage3_max_reuse_distance", "sub_group_size", "stage3_model_persistence_threshold")


def target_version(settings) -> Optional[str]:
    from ..dsconfig_schema.effective import target_version as version_for

    return version_for(settings)


def effective(value, settings) -> Optional[EffectiveConfig]:
    """The config as DeepSpeed reads it (dsconfig_schema's one reader), or None."""
    from ..dsconfig_schema.effective import effective_for

    return effective_for(value, settings)


def problems(doc: JsonDoc, settings, filler) -> list[ConfigProblem]:
    """validate_config for a parsed config, memoised on the document."""
    cache = doc.__dict__.setdefault("_dslint_problems", {})
    # The did-you-mean is the costly part, and only DSL601 shows it.
    key = (target_version(settings), filler, settings.is_enabled("DSL601"))
    if key not in cache:
        from ..dsconfig_schema import validate_config

        try:
            cache[key] = validate_config(doc.value, version=key[0], hf_auto=filler or False, suggest=key[2])
        except Exception:  # the schema must never take a check down; it reports nothing then
            cache[key] = []
        if getattr(doc, "in_python", False):
            cache[key] = [p for p in cache[key] if _shown_in_dict(doc, p)]
    return cache[key]


_KEY_KINDS = (UNKNOWN_KEY, MISPLACED_KEY, REMOVED_KEY, DEPRECATED_KEY)


def _shown_in_dict(doc, problem: ConfigProblem) -> bool:
    """Whether a dict config shows what the problem is about: a key problem needs the key, a value problem
    a shown value and no unknown value in its section (the schema's cross-key checks read the others)."""
    if problem.kind in _KEY_KINDS:
        # (a key with no node is one the script assigns later, somewhere else: not this dict's to report)
        return not doc.unknown(problem.path[:-1]) and doc.node(problem.path) is not None
    if doc.unknown(problem.path):
        return False
    return not doc.has_unknown(problem.path[:1])


def span_of(doc: JsonDoc, problem: ConfigProblem) -> Span:
    node = doc.node(problem.path)
    if node is None:  # the path ends inside a value the tree does not show: point at the deepest node
        path = problem.path
        while path and doc.node(path) is None:
            path = path[:-1]
        node = doc.node(path) or doc.root
    if problem.on == "key" and node.key_span is not None:
        return node.key_span
    return node.span


def is_fractional_bucket(problem: ConfigProblem, doc: JsonDoc) -> bool:
    if not problem.path or str(problem.path[-1]) not in BUCKET_KEYS:
        return False
    node = doc.node(problem.path)
    return node is not None and isinstance(node.value, float) and not node.value.is_integer()


def rename_fix(doc: JsonDoc, problem: ConfigProblem, what: str):
    """Rename the key to the suggestion: only the key's bytes change, the quotes stay."""
    if not (problem.unambiguous and problem.suggestion and "." not in problem.suggestion and doc.strict):
        return None
    node = doc.node(problem.path)
    parent = doc.node(problem.path[:-1])
    if node is None or node.key_span is None or parent is None or problem.suggestion in parent.children:
        return None
    span = node.key_span
    original = doc.text[span.start_offset:span.end_offset]
    new = json.dumps(problem.suggestion)
    return make_fix("edits", f"{what} '{problem.path[-1]}' to '{problem.suggestion}'", Applicability.SAFE,
                    edits=((span.start_offset, span.end_offset, new, original),))


# Deprecated spellings whose value DeepSpeed reads unchanged under the new name (a boolean
# `cpu_offload` is not one: its replacement is an object).
PURE_RENAMES = {"bfloat16": "bf16",
                "stage3_gather_fp16_weights_on_model_save": "gather_16bit_weights_on_model_save"}


def _precision_clash(problem: ConfigProblem) -> bool:
    """fp16 + bf16 both enabled is DSL606's finding."""
    return problem.kind == BAD_VALUE and problem.path[-1:] == ("enabled",) and \
        str(problem.path[0]) in ("fp16", "bf16", "bfloat16") and "simultaneously" in problem.message


@config_rule("DSL601", "unknown-config-key", fix=Applicability.SAFE)
def unknown_config_key(ctx: ConfigContext) -> Iterator[Report]:
    """A key DeepSpeed does not know at that level: ignored silently at the top level, a
    ValidationError inside the strict sections; misplaced keys say where they belong."""
    for problem in problems(ctx.doc, ctx.settings, "accelerate"):
        if problem.kind not in (UNKNOWN_KEY, MISPLACED_KEY):
            continue
        if problem.kind == UNKNOWN_KEY and str(problem.path[-1]).startswith("_") and len(problem.path) == 1:
            continue  # "_comment": the JSON way to annotate, ignored by DeepSpeed on purpose
        fix = rename_fix(ctx.doc, problem, "rename") if problem.kind == UNKNOWN_KEY else None
        # DeepSpeed builds (and checks) the config's optimizer only when the script passes none
        needs = ("config-optimizer-built", ()) if tuple(problem.path[:2]) == ("optimizer", "params") else None
        yield Report(span_of(ctx.doc, problem), problem.message, fix=fix, needs=needs)


@decider("config-optimizer-built")
def _decide_config_optimizer(finding, project, params):
    """Drop a finding inside `optimizer.params` when every `deepspeed.initialize` that may read this
    config (the linked ones, else all of the project's) passes its own optimizer: `_configure_basic_optimizer`, which reads (and rejects) those
    params, runs only without one (deepspeed/runtime/engine.py `_configure_optimizer`)."""
    inits = [init for setup in link_setups(project) if setup.config.path and
             norm_path(setup.config.path) == norm_path(finding.path) for init in setup.facts.deepspeed_inits]
    if not inits:  # no launch names this config: every deepspeed.initialize of the project may read it
        inits = [init for summary in project.scripts.values()
                 for init in getattr(summary.extra.get("setup"), "deepspeed_inits", ())]
    return None if inits and all(init.optimizer_given for init in inits) else finding


@config_rule("DSL602", "removed-config-key", severity=Severity.ERROR, fix=Applicability.SAFE)
def removed_config_key(ctx: ConfigContext) -> Iterator[Report]:
    """A feature block DeepSpeed removed: its presence alone makes DeepSpeedConfig raise. Deleting
    a block written `"enabled": false` changes nothing DeepSpeed did (a safe fix); deleting one
    that may be on changes the training (an unsafe fix)."""
    for problem in problems(ctx.doc, ctx.settings, "accelerate"):
        if problem.kind == REMOVED_KEY:
            yield Report(span_of(ctx.doc, problem), problem.message, fix=_delete_removed_fix(ctx.doc, problem))


def _delete_removed_fix(doc: JsonDoc, problem: ConfigProblem):
    from ..sources.json_edits import delete_pair_edit

    parent = doc.node(problem.path[:-1]) if problem.path[:-1] else doc.root
    node = doc.node(problem.path)
    if problem.suggestion is not None or not doc.strict or parent is None or node is None:
        return None  # a renamed key wants its new name, not a deletion
    edit = delete_pair_edit(doc, parent, problem.path[-1])
    if edit is None:
        return None
    disabled = isinstance(node.value, dict) and node.value.get("enabled") is False
    return make_fix("edits", f"delete the removed '{short(problem.path[-1], 40)}' block",
                    Applicability.SAFE if disabled else Applicability.UNSAFE, edits=(edit,))


@config_rule("DSL603", "invalid-config-value", severity=Severity.ERROR)
def invalid_config_value(ctx: ConfigContext) -> Iterator[Report]:
    """A value of the wrong type or out of range for DeepSpeed's schema (DSL607 owns fractional
    bucket sizes)."""
    for problem in problems(ctx.doc, ctx.settings, "accelerate"):
        if problem.kind in (BAD_TYPE, BAD_VALUE) and not is_fractional_bucket(problem, ctx.doc) \
                and not _precision_clash(problem) and not _template_placeholder(ctx.doc, problem):
            overwritten = tuple(problem.path) in ACCELERATE_OVERWRITES
            yield Report(span_of(ctx.doc, problem), problem.message,
                         needs=("read-by-more-than-accelerate", ()) if overwritten else None)


# accelerate's DeepSpeedPlugin.__post_init__ sets these in every config it reads, whatever the file says
# (accelerate/utils/dataclasses.py: `self.deepspeed_config["steps_per_print"] = float("inf")`).
ACCELERATE_OVERWRITES = frozenset({("steps_per_print",)})


@decider("read-by-more-than-accelerate")
def _decide_overwritten(finding, project, params):
    """Drop a bad value that accelerate overwrites when accelerate is the only reader the linked setups show."""
    readers = {s.config.consumer for s in link_setups(project) if s.config.path and norm_path(s.config.path) == norm_path(finding.path)}
    if not readers and named_by_accelerate_yaml(project, finding.path):
        readers = {"accelerate"}  # (an accelerate config of the project that no launch line names yet)
    return None if readers == {"accelerate"} else finding


# hjson reads an unquoted placeholder up to the end of its line, so a trailing comma comes along.
_PLACEHOLDER = re.compile(r"(?:_*[A-Z][A-Z0-9_]*|@[A-Za-z_][A-Za-z0-9_]*@|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|<[^<>]+>),?")


def _template_placeholder(doc, problem) -> bool:
    """`"train_batch_size": "GB_SIZE"` in a template that a script fills with sed before use: the
    real config is the filled copy, so a placeholder is not a wrong value."""
    value = doc.value
    for key in problem.path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(value, str) and bool(_PLACEHOLDER.fullmatch(value.strip()))


def _filler_for(consumers: set) -> Optional[str]:
    """Who fills "auto": the most permissive of the consumers that read the config."""
    if not consumers or "accelerate" in consumers:
        return "accelerate"
    if "hf" in consumers:
        return "trainer"
    return None


# `deepspeed --autotuning run|tune` writes these into every experiment's config (and the micro-batch
# of its profiling run): deepspeed/autotuning/autotuner.py, constants.DEFAULT_MIN_MEM_CONFIG.
AUTOTUNER_FILLS = frozenset({("train_micro_batch_size_per_gpu",), ("train_batch_size",)})


def _autotuned(setup) -> bool:
    launcher = setup.command.launcher("deepspeed") if setup.command is not None else None
    return launcher is not None and "autotuning" in launcher.options


@setup_rule("DSL604", "auto-value-not-filled", severity=Severity.ERROR)
def auto_value_not_filled(ctx: SetupContext) -> Iterator[Report]:
    """`"auto"` where nobody fills it in: under plain `deepspeed.initialize` (or Lightning) every
    "auto" is a TypeError or a silent default; under the HF Trainer only its fill list counts."""
    from ..facts.link import link_setups

    consumers: dict[str, set] = {}
    autotuned: dict[str, bool] = {}  # every launch of the config runs DeepSpeed's autotuner
    for setup in link_setups(ctx.project, ctx.settings):
        if setup.config.path:
            consumers.setdefault(setup.config.path, set()).add(setup.config.consumer)
            autotuned[setup.config.path] = autotuned.get(setup.config.path, True) and _autotuned(setup)
    for path, doc in ctx.project.configs.items():
        users = consumers.get(path, set())
        filler = _filler_for(users)
        for problem in problems(doc, ctx.settings, filler):
            if problem.kind != AUTO_NOT_FILLED:
                continue
            if autotuned.get(path) and tuple(problem.path) in AUTOTUNER_FILLS:
                continue
            message = problem.message
            if users and filler is None:
                from ..dsconfig_schema.validate import NOBODY_FILLS

                message = message.replace(NOBODY_FILLS, f"{short(', '.join(sorted(users)), 24)} reads this config and "
                                          "fills no 'auto'", 1)
            yield Report(span_of(doc, problem), message, path=path)
    yield from _auto_in_dict_configs(ctx)


def _auto_in_dict_configs(ctx: SetupContext) -> Iterator[Report]:
    """The same for configs written as Python dicts, with the consumers of the setups that link each."""
    from .config_setup import linked_dict_documents

    seen = set()
    for doc, setups in linked_dict_documents(ctx.project, ctx.settings):
        users = {setup.config.consumer for setup in setups}
        filler = _filler_for(users)
        for problem in problems(doc, ctx.settings, filler):
            if problem.kind != AUTO_NOT_FILLED:
                continue
            span = span_of(doc, problem)
            if (doc.path, span.start_offset) in seen:
                continue
            seen.add((doc.path, span.start_offset))
            message = problem.message
            if filler is None:
                from ..dsconfig_schema.validate import NOBODY_FILLS

                message = message.replace(NOBODY_FILLS, f"{short(', '.join(sorted(users)), 24)} reads this config and "
                                          "fills no 'auto'", 1)
            yield Report(span, message, path=doc.path)


@config_rule("DSL605", "deprecated-config-key", fix=Applicability.SAFE)
def deprecated_config_key(ctx: ConfigContext) -> Iterator[Report]:
    """A legacy spelling DeepSpeed still reads (or ignores, next to the new spelling)."""
    for problem in problems(ctx.doc, ctx.settings, "accelerate"):
        if problem.kind != DEPRECATED_KEY:
            continue
        old = str(problem.path[-1]) if problem.path else ""
        pure_rename = PURE_RENAMES.get(old) == problem.suggestion
        fix = rename_fix(ctx.doc, problem, "rename") if pure_rename and not problem.fatal else None
        yield Report(span_of(ctx.doc, problem), problem.message, fix=fix)
