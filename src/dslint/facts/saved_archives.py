"""Where the tensors of a checkpoint committed to the repository live, read from its pickle without
running it (project phase; DSL102). `torch.save` writes a zip whose `*/data.pkl` names each storage by a
persistent id `("storage", <storage class>, key, location, numel)`: the location is "cpu" or "cuda:N"."""
from __future__ import annotations

import pickletools
import re
import zipfile
from typing import Optional

_GPU = re.compile(r"^(cuda|xpu|mps|hpu|npu)(:\d+)?$")
_MAX_PICKLE = 64 * 1024 * 1024


def storage_locations(path: str) -> Optional[set]:
    """The devices the storages of the torch.save archive at `path` were saved from; None when it is no
    zip archive of torch.save (the legacy format, another file) or cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.endswith("/data.pkl") or n == "data.pkl"]
            if len(names) != 1 or archive.getinfo(names[0]).file_size > _MAX_PICKLE:
                return None
            data = archive.read(names[0])
    except (OSError, zipfile.BadZipFile, KeyError, ValueError):
        return None
    found: set = set()
    persistent = 0
    try:
        strings: list = []
        memo: dict = {}
        last = None  # the string just pushed, for the memo (repeated strings come back as BINGET)
        for opcode, arg, _ in pickletools.genops(data):
            name = opcode.name
            if isinstance(arg, str) and name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8"):
                strings.append(arg)
                last = arg
                continue
            if name in ("BINPUT", "LONG_BINPUT", "PUT", "MEMOIZE"):
                memo[len(memo) if name == "MEMOIZE" else arg] = last
                continue
            if name in ("BINGET", "LONG_BINGET", "GET"):
                last = memo.get(arg)
                if isinstance(last, str):
                    strings.append(last)
                continue
            last = None
            if name == "BINPERSID":
                persistent += 1
                # (the id tuple's strings are the last ones pushed: "storage", key, location)
                location = next((s for s in reversed(strings[-4:]) if s == "cpu" or _GPU.match(s)), None)
                if location is None:
                    return None
                found.add(location)
    except Exception:  # a pickle pickletools cannot walk: unknown
        return None
    return found if persistent else None


def saved_on_cpu(path: str) -> bool:
    """Does the archive hold only CPU storages (and at least one)?"""
    locations = storage_locations(path)
    return bool(locations) and locations == {"cpu"}
