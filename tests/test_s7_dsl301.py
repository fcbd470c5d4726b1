"""DSL301: iterable datasets made through project functions and functional datapipes, and `cv` as an
evaluation name (ecosystem judge E: wenet, CosyVoice)."""
from __future__ import annotations

HEAD = ("import os\n\nimport torch\nimport torch.distributed as dist\n"
        "from torch.utils.data import DataLoader, Dataset, IterableDataset, IterDataPipe, TensorDataset\n\n")
SETUP = ("local_rank = int(os.environ['LOCAL_RANK'])\ntorch.cuda.set_device(local_rank)\n"
         "dist.init_process_group('nccl')\n"
         "model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda())\n")


def rows(project, code="DSL301"):
    return [f.span.start.row for f in project.check(select=[code]).findings if f.code == code]


# -- a factory function of this module -----------------------------------------------------------

FACTORY = HEAD + ("class DataList(BASE):\n    def __init__(self, lists):\n        self.lists = lists\n\n"
                  "    def __iter__(self):\n        yield from self.lists\n\n\n"
                  "def Dataset_(lists):\n    return DataList(lists)\n\n\n") + SETUP + (
    "train_dataset = Dataset_(['a', 'b'])\n"
    "train_loader = DataLoader(train_dataset, batch_size=None, num_workers=2)\n"  # row 24
    "for batch in train_loader:\n    pass\n")


def test_an_iterable_dataset_returned_by_a_function_of_the_module_is_not_reported(project):
    project.write({"train.py": FACTORY.replace("BASE", "IterableDataset")})
    assert rows(project) == []


def test_a_map_style_dataset_returned_by_a_function_is_still_reported(project):
    project.write({"train.py": FACTORY.replace("BASE", "Dataset")})
    assert rows(project) == [24]


# -- IterDataPipe subclasses and their functional datapipes --------------------------------------

PIPE = HEAD + ("class Source(IterDataPipe):\n    def __init__(self, lists):\n        super().__init__()\n"
               "        self.lists = lists\n\n    def __iter__(self):\n        yield from self.lists\n\n"
               "    def collect(self):\n        return list(self.lists)\n\n\n") + SETUP + (
    "plain = DataLoader(Source(['a']), batch_size=None)\n"  # row 23
    "mapped = Source(['a', 'b']).map(str.upper)\nmapped = mapped.filter(bool).shuffle()\n"
    "chained = DataLoader(mapped, batch_size=None)\n"  # row 26
    "listed = DataLoader(Source(['a']).collect(), batch_size=2)\n"  # row 27: a method of its own
    "for batch in chained:\n    pass\n")


def test_an_iterdatapipe_and_its_functional_datapipes_are_iterable(project):
    project.write({"train.py": PIPE})
    assert rows(project) == [27]


def test_a_map_style_class_chained_the_same_way_is_still_reported(project):
    project.write({"train.py": PIPE.replace("class Source(IterDataPipe)", "class Source(Dataset)")})
    assert rows(project) == [23, 26, 27]


# -- factories of other modules (wenet: init_dataset -> Dataset -> Source(...).map(...)) -------------

TRAIN = HEAD + "from utils.init import init_dataset\n\n" + SETUP + (
    "train_dataset = init_dataset('raw', 'data.list')\n"
    "train_data_loader = DataLoader(train_dataset, batch_size=None, num_workers=2)\n"  # row 14
    "for batch in train_data_loader:\n    pass\n")
INIT = ("from data.dataset import Dataset\n\n\ndef init_asr(kind, lists):\n    return Dataset(kind, lists)\n\n\n"
        "def init_dataset(kind, lists):\n    return init_asr(kind, lists)\n")
DATASET = ("from data import pipes\nfrom data.pipes import RawSource, TarSource\n\n\n"
           "def Dataset(kind, lists):\n    if kind == 'raw':\n        dataset = RawSource(lists)\n"
           "        dataset = dataset.map(str.strip)\n    else:\n        dataset = pipes.TarSource(lists)\n"
           "    dataset = dataset.decode()\n    dataset = dataset.filter(bool)\n    return dataset\n")
PIPES = ("import torch\nfrom torch.utils.data import IterDataPipe, functional_datapipe\n\n\n"
         "class RawSource(IterDataPipe):\n    def __init__(self, lists):\n        self.lists = lists\n\n"
         "    def __iter__(self):\n        yield from self.lists\n\n\nclass TarSource(RawSource):\n    pass\n\n\n"
         "@functional_datapipe('decode')\nclass Decode(IterDataPipe):\n    def __init__(self, dp):\n        self.dp = dp\n\n"
         "    def __iter__(self):\n        yield from self.dp\n")


def test_an_iterdatapipe_chain_built_by_functions_of_other_modules_is_not_reported(project):
    project.write({"train.py": TRAIN, "utils/__init__.py": "", "utils/init.py": INIT, "data/__init__.py": "",
                   "data/dataset.py": DATASET, "data/pipes.py": PIPES})
    assert rows(project) == []


def test_a_map_style_class_behind_the_same_functions_is_still_reported(project):
    project.write({"train.py": TRAIN, "utils/__init__.py": "", "utils/init.py": INIT, "data/__init__.py": "",
                   "data/dataset.py": DATASET,
                   "data/pipes.py": PIPES.replace("class RawSource(IterDataPipe)", "class RawSource(torch.utils.data.Dataset)")})
    assert rows(project) == [14]


def test_a_method_the_imported_class_defines_is_not_taken_for_a_datapipe(project):
    project.write({"train.py": TRAIN, "utils/__init__.py": "", "utils/init.py": INIT, "data/__init__.py": "",
                   "data/dataset.py": DATASET,
                   "data/pipes.py": PIPES.replace("class TarSource(RawSource):\n    pass\n",
                                                  "class TarSource(RawSource):\n    def decode(self):\n"
                                                  "        return list(self.lists)\n")})
    assert rows(project) == [14]


# CosyVoice: `dataset = DataList(...)`, then `for func in pipeline: dataset = Processor(dataset, func)`
COSY = ("import torch\nfrom torch.utils.data import IterableDataset\n\n\nclass Processor(IterableDataset):\n"
        "    def __init__(self, source, f):\n        self.source, self.f = source, f\n\n"
        "    def __iter__(self):\n        return self.f(iter(self.source))\n\n\nclass DataList(BASE):\n"
        "    def __init__(self, lists):\n        self.lists = lists\n\n    def __iter__(self):\n"
        "        yield from self.lists\n\n\ndef Dataset(lists, pipeline):\n    dataset = DataList(lists)\n"
        "    for func in pipeline:\n        dataset = Processor(dataset, func)\n    return dataset\n")
COSY_TRAIN = HEAD.replace("Dataset, ", "") + "from cosy.dataset import Dataset\n\n" + SETUP + (
    "train_dataset = Dataset(['a'], [])\n"
    "train_data_loader = DataLoader(train_dataset, batch_size=None, num_workers=2)\n"  # row 14
    "for batch in train_data_loader:\n    pass\n")


def test_an_iterable_dataset_rebound_in_a_loop_by_an_imported_function_is_not_reported(project):
    project.write({"train.py": COSY_TRAIN, "cosy/__init__.py": "",
                   "cosy/dataset.py": COSY.replace("BASE", "IterableDataset")})
    assert rows(project) == []


def test_a_map_style_value_the_imported_function_may_return_is_still_reported(project):
    project.write({"train.py": COSY_TRAIN, "cosy/__init__.py": "",
                   "cosy/dataset.py": COSY.replace("BASE", "torch.utils.data.Dataset")})
    assert rows(project) == [14]


# -- `cv`: the cross-validation set ----------------------------------------------------------------

CV = HEAD + SETUP + "NAME_dataset = TensorDataset(torch.randn(10, 8))\nNAME_loader = DataLoader(NAME_dataset, batch_size=4)\n"


def test_a_cv_loader_is_an_evaluation_loader(project):
    for name in ("cv", "cv_data", "data_cv", "CV"):
        project.write({"train.py": CV.replace("NAME", name)})
        assert rows(project) == [], name


def test_cv_inside_another_word_is_no_evaluation_name(project):
    for name in ("cvt", "recv", "opencv", "cv2"):
        project.write({"train.py": CV.replace("NAME", name)})
        assert rows(project) == [12], name
