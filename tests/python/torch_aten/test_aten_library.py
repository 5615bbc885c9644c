"""The compiled library (<build>/python/oxs/torch/aten_library.onnx): it loads
with oxs.load, passes oxs.check, and its manifest is the registry's."""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import oxs
import pytest
from oxs.torch import aten  # noqa: F401  (registers the library)
from oxs.torch.aten import _library, _registry

LIBRARY = pathlib.Path(oxs.__file__).parent / "torch" / "aten_library.onnx"


@pytest.fixture(scope="module")
def library():
    assert LIBRARY.is_file(), f"{LIBRARY} is missing: build the target oxs_torch_aten_library"
    return oxs.load(LIBRARY)


@pytest.fixture(scope="module")
def manifest():
    import onnx
    proto = onnx.load(str(LIBRARY))
    props = {p.key: p.value for p in proto.metadata_props}
    assert _library.MANIFEST_KEY in props
    return json.loads(props[_library.MANIFEST_KEY])


def test_library_loads_and_checks(library):
    oxs.check(library)
    compiled = [e for e in _registry.entries() if not e.trace_only]
    assert len(library.functions) >= len(compiled)


def test_every_function_is_in_the_library_domain(library):
    domains = {f.domain for f in library.functions}
    assert domains == {_registry.DOMAIN}


def test_manifest_matches_the_registry(manifest):
    assert manifest == json.loads(json.dumps(_library.manifest(), sort_keys=True))
    by_overload = {}
    for r in manifest:
        for o in r["overloads"]:
            by_overload.setdefault(o, []).append(r["function"])
    assert sorted(by_overload) == _registry.overloads()
    for o, names in by_overload.items():
        assert names == [e.name for e in _registry.candidates(o)]


def test_manifest_functions_and_variants_exist(library, manifest):
    names = {f.name for f in library.functions}
    for r in manifest:
        if r["trace_only"]:  # Python, not in the compiled library
            assert r["function"] not in names
            module = importlib.import_module(r["module"])
            assert r["module"].startswith("oxs.torch.traced.")
            assert callable(getattr(module, r["function"]))
            continue
        assert r["function"] in names
        for v in r["variants"]:
            assert v["function"] in names


def test_manifest_params_follow_the_compiled_functions(library, manifest):
    by_name = {f.name: f for f in library.functions}
    for r in manifest:
        if r["trace_only"]:
            continue  # called in Python (test_manifest_functions_and_variants_exist)
        f = by_name[r["function"]]
        inputs = [p["name"] for p in r["params"] if p["kind"] == "input"]
        attrs = [p["name"] for p in r["params"] if p["kind"] == "attribute"]
        assert [v.name for v in f.body.inputs] == inputs, r["function"]
        assert sorted(f.attributes) == sorted(attrs), r["function"]
        assert [v.name for v in f.body.outputs] == [o["name"] for o in r["outputs"]]
        for p in r["params"]:
            if p["kind"] == "input":
                assert p["types"], (r["function"], p["name"])


def test_manifest_describes_types_and_defaults(manifest):
    add = next(r for r in manifest if r["function"] == "aten_add")
    assert add["overloads"] == ["aten::add.Tensor"]
    self_, other, alpha = add["params"]
    assert self_["kind"] == "input" and self_["typevar"] == "TReal" and "FLOAT" in self_["types"]
    assert "BOOL" not in self_["types"]
    assert alpha == {"name": "alpha", "kind": "attribute", "type": "FLOAT", "optional": True,
                     "default": 1.0}
    linear = next(r for r in manifest if r["function"] == "aten_linear")
    assert linear["variants"] == [{"omitted": ["bias"], "function": "aten_linear__without_bias"}]
    clamp = next(r for r in manifest if r["function"] == "aten_clamp")
    assert [p["default"] for p in clamp["params"][1:]] == ["-inf", "inf"]


def test_a_library_function_that_does_not_compile_fails_the_build(tmp_path):
    """The build step (python -m oxs.torch.aten._library) on a copy of the
    package with one broken module: the compiler's message, a non-zero exit,
    and no library written."""
    package = pathlib.Path(oxs.__file__).parent
    copy = tmp_path / "python" / "oxs"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "*.onnx"))
    (copy / "torch" / "aten" / "broken.py").write_text(
        "from oxs import script\n"
        "from oxs.onnx_opset import opset18 as op\n"
        "from oxs.torch.aten._registry import aten_op, aten_opset\n"
        "from oxs.torch.aten._types import TFloat\n\n\n"
        "@aten_op('aten::broken.default')\n"
        "@script(aten_opset, default_opset=op)\n"
        "def aten_broken(self: TFloat) -> TFloat:\n"
        "    return op.NoSuchOp(self)\n")
    out = tmp_path / "lib.onnx"
    env = dict(os.environ, PYTHONPATH=str(copy.parent), PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-m", "oxs.torch.aten._library", str(out)],
                       capture_output=True, text=True, env=env)
    assert r.returncode != 0
    assert "the ATen library does not compile" in r.stderr
    assert "broken.py:10" in r.stderr and "NoSuchOp" in r.stderr
    assert not out.exists()


def test_a_parameter_named_self_is_passed_by_keyword():
    """ATen's first argument is `self`: eager calls take it by name too."""
    import numpy as np
    from oxs.torch.aten import elementwise
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(elementwise.aten_pow_scalar(self=2.0, exponent=x), 2.0 ** x)
    np.testing.assert_allclose(elementwise.aten_add(self=x, other=x, alpha=0.5), 1.5 * x)


def test_typevars_from_another_module_make_generic_inputs():
    """_types' TypeVars reach the compiler from Python (not from the file's
    own source): one function takes every element type of its TypeVar."""
    import numpy as np
    from oxs.torch.aten import elementwise
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8):
        a = np.array([1, 2, 3], dtype)
        r = elementwise.aten_mul(a, a)
        assert r.dtype == dtype
        np.testing.assert_array_equal(r, a * a)


def test_a_function_outside_the_library_domain_is_refused(tmp_path):
    """@script(default_opset=op) alone puts a function in domain "this": the
    manifest refuses it with the fix."""
    mod = tmp_path / "outside_domain.py"
    mod.write_text(
        "from oxs import script\n"
        "from oxs.onnx_opset import opset18 as op\n"
        "from oxs.torch.aten._registry import Entry\n"
        "from oxs.torch.aten._types import TFloat\n\n\n"
        "@script(default_opset=op)\n"
        "def aten_outside(self: TFloat) -> TFloat:\n"
        "    return op.Neg(self)\n\n\n"
        "ENTRY = Entry(('aten::outside.default',), aten_outside)\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("outside_domain", mod)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    with pytest.raises(oxs.CompileError, match="aten_opset"):
        _library.describe(m.ENTRY)
