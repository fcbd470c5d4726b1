"""Fast unit tests of dsconfig_schema (no DeepSpeed needed): validate_config, effective_config, versions."""

from __future__ import annotations

import importlib.metadata

import pytest

from dslint.dsconfig_schema import (
    DEFAULT_VERSION,
    SUPPORTED_VERSIONS,
    ConfigProblem,
    detect_deepspeed_version,
    effective_config,
    resolve_version,
    validate_config,
)
from dslint.dsconfig_schema.suggest import edit_distance, nearest

ZERO2_OFFLOAD = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 2,
    "bf16": {"enabled": True},
    "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
}


def only(problems: list[ConfigProblem]) -> ConfigProblem:
    assert len(problems) == 1, problems
    return problems[0]


def test_clean_config_has_no_problems():
    assert validate_config(ZERO2_OFFLOAD) == []


def test_top_level_typo_is_reported_with_the_key_it_meant_but_not_fatal():
    problem = only(validate_config({**ZERO2_OFFLOAD, "gradient_clipp1ng": 1.0}))
    assert problem.path == ("gradient_clipp1ng",)
    assert (problem.kind, problem.on, problem.fatal) == ("unknown-key", "key", False)
    assert (problem.suggestion, problem.unambiguous) == ("gradient_clipping", True)
    assert "silently ignores" in problem.message


def test_offload_block_at_top_level_belongs_in_zero_optimization():
    problem = only(validate_config({**ZERO2_OFFLOAD, "offload_param": {"device": "cpu"}}))
    assert problem.kind == "misplaced-key"
    assert (problem.suggestion, problem.unambiguous) == ("zero_optimization.offload_param", True)


def test_typo_inside_zero_optimization_is_fatal_with_suggestion():
    config = {"zero_optimization": {"stage": 3, "offlaod_optimizer": {"device": "cpu"}}}
    problem = only(validate_config(config))
    assert problem.path == ("zero_optimization", "offlaod_optimizer")
    assert (problem.kind, problem.fatal, problem.suggestion) == ("unknown-key", True, "offload_optimizer")


def test_typo_two_levels_down_names_the_full_path():
    config = {"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu", "pin_memroy": True}}}
    problem = only(validate_config(config))
    assert problem.path == ("zero_optimization", "offload_param", "pin_memroy")
    assert problem.suggestion == "pin_memory" and problem.fatal


def test_wrong_offload_device_is_a_bad_value_on_the_value():
    problem = only(validate_config({"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "gpu"}}}))
    assert (problem.path, problem.kind, problem.on, problem.fatal) == (
        ("zero_optimization", "offload_optimizer", "device"), "bad-value", "value", True)


def test_fractional_prefetch_bucket_is_a_bad_type():
    problem = only(validate_config({"zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": 15099494.4}}))
    assert (problem.kind, problem.fatal) == ("bad-type", True)


def test_lax_coercions_deepspeed_accepts_are_not_reported():
    config = {"zero_optimization": {"stage": "2", "reduce_bucket_size": 5e8, "overlap_comm": "true"}}
    assert validate_config(config) == []


def test_removed_blocks_are_fatal_on_0_19_8_and_fine_on_0_19_6():
    config = {**ZERO2_OFFLOAD, "curriculum_learning": {"enabled": False}, "sparse_gradients": False}
    problems = validate_config(config, version="0.19.8")
    assert [(p.path, p.kind, p.fatal) for p in problems] == [
        (("curriculum_learning",), "removed-key", True), (("sparse_gradients",), "removed-key", True)]
    assert validate_config(config, version="0.19.6") == []


def test_reduce_bucket_size_zero_differs_between_versions():
    config = {"zero_optimization": {"stage": 2, "reduce_bucket_size": 0}}
    assert only(validate_config(config, version="0.19.8")).kind == "bad-value"
    assert validate_config(config, version="0.19.6") == []


def test_keys_new_in_0_19_8_are_unknown_to_0_19_6():
    config = {"disable_python_gc": True, "zero_optimization": {"stage": 2, "compute_grad_norm": False}}
    assert validate_config(config, version="0.19.8") == []
    problems = validate_config(config, version="0.19.6")
    assert {(p.dotted, p.fatal) for p in problems} == {("disable_python_gc", False),
                                                       ("zero_optimization.compute_grad_norm", True)}


def test_mics_keys_are_removed_in_0_19_8_only():
    config = {"zero_optimization": {"stage": 3, "mics_shard_size": 8}}
    assert only(validate_config(config, version="0.19.8")).kind == "removed-key"
    assert validate_config(config, version="0.19.6") == []


def test_alias_and_plain_name_together_is_fatal():
    config = {"zero_optimization": {"stage": 3, "stage3_max_live_parameters": 10, "max_live_parameters": 5}}
    problem = only(validate_config(config))
    assert problem.path == ("zero_optimization", "max_live_parameters") and problem.fatal


def test_deprecated_key_alone_warns_and_with_its_replacement_is_fatal():
    alone = only(validate_config({"zero_optimization": {"stage": 2, "cpu_offload": True}}))
    assert (alone.kind, alone.fatal, alone.suggestion) == ("deprecated-key", False, "offload_optimizer")
    both = {"zero_optimization": {"stage": 2, "cpu_offload": True, "offload_optimizer": {"device": "cpu"}}}
    assert only(validate_config(both)).fatal


def test_deprecated_gather_key_suggests_the_stage3_spelling():
    problem = only(validate_config({"zero_optimization": {"stage": 3, "stage3_gather_fp16_weights_on_model_save": True}}))
    assert problem.suggestion == "stage3_gather_16bit_weights_on_model_save"


def test_auto_in_batch_keys_is_fatal_without_hf_and_fine_with_it():
    config = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
              "gradient_clipping": "auto", "bf16": {"enabled": "auto"}}
    plain = validate_config(config)
    assert {(p.dotted, p.kind, p.fatal) for p in plain} == {
        ("train_micro_batch_size_per_gpu", "auto-not-filled", True),
        ("gradient_accumulation_steps", "auto-not-filled", True),
        ("gradient_clipping", "auto-not-filled", False),
        ("bf16.enabled", "auto-not-filled", False),
    }
    assert validate_config(config, hf_auto=True) == []


def test_auto_stage_is_silently_stage_0_under_the_trainer_but_filled_by_accelerate():
    config = {"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": "auto"}}
    problem = only(validate_config(config, hf_auto=True))
    assert (problem.path, problem.kind, problem.fatal) == (("zero_optimization", "stage"), "auto-not-filled", False)
    assert "default (0)" in problem.message
    assert validate_config(config, hf_auto="accelerate") == []


def test_gather_auto_under_the_trainer_says_only_accelerate_fills_it():
    config = {"zero_optimization": {"stage": 3, "stage3_gather_16bit_weights_on_model_save": "auto"}}
    problem = only(validate_config(config, hf_auto=True))
    assert "only accelerate fills this 'auto'" in problem.message


def test_auto_under_the_legacy_bfloat16_key_is_not_filled_by_hf():
    problems = validate_config({"bfloat16": {"enabled": "auto"}}, hf_auto=True)
    assert [(p.dotted, p.kind) for p in problems] == [("bfloat16", "deprecated-key"),
                                                      ("bfloat16.enabled", "auto-not-filled")]


def test_comment_keys_are_not_reported_and_foreign_keys_get_a_hint():
    problems = validate_config({**ZERO2_OFFLOAD, "_comment": "zero 2", "comms_config": {"enabled": True}})
    problem = only(problems)
    assert problem.path == ("comms_config",) and problem.suggestion == "comms_logger"


def test_fp16_and_bf16_together_is_fatal():
    problem = only(validate_config({"fp16": {"enabled": True}, "bf16": {"enabled": True}}))
    assert (problem.path, problem.kind, problem.fatal) == (("bf16", "enabled"), "bad-value", True)


def test_string_in_a_top_level_bool_is_reported_as_silently_true():
    problem = only(validate_config({"prescale_gradients": "false"}))
    assert (problem.kind, problem.fatal) == ("bad-type", False)
    assert "true" in problem.message


def test_max_grad_norm_in_optimizer_params_points_to_gradient_clipping():
    problem = only(validate_config({"optimizer": {"type": "Adam", "params": {"lr": 1e-4, "max_grad_norm": 1.0}}}))
    assert (problem.kind, problem.suggestion) == ("misplaced-key", "gradient_clipping")


def test_non_object_config_is_one_fatal_problem():
    assert only(validate_config([1, 2])).fatal  # type: ignore[arg-type]


# --- effective_config -----------------------------------------------------------------------


def test_effective_config_applies_defaults():
    eff = effective_config(ZERO2_OFFLOAD)
    assert eff.zero_stage == 2
    assert eff.offload_optimizer_device == "cpu" and eff.offload_param_device == "none"
    assert eff.offload_optimizer.pin_memory is True and not eff.offload_optimizer.pin_memory_set
    assert (eff.fp16_enabled, eff.bf16_enabled) == (False, True)
    assert (eff.train_batch_size, eff.train_micro_batch_size_per_gpu, eff.gradient_accumulation_steps) == (None, 4, 2)
    assert eff.gradient_clipping == 1.0 and eff.overlap_comm is False and eff.reduce_bucket_size == 500000000
    assert eff.stage3_gather_16bit_weights_on_model_save is False
    assert eff.is_set("zero_optimization.offload_optimizer.device")
    assert not eff.is_set("zero_optimization.offload_optimizer.pin_memory")


def test_effective_config_keeps_auto_where_hf_or_accelerate_fill_it():
    eff = effective_config({"train_batch_size": "auto", "gradient_clipping": "auto", "fp16": {"enabled": "auto"},
                            "zero_optimization": {"stage": "auto", "overlap_comm": "auto",
                                                  "stage3_gather_16bit_weights_on_model_save": "auto",
                                                  "offload_param": {"device": "auto"}}})
    assert eff.train_batch_size == "auto" and eff.gradient_clipping == "auto" and eff.fp16_enabled == "auto"
    assert eff.zero_stage == "auto" and eff.stage3_gather_16bit_weights_on_model_save == "auto"
    assert eff.offload_param_device == "auto"
    assert eff.overlap_comm is False  # nobody fills overlap_comm: DeepSpeed's dynamic default


def test_effective_config_reads_legacy_forms():
    eff = effective_config({"zero_optimization": True, "bfloat16": {"enabled": True}})
    assert eff.zero_stage == 1 and eff.bf16_enabled is True
    eff = effective_config({"zero_optimization": {"stage": 3, "cpu_offload": True,
                                                  "offload_param": {"device": "nvme", "nvme_path": "/nvme"}}})
    assert eff.offload_optimizer_device == "cpu" and eff.overlap_comm is True and eff.nvme_path == "/nvme"


def test_effective_config_never_raises_on_garbage():
    eff = effective_config({"zero_optimization": {"stage": "three", "offload_optimizer": "cpu"},
                            "fp16": [], "gradient_clipping": "x", "train_batch_size": "GBSIZE"})
    assert eff.zero_stage == 0 and eff.offload_optimizer is None and eff.train_batch_size is None
    assert eff.gradient_clipping == 1.0


# --- versions and suggestions ---------------------------------------------------------------


def test_resolve_version_maps_to_a_supported_release():
    assert resolve_version(None) == DEFAULT_VERSION == SUPPORTED_VERSIONS[-1]
    assert resolve_version("0.19.6+unknown") == "0.19.6"
    assert resolve_version("0.19.7") == "0.19.6"
    assert resolve_version("0.20.1") == "0.19.8"
    assert resolve_version("0.14.0") == "0.19.6"


def test_detect_deepspeed_version_reads_package_metadata(monkeypatch):
    monkeypatch.setattr(importlib.metadata, "version", lambda name: {"deepspeed": "0.19.6"}[name])
    assert detect_deepspeed_version() == "0.19.6"

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert detect_deepspeed_version() is None


@pytest.mark.parametrize("typed,meant", [("tpye", "type"), ("iao", "aio"), ("zero_optimisation", "zero_optimization"),
                                         ("stage3_overlap_comm", "overlap_comm")])
def test_nearest_finds_short_and_long_typos(typed, meant):
    names = ["type", "params", "aio", "zero_optimization", "overlap_comm", "offload_param"]
    assert nearest(typed, names) == (meant, True)


def test_nearest_gives_up_on_unrelated_names():
    assert nearest("cuda_visible_devices", ["zero_optimization", "fp16", "bf16"]) == (None, False)
    assert edit_distance("ab", "ba") == 1
