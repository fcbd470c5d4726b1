"""Is a dataset already this rank's share? `datasets.distributed.split_dataset_by_node(ds, rank=...,
world_size=...)` gives each rank its rows (map-style datasets too), so does indexing the data by the
rank (`idx.split(n)[rank]`), and the HF dataset methods that
make a dataset from the receiver's rows (`.shuffle()`, `.map()`, `.with_format()`) keep that: a
DistributedSampler over such a dataset would split it a second time.

One walk for the loader rules of a module and for the loader factories of the program summary.
"""
from __future__ import annotations

import ast
from typing import Iterator

from .bindings import SemanticModel
from .conditions import mentions_rank
from .script import ScriptFacts

# Methods of an HF `datasets` dataset (map-style and iterable alike) that return a dataset made
# from the receiver's rows: what the receiver is (a rank's shard, a stream), the result is.
DATASET_PRESERVING_METHODS = frozenset({
    "map", "filter", "shuffle", "with_format", "select_columns", "remove_columns", "rename_column",
    "rename_columns", "cast", "cast_column", "take", "skip", "batch", "with_transform",
})


def dataset_origins(model: SemanticModel, dataset: ast.AST, hops: int = 6) -> Iterator[ast.expr]:
    """The expression `dataset` evaluates to, then, through dataset-preserving method calls
    (`split_dataset_by_node(...).map(f)`), the receivers it was made from."""
    expr = model.value_of(dataset)
    for _ in range(hops):
        yield expr
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
                and expr.func.attr in DATASET_PRESERVING_METHODS):
            return
        expr = model.value_of(expr.func.value)


def splits_per_rank(qualname: str) -> bool:
    """Does a call of this qualified name give each rank its own rows? HF's split_dataset_by_node, and
    MosaicML's StreamingDataset (an IterableDataset that partitions its samples by RANK/WORLD_SIZE)."""
    last = qualname.rsplit(".", 1)[-1]
    return (qualname.startswith("datasets.") and last == "split_dataset_by_node") or (
        qualname.startswith("streaming.") and last == "StreamingDataset")


def indexed_by_rank(facts: ScriptFacts, expr: ast.AST) -> bool:
    """`indices.split(n)[rank]`, `shards[rank::world_size]`: the part of the data the rank picks."""
    return isinstance(expr, ast.Subscript) and mentions_rank(facts, expr.slice)


def split_per_rank(facts: ScriptFacts, model: SemanticModel, dataset: ast.AST) -> bool:
    """Was `dataset` (through the names it is bound to and the preserving methods) split per rank?"""
    return any((isinstance(expr, ast.Call) and (splits_per_rank(model.resolve(expr.func) or "")
                                                or keeps_rank_share(facts, expr)))
               or indexed_by_rank(facts, expr) for expr in dataset_origins(model, dataset))


def keeps_rank_share(facts: ScriptFacts, call: ast.Call) -> bool:
    """`ShardedManifest(path)` of a class of this module whose `__init__` keeps only the rank's share of
    its data (`self.entries = entries[rank::world]`): an instance is already this rank's part."""
    klass = facts.classes.get(call.func.id) if isinstance(call.func, ast.Name) else None
    return klass is not None and class_keeps_rank_share(facts, klass)


def class_keeps_rank_share(facts: ScriptFacts, klass: ast.ClassDef) -> bool:
    """Does the class's `__init__` store the rank's share of its data (`self.entries = entries[rank::world]`)?"""
    init = next((s for s in klass.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    return init is not None and any(
        isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                             and t.value.id == "self" for t in node.targets)
        and indexed_by_rank(facts, node.value) for node in ast.walk(init))
