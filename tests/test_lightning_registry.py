"""dslint's Lightning table against the installed Lightning: registries and default configs."""
from __future__ import annotations

import inspect

import pytest

from dslint.facts import lightning_strategies as table

lightning = pytest.importorskip("lightning")


def _registry(reg) -> dict:
    return {name: (entry["strategy"].__name__, dict(entry["init_params"])) for name, entry in reg.items()}


def test_trainer_registry_matches_lightning():
    from lightning.pytorch.strategies import StrategyRegistry

    assert _registry(StrategyRegistry) == table.TRAINER_STRATEGIES


def test_fabric_registry_matches_lightning():
    from lightning.fabric.strategies import STRATEGY_REGISTRY

    assert _registry(STRATEGY_REGISTRY) == table.FABRIC_STRATEGIES


def test_deepspeed_strategy_defaults_match_the_signature():
    from lightning.pytorch.strategies import DeepSpeedStrategy

    params = inspect.signature(DeepSpeedStrategy.__init__).parameters
    for name, value in table.DEEPSPEED_STRATEGY_DEFAULTS.items():
        assert params[name].default == value, name
    assert DeepSpeedStrategy.DEEPSPEED_ENV_VAR == table.DEEPSPEED_ENV_VAR


def _lightning_config(**kwargs) -> dict:
    pytest.importorskip("deepspeed")
    from lightning.pytorch.strategies import DeepSpeedStrategy

    return DeepSpeedStrategy(**kwargs).config


@pytest.mark.parametrize("name", sorted(n for n, (cls, _) in table.TRAINER_STRATEGIES.items() if cls == "DeepSpeedStrategy"))
def test_every_deepspeed_string_builds_the_same_config(name, monkeypatch):
    monkeypatch.delenv(table.DEEPSPEED_ENV_VAR, raising=False)
    _, params = table.TRAINER_STRATEGIES[name]
    assert table.strategy_deepspeed_config(name) == _lightning_config(**params)


@pytest.mark.parametrize("kwargs", [
    {"stage": 2, "offload_optimizer": True, "pin_memory": True},
    {"stage": 3, "offload_optimizer": True, "offload_parameters": True, "nvme_path": "/nvme", "logging_batch_size_per_gpu": 4},
    {"zero_optimization": False},
    {"stage": 1, "reduce_bucket_size": 5e8, "overlap_comm": False},
])
def test_explicit_strategy_objects_build_the_same_config(kwargs, monkeypatch):
    monkeypatch.delenv(table.DEEPSPEED_ENV_VAR, raising=False)
    assert table.deepspeed_default_config(**kwargs) == _lightning_config(**kwargs)


def test_strategy_lookup_is_case_insensitive_like_lightning():
    assert table.strategy_entry("DeepSpeed_Stage_2_Offload") == ("DeepSpeedStrategy", {"stage": 2, "offload_optimizer": True})
    assert table.strategy_entry("deepspeed_stage_1_offload") is None
    assert table.strategy_entry("deepspeed_stage_1_offload", fabric=True) is not None
