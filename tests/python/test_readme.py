"""The README's Python examples run as written: every ```python block of
README.md, as its own script file (so @script reads real source lines) in a
scratch folder with the repository's examples/, under this test's Python."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _blocks():
    text = (ROOT / "README.md").read_text()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.M | re.S):
        line = text.count("\n", 0, m.start()) + 1
        out.append(pytest.param(m.group(1), id=f"README.md:{line}"))
    return out


def test_readme_has_python_examples():
    assert len(_blocks()) >= 2


@pytest.mark.parametrize("source", _blocks())
def test_readme_python_block(source, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    script = tmp_path / "example.py"
    script.write_text(source)
    import oxs

    # The package this test runs against, wherever the scratch folder is.
    package_dir = str(pathlib.Path(oxs.__file__).resolve().parents[1])
    path = os.pathsep.join([package_dir] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=path)
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"the example failed:\n{source}\n--- stderr:\n{r.stderr[-4000:]}"
