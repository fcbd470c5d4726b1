"""fixes.with_import adds `from package import name` as libcst's AddImportsVisitor does (the
visitor costs a libcst.matchers import and a walk of every node; the fixes only need its result)."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor

from dslint.fixes import with_import

PACKAGE, NAME = "torch.utils.data.distributed", "DistributedSampler"

SHAPES = [
    "",
    "x = 1\n",
    "# a comment\nx = 1\n",
    '"""Doc."""\nx = 1\n',
    '"""Doc."""\n\nimport os\n\n\ndef f():\n    pass\n',
    "__strict__ = True\nimport os\nx = 1\n",
    "import os\nimport sys\n# why\nx = 1\n",
    "import os\n\nx = 1\n",
    "from torch.utils.data.distributed import DistributedSampler\nx = 1\n",
    "from torch.utils.data.distributed import *\nx = 1\n",
    "from torch.utils.data.distributed import Other\nx = 1\n",
    "from torch.utils.data.distributed import (\n    Other,\n    More,\n)\nx = 1\n",
    "from torch.utils.data.distributed import DistributedSampler as DS\nx = 1\n",
    "import os; import sys\nx = 1\n",
    "import os\nx = 1\nfrom torch.utils.data.distributed import Other\n",
    "from . import distributed\nimport torch\n",
    "from __future__ import annotations\nimport os\n\n\nclass A:\n    pass\n",
    "'''doc''' ; import os\nx = 1\n",
    "b'bytes'\nimport os\n",
    "def f():\n    from torch.utils.data.distributed import DistributedSampler\n",
    "import os\r\nx = 1\r\n",
    "if True:\n    import os\n",
]


def visitor(module):
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, PACKAGE, NAME)
    return AddImportsVisitor(context).transform_module(module)


@pytest.mark.parametrize("text", SHAPES)
def test_with_import_writes_what_libcst_writes(text):
    module = cst.parse_module(text)
    assert with_import(module, PACKAGE, NAME).code == visitor(module).code


def test_with_import_on_real_modules():
    for path in sorted(Path(__file__).resolve().parents[1].joinpath("src", "dslint").rglob("*.py"))[:40]:
        module = cst.parse_module(path.read_text())
        assert with_import(module, PACKAGE, NAME).code == visitor(module).code, path
