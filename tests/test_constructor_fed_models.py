"""DSL402: a class stores a model its constructor is given (`self.reference = reference`) and runs it in a
training step with autograd on, next to the model it trains; the callers in other modules pass a
`from_pretrained` model (eval mode) they never train or freeze: a reference model recording its graph."""
from __future__ import annotations

TRAINER = ("import torch.nn.functional as F\n\n\nclass DPOTrainer:\n"
           "    def __init__(self, policy, reference, optimizer):\n"
           "        self.policy = policy\n        self.reference = reference\n        self.optimizer = optimizer\n"
           "        self.policy.train()\n\n"
           "    def train_step(self, ids):\n"
           "        margin = self.policy(ids).logits.mean() - self.reference(ids).logits.mean()\n"
           "        loss = -F.logsigmoid(margin)\n"
           "        self.optimizer.zero_grad()\n        loss.backward()\n        self.optimizer.step()\n"
           "EXTRA")
TRAIN = ("import torch\nfrom transformers import AutoModelForCausalLM\n\nfrom dpo import DPOTrainer\n\n"
         "policy = AutoModelForCausalLM.from_pretrained('sft').to('cuda')\n"
         "reference = AutoModelForCausalLM.from_pretrained('sft').to('cuda')\n"
         "LATER"
         "trainer = DPOTrainer(policy, reference, torch.optim.AdamW(policy.parameters()))\n")


def rows(project, extra="", later=""):
    project.write({"dpo.py": TRAINER.replace("EXTRA", extra), "train.py": TRAIN.replace("LATER", later)})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL402"]).findings if f.code == "DSL402"]


def test_a_pretrained_reference_the_constructor_stores_records_its_graph(project):
    assert rows(project) == [("dpo.py", 12)]


def test_a_reference_the_caller_freezes_or_the_class_touches_is_not_reported(project):
    assert rows(project, later="reference.requires_grad_(False)\n") == []
    assert rows(project, extra="\n    def frozen(self):\n        return list(self.reference.parameters())\n") == []
    assert rows(project, extra="\n    def step(self, ids):\n        with torch.no_grad():\n"
                               "            return self.reference(ids)\n") == [("dpo.py", 12)]


LOADER = ("import torch\nfrom transformers import AutoModelForCausalLM\n\n\ndef load_reference(path):\n"
          "    reference = AutoModelForCausalLM.from_pretrained(path).to('cuda')\n    reference.eval()\nFREEZE"
          "    return reference\n")
HELPER_TRAIN = ("import torch\nfrom transformers import AutoModelForCausalLM\n\nfrom dpo import DPOTrainer\n"
                "from models import load_reference\n\n"
                "policy = AutoModelForCausalLM.from_pretrained('sft').to('cuda')\n"
                "reference = load_reference('sft')\nprint(reference.config)\nLATER"
                "trainer = DPOTrainer(policy, reference, torch.optim.AdamW(policy.parameters()))\n")


def helper_rows(project, freeze="", later=""):
    project.write({"dpo.py": TRAINER.replace("EXTRA", ""), "models.py": LOADER.replace("FREEZE", freeze),
                   "train.py": HELPER_TRAIN.replace("LATER", later)})
    return [(f.path, f.span.start.row) for f in project.check(select=["DSL402"]).findings if f.code == "DSL402"]


def test_a_reference_a_loader_of_another_module_returns_in_eval_mode(make_project):
    assert helper_rows(make_project("plain")) == [("dpo.py", 12)]
    assert helper_rows(make_project("frozen"), freeze="    reference.requires_grad_(False)\n") == []
    assert helper_rows(make_project("caller"), later="reference.requires_grad_(False)\n") == []
