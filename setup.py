"""Installs the Python package oxs (src/oxs/python) into the current Python:

    /usr/bin/python3 -m venv --system-site-packages ~/venv-oxs
    ~/venv-oxs/bin/pip install --no-build-isolation --no-index .

The module oxs._core is built by the project's CMake (target oxs_python, in
$OXS_BUILD, default ./build, configured in Release if it is not yet) against
Debian's /usr/bin/python3; this file only packages the result. Needs Debian's
python3-setuptools and python3-wheel, no network."""

import os
import pathlib
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
BUILD = pathlib.Path(os.environ.get("OXS_BUILD", ROOT / "build")).resolve()
PACKAGE = BUILD / "python" / "oxs"
# setuptools' own files go under the build directory, not into the source tree.
SETUPTOOLS_DIR = BUILD / "setuptools"
SETUPTOOLS_DIR.mkdir(parents=True, exist_ok=True)


class BuildWithCMake(build_py):
    def run(self):
        if sys.version_info[:2] != (3, 11):
            raise SystemExit("oxs is built for Debian's Python 3.11 (/usr/bin/python3); "
                             f"this is Python {sys.version.split()[0]}")
        if not (BUILD / "build.ninja").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(BUILD), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release"], check=True)
        subprocess.run(["cmake", "--build", str(BUILD), "--target", "oxs_python"], check=True)
        super().run()


setup(
    name="oxs",
    version="0.1.0",
    description="ONNX Script, natively: the oxs C++ core for Python",
    packages=["oxs"],
    package_dir={"oxs": os.path.relpath(PACKAGE, ROOT)},
    package_data={"oxs": ["_core*.so"]},
    python_requires="==3.11.*",
    cmdclass={"build_py": BuildWithCMake},
    options={"egg_info": {"egg_base": os.path.relpath(SETUPTOOLS_DIR, ROOT)},
             "build": {"build_base": os.path.relpath(SETUPTOOLS_DIR, ROOT)}},
    zip_safe=False,
)
