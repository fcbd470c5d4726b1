"""Start-up (issue 13): dslint builds its pydantic models without pydantic's plugin discovery,
and leaves the environment as it found it."""
from __future__ import annotations

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""\
    import importlib.metadata, os, sys
    scans = []
    real = importlib.metadata.entry_points
    importlib.metadata.entry_points = lambda **kw: scans.append(kw) or real(**kw)
    {before}
    import dslint.settings
    from dslint.dsconfig_schema.models import schemas
    dslint.settings.Settings(select=["DSL1"], nodes=2)
    schemas("0.19.8")
    print(len(scans), os.environ.get("PYDANTIC_DISABLE_PLUGINS"))
    """)


def _run(before: str = "") -> str:
    proc = subprocess.run([sys.executable, "-c", PROBE.format(before=before)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_models_are_built_without_scanning_entry_points():
    assert _run() == "0 None"  # no scan, and the variable is not left behind


def test_a_users_setting_of_the_variable_is_kept():
    assert _run('os.environ["PYDANTIC_DISABLE_PLUGINS"] = "logfire"') == "0 logfire"


def test_the_probe_sees_pydantic_scan_when_it_happens():
    # the probe itself works: a model built the ordinary way does scan
    out = _run("from pydantic import create_model; create_model('M', x=(int, 1))")
    assert out.split()[0] != "0"
