"""Callback hooks that Lightning no longer calls, and the code that sits in one.

A method of a `Callback` subclass named after a hook Lightning removed never runs with a release
from the removal on: the trainer calls only the hooks its own `Callback` class defines. What sits
in such a method is dead code when every release the dependency files nearest the script allow
is that new (`facts.dependencies.oldest_allowed`); with no lower bound dslint cannot tell and
keeps its findings. The releases are those of Lightning's CHANGELOG.md.
"""
from __future__ import annotations

import ast
from typing import Optional

from .script import ScriptFacts

# hook -> the release that stopped calling it
REMOVED_CALLBACK_HOOKS: dict[str, tuple] = {
    "on_keyboard_interrupt": (1, 7),  # #13438, in favour of on_exception
    # 1.8.0: #14834 and #14867
    "on_configure_sharded_model": (1, 8),
    "on_before_accelerator_backend_setup": (1, 8),
    "on_batch_start": (1, 8),
    "on_batch_end": (1, 8),
    "on_epoch_start": (1, 8),
    "on_epoch_end": (1, 8),
    "on_pretrain_routine_start": (1, 8),
    "on_pretrain_routine_end": (1, 8),
    "on_init_start": (1, 8),
    "on_init_end": (1, 8),
}
_CALLBACKS = ("lightning.pytorch.Callback", "lightning.pytorch.callbacks.Callback",
              "lightning.pytorch.callbacks.callback.Callback", "lightning.pytorch.callbacks.base.Callback")


def removed_hook_of(facts: ScriptFacts, node: ast.AST) -> Optional[tuple[str, tuple]]:
    """(hook, release that stopped calling it) when `node` sits in a removed hook of a Lightning
    Callback subclass of this module (not in a function nested in it) that the module itself
    never calls by name."""
    if not (facts.uses("lightning") or facts.uses("pytorch_lightning")):
        return None
    where = facts.context_of(node)
    function, cls = (where.function, where.class_) if where is not None else (None, None)
    if cls is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or function.name not in REMOVED_CALLBACK_HOOKS or function not in cls.body:
        return None
    if facts.method_calls(function.name) or not _is_callback(facts, cls, 0):
        return None  # (the project calls it itself)
    return function.name, REMOVED_CALLBACK_HOOKS[function.name]


def hook_needs(facts: ScriptFacts, node: ast.AST, needs: Optional[tuple]) -> Optional[tuple]:
    """The `needs` (see rules.registry.Report) of a finding at `node`: in a removed Callback hook,
    the project phase first asks whether the pinned Lightning still calls it, then `needs`."""
    hook = removed_hook_of(facts, node)
    if hook is None:
        return needs
    return ("lightning-hook-runs", (("hook", hook[0]), ("removed", hook[1]), ("then", needs)))


def _is_callback(facts: ScriptFacts, cls: ast.ClassDef, depth: int) -> bool:
    for base in cls.bases:
        if facts.resolve(base) in _CALLBACKS:
            return True
        local = facts.classes.get(base.id) if isinstance(base, ast.Name) and depth < 4 else None
        if local is not None and local is not cls and _is_callback(facts, local, depth + 1):
            return True
    return False
