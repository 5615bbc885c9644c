"""OpInfo tests (opinfo.py): for a representative set of ops, every sample in
every dtype the op supports among opinfo.DTYPES, exported as a one-op model
and compared with torch eager on oxs's evaluator and on ONNX Runtime.

A case passes, or is "ort-no-kernel" (oxs matches; ORT's CPU provider has no
kernel for the op at that dtype: the reason is in the status), or
"unrepresentable" (the status says why); every other outcome must be listed
in opinfo_exclusions.txt with the reason, and a listed case that passes
fails the test (remove it). `make sweep-opinfo` runs every op of op_db."""

from __future__ import annotations

import collections

import pytest

import opinfo

# Ops real models reach, across the library's families (make test keeps this
# bounded: about a minute on two cores).
SUBSET = [
    "add", "mul", "sub", "div.no_rounding_mode", "abs", "neg", "exp", "sigmoid", "tanh",
    "nn.functional.relu", "nn.functional.gelu", "clamp", "where", "sum", "mean", "amax",
    "argmax", "cumsum", "softmax", "nn.functional.layer_norm", "cat", "transpose", "permute",
    "reshape", "index_select", "gather", "scatter_add", "sort", "nn.functional.pad.constant",
    "nn.functional.interpolate.nearest", "masked_fill", "diagonal", "slice_scatter",
    "index_put", "scatter_reduce.sum", "var_mean", "nn.functional.conv2d",
    "nn.functional.embedding", "any", "squeeze.multiple", "as_strided", "masked_scatter",
]
ACCEPTED = ("pass", "ort-no-kernel", "unrepresentable")


@pytest.fixture(scope="module")
def exclusions():
    return opinfo.load_exclusions()


@pytest.mark.parametrize("name", SUBSET)
def test_opinfo_samples(name, exclusions):
    results = opinfo.run_op(opinfo.find_op(name))
    assert results, f"{name}: OpInfo gave no sample"
    unexpected, stale = [], []
    for r in results:
        accepted = r.status.split(":")[0] in ACCEPTED
        why = opinfo.exclusion(exclusions, r)
        if why is None and not accepted:
            unexpected.append(f"{r.dtype} sample {r.sample}: {r.status}")
        elif why is not None and r.status == "pass":
            stale.append(f"{r.dtype} sample {r.sample} (excluded: {why})")
    counts = collections.Counter(r.status.split(":")[0] for r in results)
    print(f"\n{name}: {dict(counts)}")
    assert not unexpected, f"{name}: {len(unexpected)} cases fail:\n" + "\n".join(unexpected)
    assert not stale, (f"{name}: excluded cases that pass now (remove them from "
                       f"{opinfo.EXCLUSIONS.name}):\n" + "\n".join(stale))


def test_exclusions_name_known_ops(exclusions):
    names = {opinfo.op_name(i) for i in opinfo.op_db()}
    unknown = sorted({op for op, _, _ in exclusions} - names)
    assert not unknown, f"{opinfo.EXCLUSIONS.name} names ops op_db does not have: {unknown}"
    for (op, dtype, sample), why in exclusions.items():
        assert dtype == "*" or dtype in opinfo.DTYPES, (op, dtype)
        assert sample == "*" or sample.isdigit(), (op, sample)
        assert len(why) > 10, (op, dtype, sample, "give the reason")


def test_a_wrong_result_is_caught():
    """The comparison can fail: a value off by one ulp-ish amount more than
    the tolerance, a dtype or shape change."""
    import numpy as np
    e = [np.array([1.0, 2.0], dtype=np.float32)]
    assert opinfo._compare([np.array([1.0, 2.0], np.float32)], e, "float32", "x") is None
    assert "differs" in opinfo._compare([np.array([1.0, 2.001], np.float32)], e, "float32", "x")
    assert "float64" in opinfo._compare([np.array([1.0, 2.0])], e, "float32", "x")
    assert "shape" in opinfo._compare([np.array([1.0], np.float32)], e, "float32", "x")
