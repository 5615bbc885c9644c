"""Eager mode: numpy in, numpy out, Python scalars and lists, tracing, threads."""

import threading

import numpy as np
import pytest

import oxs
from oxs import FLOAT, INT64, script
from oxs.onnx_opset import opset17 as op


@script()
def identity(x):
    return op.Identity(x)


@script()
def scale_add(x, y, alpha: float = 2.0):
    return x * alpha + y


@script()
def two_outputs(x):
    return op.Relu(x), op.Neg(x)


@script()
def first_dims(x, n: int):
    return op.Shape(x, end=n)


def test_outputs_are_zero_copy_read_only_views():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = identity(x)
    assert np.shares_memory(x, y)  # the input was borrowed, the output views it
    assert not y.flags.writeable
    with pytest.raises(ValueError):
        y[0, 0] = 1


def test_non_contiguous_input_is_copied_not_misread():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(identity(x), x)


def test_python_scalars_and_lists_are_accepted():
    out = scale_add([1.0, 2.0], 0.5)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [2.5, 4.5])
    np.testing.assert_allclose(scale_add(np.float32(1.5), np.float32(1), alpha=3), 5.5)
    out = scale_add(np.array([1, 2], np.int64), np.array([3, 4], np.int64), alpha=1.0)
    assert out.dtype == np.int64 or out.dtype == np.float32


def test_float_attribute_accepts_an_int():
    np.testing.assert_allclose(scale_add(np.ones(2, np.float32), np.zeros(2, np.float32), alpha=3),
                               [3.0, 3.0])


def test_multiple_outputs_are_a_tuple():
    relu, neg = two_outputs(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_array_equal(relu, [0.0, 2.0])
    np.testing.assert_array_equal(neg, [1.0, -2.0])


def test_attribute_values_change_results():
    x = np.zeros((2, 3, 4), np.float32)
    np.testing.assert_array_equal(first_dims(x, n=1), [2])
    np.testing.assert_array_equal(first_dims(x, n=2), [2, 3])


def test_trace_records_every_node_with_its_line():
    x = np.array([-1.0, 2.0], np.float32)
    with oxs.trace() as t:
        scale_add(x, x, alpha=0.5)
    ops = [e.op for e in t.events]
    assert "Mul" in ops and "Add" in ops
    add = next(e for e in t.events if e.op == "Add")
    np.testing.assert_allclose(list(add.outputs.values())[0], x * 0.5 + x)
    assert "test_eager.py:" in add.where and "return x * alpha + y" in add.where
    with oxs.trace() as t2:
        pass
    assert t2.events == []


def test_eager_calls_from_threads_agree():
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    expected = x * 2.0 + x
    results = []

    def work():
        for _ in range(20):
            results.append(scale_add(x, x))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(results) == 80
    for r in results:
        np.testing.assert_allclose(r, expected)


def test_string_tensors_round_trip():
    s = np.array(["a", "bc"], dtype=object)
    out = identity(s)
    assert out.tolist() == ["a", "bc"]


def test_int64_typed_function():
    @script()
    def add_one(x: INT64[...]) -> INT64[...]:
        return x + 1

    np.testing.assert_array_equal(add_one(np.array([1, 2], np.int64)), [2, 3])


def test_ops_run_eagerly_outside_script_functions():
    x = np.array([[3.0, -1.0, 2.0]], np.float32)
    np.testing.assert_array_equal(op.Relu(x), [[3.0, 0.0, 2.0]])
    np.testing.assert_array_equal(op.Add(x, 1.0), x + 1)
    values, indices = op.TopK(x, [2], axis=1)
    np.testing.assert_array_equal(values, [[3.0, 2.0]])
    np.testing.assert_array_equal(indices, [[0, 2]])
    a, b = op.Split(np.arange(4, dtype=np.float32), axis=0, _num_outputs=2)
    np.testing.assert_array_equal(b, [2.0, 3.0])
    with pytest.raises(TypeError, match="_num_outputs"):
        op.Split(np.arange(4, dtype=np.float32))
    with pytest.raises(oxs.Error, match="Reul"):
        op.Reul(x)
    with pytest.raises(oxs.Error, match="Add"):
        op.Add(np.zeros(2, np.float32), np.zeros(3, np.float32))
