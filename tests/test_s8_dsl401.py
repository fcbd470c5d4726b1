"""DSL401 in the eighth session: an export's one verification forward on inputs a helper makes up
(program_effects.made_up), and an evaluation under a context manager that freezes the parameters."""
from __future__ import annotations


def rows(project):
    return [f.span.start.row for f in project.check(select=["DSL401"]).findings if f.code == "DSL401"]


# -- facts/program_effects.py: a helper that returns made-up inputs ----------------------------------

DEMO = '''import numpy as np
import torch


def _demo_inputs(input_shape, num_classes):
    (N, C, H, W) = input_shape
    rng = np.random.RandomState(0)
    imgs = rng.rand(*input_shape)
    segs = rng.randint(low=0, high=num_classes - 1, size=(N, 1, H, W)).astype(np.uint8)
    metas = [{'img_shape': (H, W, C), 'filename': '<demo>.png', 'flip': False} for _ in range(N)]
    return {'imgs': torch.FloatTensor(imgs).requires_grad_(True), 'img_metas': metas,
            'gt': torch.LongTensor(segs)}


def export(model, input_shape, verify=False):
    model.cpu().eval()
    inputs = SOURCE
    imgs = inputs.pop('imgs')
    metas = inputs.pop('img_metas')
    img_list = [img[None, :] for img in imgs]
    meta_list = [[m] for m in metas]
    with torch.no_grad():
        torch.onnx.export(model, (img_list,), 'tmp.onnx')
    if verify:
        result = model(img_list, meta_list, return_loss=False)[0]
        print(result.argmax())
'''

LOADED = '''

def _loaded_inputs(input_shape, path):
    (N, C, H, W) = input_shape
    batch = torch.load(path)
    return {'imgs': torch.FloatTensor(batch), 'img_metas': [{'img_shape': (H, W, C)} for _ in range(N)]}
'''


def test_a_verification_forward_on_inputs_a_helper_makes_up_is_silent(project):
    project.write({"export.py": DEMO.replace("SOURCE", "_demo_inputs(input_shape, 19)")})
    assert rows(project) == []


def test_a_forward_on_inputs_a_helper_loads_is_still_reported(project):
    project.write({"export.py": DEMO.replace("SOURCE", "_loaded_inputs(input_shape, 'batch.pt')") + LOADED})
    assert rows(project) == [25]


def test_a_helper_returning_a_parameter_is_not_made_up(project):
    # `return {'imgs': images}` hands back what the caller gave: real data, not made up
    helper = "\n\ndef _pack(images):\n    return {'imgs': images, 'img_metas': [{'flip': False}]}\n"
    project.write({"export.py": DEMO.replace("SOURCE", "_pack(torch.load('x.pt'))") + helper})
    assert rows(project) == [25]


# -- rules/memory.py: a @contextmanager that freezes the model's parameters ---------------------------

FREEZE = '''from contextlib import contextmanager

import torch


@contextmanager
def preserve_grad_state(model):
    backup = {p: p.requires_grad for p in model.parameters()}
    try:
        for p in model.parameters():
            p.requires_grad = False
        yield
    finally:
        for p, flag in backup.items():
            p.requires_grad = flag


@contextmanager
def timed(model):
    yield


def evaluate(model, data_loader, device):
    total = 0.0
    with CONTEXT(model):
        for batch in data_loader:
            batch = batch.to(device)
            out = model(batch, training=False, compute_force=True)
            total += out['energy'].sum().item()
    return total
'''


def test_an_evaluation_under_a_context_that_freezes_the_parameters_is_silent(project):
    project.write({"train.py": FREEZE.replace("CONTEXT", "preserve_grad_state")})
    assert rows(project) == []


def test_an_evaluation_under_another_context_is_still_reported(project):
    project.write({"train.py": FREEZE.replace("CONTEXT", "timed")})
    assert rows(project) == [28]


# -- facts/module_summary.py: FunctionSummary.returns_made_up of a helper another module defines -----

def _imported(source: str) -> str:
    body = DEMO.split("\n\ndef export", 1)[1]
    return ("import torch\n\nfrom demo import _demo_inputs, _loaded_inputs\n\n\ndef export" + body).replace("SOURCE", source)


def test_a_verification_forward_on_inputs_an_imported_helper_makes_up_is_silent(project):
    helpers = DEMO.split("\n\ndef export", 1)[0] + LOADED
    project.write({"export.py": _imported("_demo_inputs(input_shape, 19)"), "demo.py": helpers})
    assert rows(project) == []


def test_a_forward_on_inputs_an_imported_helper_loads_is_still_reported(project):
    helpers = DEMO.split("\n\ndef export", 1)[0] + LOADED
    project.write({"export.py": _imported("_loaded_inputs(input_shape, 'batch.pt')"), "demo.py": helpers})
    assert rows(project) == [16]


def test_a_helper_with_one_return_of_real_data_is_not_made_up(project):
    helper = ("\n\ndef _either(input_shape, path=None):\n    if path is not None:\n        return torch.load(path)\n"
              "    return _demo_inputs(input_shape, 19)\n")
    project.write({"export.py": DEMO.replace("SOURCE", "_either(input_shape)") + helper})
    assert rows(project) == [25]
