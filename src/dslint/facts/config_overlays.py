"""A DeepSpeed config built in program order: files, imported constants and literal keys, applied as
the script applies them (`cfg = json.load(f)`, then `cfg.update({"bf16": {...}})`, `cfg["zero"]["stage"] = 3`,
`{**BASE, "train_micro_batch_size_per_gpu": 8}`).

The script's summary holds the layers (config_dicts.ConfigLayer, on a ConfigRef how="layered"); the
linker applies them here, with the project's config files and module constants in hand, to the value
DeepSpeed (or the HF Trainer) reads. Each key of the result keeps where its value was written: in a
config file at its pair, in the script at the update's key, in a module at the constant's key, so a
rule reports a value where the user wrote it (`OverlayDoc.file_of`).
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Optional

from .config_dicts import DictDoc, DictNode, applies, given_options, resolve_leaves

if TYPE_CHECKING:
    from .link import ConfigLink, TrainingSetup
    from .script_setup import ConfigRef
    from .setup import Project


class OverlayDoc(DictDoc):
    """The config a layered reference builds, read as a config document (DictDoc's reading: never strict,
    NotLiteral values unknown). `path` is the script's; `file_of(span)` the file a node's span is in."""

    def __init__(self, path: str, value: dict, origins: list, root_span):
        self.path, self.value, self.text = path, value, None
        self._files: dict = {}
        self.root = DictNode(value, root_span, kind="object")
        self._register(self.root, path)
        self._build(self.root, (), origins)

    def _register(self, node, file: str) -> None:
        for span in (node.span, node.key_span, node.pair_span):
            if span is not None:
                self._files.setdefault(id(span), file)

    def _build(self, parent: DictNode, path: tuple, origins: list) -> None:
        for key, value in parent.value.items():
            where = path + (key,)
            origin = next((o for o in reversed(origins) if where[:len(o[0])] == o[0]), None)
            if origin is None:
                continue
            root, file, doc, prefix = origin
            source = doc.node(prefix + where[len(root):])
            if source is None:
                continue
            node = DictNode(value, source.span, source.key_span, source.pair_span,
                            kind="object" if isinstance(value, dict) else source.kind)
            self._register(node, file)
            parent.children[key] = node
            if isinstance(value, dict):
                self._build(node, where, origins)
            elif source.children:  # a list of a file: its items as the file writes them
                node.children = dict(source.children)
                stack = list(source.children.values())
                while stack:
                    item = stack.pop()
                    self._register(item, file)
                    stack.extend(item.children.values())

    def file_of(self, span, default: Optional[str] = None) -> str:
        """The file a span of this document's nodes is in (the script, a config file, a module)."""
        return self._files.get(id(span), default or self.path)


def layered_config(project: "Project", setup: "TrainingSetup", ref: "ConfigRef", link: "ConfigLink") -> bool:
    """Apply the layers of `ref` (how="layered") into `link`: its value, and `overlay` (an OverlayDoc) for
    the rules that report at keys. False, with a note, when a layer is not known (a file not among the
    checked configs, a constant no module defines, a key written into a dict that is not there)."""
    from .link import option_value, script_args, config_bases, resolve_path
    from .option_defaults import option_passed

    value: dict = {}
    origins: list = []  # (key path in the result, file, document, key path in that document)
    program = project.program
    args = script_args(setup.command)
    given = lambda options: option_passed(args, options)  # noqa: E731
    for layer in ref.layers:
        applied = applies(layer, given)
        if applied is None:
            setup.notes["config"] = f"{ref.what}: it changes under a test of an option the launch line may pass"
            return False
        if not applied:
            continue
        holder = value
        for key in layer.holder:
            holder = holder.get(key) if isinstance(holder, dict) else None
        if not isinstance(holder, dict):
            setup.notes["config"] = f"{ref.what}: {'.'.join(layer.holder)} is written into before it exists"
            return False
        if layer.kind == "file":
            source = layer.source
            if layer.options and given(layer.options) is not False:  # the launch line names the file
                named = option_value(args, layer.options)
                if named is None:
                    setup.notes["config"] = f"{ref.what}: the file {' / '.join(layer.options)} names is not known"
                    return False
                source = named[0]
            found = resolve_path(project, project.configs, source, config_bases(project, setup))
            doc = project.configs.get(found.found) if found.found is not None else None
            if doc is None or not isinstance(doc.value, dict):
                setup.notes["config"] = f"{ref.what}: {found.why() if doc is None else f'{found.found} is no object'}"
                return False
            file, entries, prefix = found.found, doc.value, ()
        elif layer.kind == "constant":
            constant = program.exported_constant(setup.script_path, layer.source, "config_constants",
                                         exports=setup.summary.module)
            if constant is None:
                setup.notes["config"] = f"{ref.what}: {layer.source}, imported, is no config dict of a project module"
                return False
            target, _, template = constant
            file = program.display.get(target, target)
            entries, prefix = resolve_leaves(template.value, imported_values(program, target)), ()
            doc = DictDoc(file, template.value, dict(template.spans)) if template.spans else None
        else:
            file, prefix = setup.script_path, ()
            entries = given_options(resolve_leaves(layer.value, imported_values(program, file)), given)
            doc = DictDoc(file, layer.value, dict(layer.spans)) if layer.spans else None
        if doc is None:
            continue
        for key, entry in entries.items():
            holder[key] = copy.deepcopy(entry)
            origins.append((layer.holder + (key,), file, doc, prefix + (key,)))
    link.value = value
    link.how = f"{ref.what}: {_described(ref.layers)} in {setup.script_path}"
    link.ref_span, link.ref_path = ref.span, setup.script_path
    link.overlay = OverlayDoc(setup.script_path, value, origins, ref.span)
    return True


def _described(layers: tuple) -> str:
    """`ds.json updated in code`, `BASE of ds_base.py and literal keys`: a few words for --show-setup."""
    parts: list = []
    for layer in layers:
        part = repr(layer.source) if layer.kind == "file" else layer.source if layer.kind == "constant" else \
            "literal keys"
        if not parts or parts[-1] != part:
            parts.append(part)
    return "built from " + ", then ".join(parts)


def imported_values(program, path: str):
    """The lookup `config_dicts.resolve_leaves` wants for the module `path`: an ImportedName's `local`
    (`ZERO_STAGE` of `from constants import ZERO_STAGE`, `constants.ZERO_STAGE` of `import constants`) ->
    the int or str that module binds it to once (`value_constants`), or None."""
    def lookup(local: str) -> Any:
        found = program.module_constant(path, local, "value_constants")
        return found[2] if found is not None else None

    return lookup


def overlay_of(setup: "TrainingSetup") -> Any:
    """The OverlayDoc of a setup's config, or None (a plain file or dict config)."""
    return getattr(setup.config, "overlay", None)
