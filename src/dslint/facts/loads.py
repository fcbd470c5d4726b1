"""What a `torch.load` reads back, where the module itself shows it: tensors on the CPU.

`torch.load` restores each tensor onto the device it was saved from, so a load without
`map_location` matters only for files saved from a GPU. A module shows that a file holds CPU tensors
when it writes the file itself from something that is no model state:
- `torch.save(x.cpu(), "feats.pt")`, then `torch.load(os.path.join(d, "feats.pt"))` (the same literal);
- `torch.save(dataset, cache_path)` then `torch.load(cache_path)` in the same function, or a
  spectrogram computed from audio, saved and read back under the same name: data made on the CPU
  (a value that names no `state_dict()`, model, optimizer or checkpoint is taken as data);
- a sample read in a `torch.utils.data.Dataset` method: DataLoader workers run without CUDA.
"""
from __future__ import annotations

import ast
import re
from typing import Optional

from ..sources.names import dotted
from .bindings import semantic_model
from .script import CallSite, ScriptFacts

_DATASETS = ("torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset",
             "torch.utils.data.dataset.IterableDataset")
# Words of a name that may hold model state (GPU tensors): such a save proves nothing about the device.
_RNG_GETTERS = re.compile(r"get_rng_state(_all)?$|getstate$|get_state$")
_STATE_WORDS = re.compile(r"state|model|net|optim|ckpt|checkpoint|weight|param|module|engine|sd\b", re.IGNORECASE)


def loads_cpu_tensors(facts: ScriptFacts, site: CallSite) -> Optional[str]:
    """Why the module shows this torch.load reads CPU tensors (a few words), or None."""
    if _in_dataset(facts, site):
        return "a Dataset reads its samples on the CPU"
    path = site.argument(0, "f")
    if path is None:
        return None
    literals, names = facts.derived("cpu_saves", _cpu_saves)
    paths = [path]
    if isinstance(path, ast.Name):  # `rng_file = os.path.join(d, "rng_state.pth")` in either branch
        paths += semantic_model(facts).values_of(path, hops=1)
    if any(_file_names(p) & literals for p in paths):
        return "the module saved this file from the CPU"
    name = dotted(path)
    if name and (id(site.ctx.function), name) in names:
        return "the module saved this file from the CPU"
    return None


def _in_dataset(facts: ScriptFacts, site: CallSite) -> bool:
    klass = site.ctx.class_
    if klass is None or site.ctx.function is None:
        return False
    return any((facts.resolve(base) or "") in _DATASETS for base in klass.bases)


def _cpu_saves(facts: ScriptFacts) -> tuple:
    """(file-name literals of `torch.save(x.cpu(), ...)`, {(id(function), path name)} of saves of
    data that is no model state)."""
    model = semantic_model(facts)
    literals, names = set(), set()
    for site in facts.calls_to("torch.save"):
        value, path = site.argument(0, "obj"), site.argument(1, "f")
        if value is None or path is None:
            continue
        if _may_be_state(model.value_of(value)):  # (what the name holds, not its name: `rng_states`)
            continue
        literals |= _file_names(path)
        if dotted(path):
            names.add((id(site.ctx.function), dotted(path)))
    return literals, names


def _file_names(path: ast.AST) -> set:
    """The string parts of a path expression that name a file (`"feats.pt"`, `"rng_state_"`), not an
    extension or a separator alone."""
    return {n.value for n in ast.walk(path) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and len(n.value.strip("./")) >= 4 and not n.value.startswith(".")}


def _may_be_state(expr: ast.AST) -> bool:
    """May the saved value hold model state on a GPU (`model.state_dict()`, `{"model": net, ...}`,
    `ckpt`)? `x.cpu()` and RNG states (`torch.get_rng_state()`, CPU byte tensors) do not; a dict
    may when one of its values may."""
    if isinstance(expr, ast.Dict):
        return any(_may_be_state(v) for v in expr.values if v is not None) or any(v is None for v in expr.values)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and (
            expr.func.attr == "cpu" or _RNG_GETTERS.match(expr.func.attr)):
        return False
    for node in ast.walk(expr):
        word = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if word and _STATE_WORDS.search(word):
            return True
    return False
