"""Building dslint's pydantic models without pydantic's plugin discovery.

dslint uses no pydantic plugin, yet building a model's validator makes pydantic scan the entry
points of every installed distribution for one (`pydantic.plugin._loader.get_plugins`), unless
`PYDANTIC_DISABLE_PLUGINS` says not to: 5-6 ms of a 10-file check. The variable is set only
while dslint builds its models, so the user's environment and the processes dslint starts keep
theirs (typer does the same for its parameter adapters).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

_VARIABLE = "PYDANTIC_DISABLE_PLUGINS"


@contextmanager
def plugins_off() -> Iterator[None]:
    previous = os.environ.get(_VARIABLE)
    os.environ[_VARIABLE] = "__all__"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(_VARIABLE, None)
        else:
            os.environ[_VARIABLE] = previous
