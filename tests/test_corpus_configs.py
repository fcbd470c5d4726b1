"""dslint on the 99 real DeepSpeed configs of the research corpus: no crash, and exactly the
findings that were read one by one and judged real (counts per rule, DeepSpeed 0.19.8).

Judgement (2026-11-30): DSL601 — `fp16_opt_level` (Apex key, ValidationError), `compile.disable`
/`compile.backend` (axolotl, ValidationError), `max_grad_norm` in optimizer params (engine
ValueError, 3 Megatron files), `cuda_visible_devices`, `comms_config`, `monitor_config`
(silently ignored). DSL602 — removed feature blocks (DeepSpeedConfigError on 0.19.8). DSL603 —
`reduce_bucket_size: 0` (gt=0 on 0.19.8), `min_loss_scale: 1e-10`; the placeholders of the 9
`*_TEMPLATE*.json` files (filled with sed before use) are deliberately not reported. DSL604 — `"auto"`
nobody fills (sglang `stage3_max_live_parameters`/`buffer_size`, transformers `bfloat16.enabled`).
DSL605 — `cpu_offload`, `bfloat16`, `stage3_gather_fp16_weights_on_model_save`. DSL608 —
`offload_param` at stage 0 (DeepSpeed's hybrid-engine test config). DSL613 — LLaMA-Factory fp8
config offloads with `pin_memory: false`.
"""
from __future__ import annotations

import os
from collections import Counter

from dslint import engine
from dslint.settings import Settings

from .conftest import shared_or_skip

JUDGED = {"DSL601": 11, "DSL602": 12, "DSL603": 2, "DSL604": 6, "DSL605": 5, "DSL608": 1, "DSL613": 1}


def test_corpus_configs_crash_nothing_and_give_only_judged_findings():
    folder = shared_or_skip("corpus", "ds_configs")
    old = os.getcwd()
    os.chdir(folder)
    try:
        result = engine.check(["."], Settings.model_validate({"deepspeed-version": "0.19.8"}), root=folder,
                              use_cache=False, jobs=1)
    finally:
        os.chdir(old)
    codes = Counter(f.code for f in result.findings)
    assert not result.internal_error and "DSL003" not in codes, [f.message for f in result.findings if f.code == "DSL003"]
    assert result.files >= 90
    assert dict(codes) == JUDGED
