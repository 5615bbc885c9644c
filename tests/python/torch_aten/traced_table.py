"""Rows for the trace-only functions (oxs.torch.traced): each is exported as
a one-op model by test_traced.py (the exporter specializes the function for
the node) and compared with torch eager on oxs and ONNX Runtime. Every
overload with only trace-only functions has a row here
(test_aten_ops.test_every_overload_has_a_case)."""

from __future__ import annotations

import numpy as np

from harness import DT, Case
from table import bools, f32, f64, i32, i64, pos32

TRACED: list = []
# torch's CPU kernel returns these outputs empty, its meta kernel (which the
# export follows) with C elements; no model reads them: output 0 is compared.
FIRST_OUTPUT_ONLY = {"aten::_native_batch_norm_legit_no_training.default",
                     "aten::_native_batch_norm_legit.default"}
# mkldnn_rnn_layer's 4th output is the kernel's workspace (uint8, its size
# the kernel's; the meta kernel says empty): outputs 0-2 are compared.
FIRST_OUTPUTS = {"aten::mkldnn_rnn_layer.default": 3}


def case(overload, *args, values=True, rtol=1e-5, atol=1e-6, **kwargs):
    TRACED.append(Case(overload, args, kwargs, rtol=rtol, atol=atol, values=values))


def idx(n, size, *shape):
    return np.random.default_rng(n).integers(-size, size, shape).astype(np.int64)


def pos_idx(n, size, *shape):
    return np.random.default_rng(n).integers(0, size, shape).astype(np.int64)


# ---------------------------------------------------------------- indexing
case("aten::index.Tensor", f32(3, 4, 5), [None, idx(1, 4, 2)])
case("aten::index.Tensor", f32(3, 4, 5), [idx(2, 3, 2, 2), idx(3, 4, 2, 2)])
case("aten::index.Tensor", f32(3, 4, 5), [None, idx(4, 4, 3), idx(5, 5, 3)])
case("aten::index.Tensor", f32(3, 4, 5), [idx(6, 3, 2), None, idx(7, 5, 2)])
case("aten::index.Tensor", i64(6), [i32(4, lo=0, hi=6)])
case("aten::index_put.default", f32(4, 5), [pos_idx(1, 4, 3)], f32(3, 5))
case("aten::index_put.default", f32(4, 5), [idx(2, 4, 6)], f32(6, 5), True)
case("aten::index_put.default", f32(4, 5), [None, idx(3, 5, 2)], f32(4, 2))
case("aten::index_put.default", f32(3, 4), [bools(3, 4)], f32())
case("aten::index_put.default", i64(3, 4), [bools(3)], i64(4), True)
case("aten::index_put.default", bools(5), [idx(4, 5, 3)], bools(3), True)
case("aten::index_select.default", f32(4, 3), 0, pos_idx(5, 4, 5))
case("aten::index_select.default", f32(), 0, np.zeros([1], np.int64))
case("aten::slice_scatter.default", f32(5, 4), f32(2, 4), 0, 1, 5, 2)
case("aten::slice_scatter.default", i64(3, 6), i64(3, 2), 1, -2)
case("aten::select_scatter.default", f32(3, 4), f32(4), 0, -1)
case("aten::as_strided.default", f32(4, 4), [2, 2], [1, 2], 1)
case("aten::diagonal.default", f32(3, 4, 5), 1, 2, 0)
case("aten::diagonal.default", i64(4, 4), -1)
case("aten::scatter_reduce.two", f32(3, 5), 1, pos_idx(8, 5, 3, 4), f32(3, 4), "amax",
     include_self=False)
case("aten::scatter_reduce.two", f32(3, 5), 0, pos_idx(9, 3, 2, 5), f32(2, 5), "mean")
case("aten::scatter_reduce.two", i64(4), 0, pos_idx(10, 4, 6), i64(6), "prod")
case("aten::scatter_reduce.two", bools(4), 0, pos_idx(11, 4, 6), bools(6), "sum")
case("aten::scatter_add.default", f32(3, 5), 1, pos_idx(12, 5, 3, 3), f32(3, 4))
case("aten::masked_scatter.default", f32(3, 4), bools(3, 4), f32(12))
case("aten::masked_scatter.default", i64(3, 4), bools(4), i64(3, 4))
case("aten::gather.default", f32(3, 4), 1, pos_idx(13, 4, 3, 2))
case("aten::gather.default", f32(), 0, np.zeros([], np.int64))
case("aten::copy.default", f32(2, 3), f64(3))
case("aten::lift_fresh.default", f32(3))
case("aten::squeeze.dims", f32(2, 1, 3, 1), [1, 3])
case("aten::squeeze.dims", f32(2, 1, 3), [0, -2])

# ---------------------------------------------------------------- sort, reductions
case("aten::sort.default", f32(3, 6), 1, True)
case("aten::sort.stable", i64(20, lo=0, hi=4), stable=True)
case("aten::topk.default", f32(4, 6), 3, 1, False)
case("aten::topk.default", f32(), 1)
case("aten::flip.default", f32(2, 3, 4), [0, 2])
case("aten::amax.default", f32(3, 4), [])
case("aten::amin.default", bools(3, 4), [1], True)
case("aten::argmax.default", f32(3, 4))
case("aten::argmax.default", f32(3, 4), 1, True)
case("aten::argmin.default", i64(3, 4), None, True)
case("aten::cumsum.default", i32(3, 4), 1)
case("aten::cumsum.default", f32(), 0)
case("aten::sum.dim_IntList", bools(3, 4), [0])
case("aten::sum.dim_IntList", f32(3, 4), [])
case("aten::var.correction", f32(3, 4), [1], correction=0, keepdim=True)
case("aten::var.correction", f64(5))
case("aten::var.dim", f32(3, 4), [0], False)
case("aten::std.correction", f32(3, 4), None, correction=2)
case("aten::var_mean.correction", f32(3, 4), [1])
case("aten::std_mean.correction", f64(2, 3, 2), [0, 2], keepdim=True)
case("aten::prod.default", i32(5, lo=1, hi=4))
case("aten::prod.default", f32(2, 3))
case("aten::prod.dim_int", f32(3, 4), 1, True)
case("aten::any.dims", f32(3, 4), [0, 1])
case("aten::any.dim", i64(3, 4), 1)
case("aten::any.default", f32())
case("aten::all.dim", bools(3, 4), 0, True)
case("aten::all.dims", f32(3, 4), None)
case("aten::all.default", bools(5))
case("aten::_safe_softmax.default",
     np.array([[1.0, 2.0, 3.0], [-np.inf, -np.inf, -np.inf]], np.float32), 1)

# ---------------------------------------------------------------- dtypes
case("aten::add.Tensor", bools(3, 4), bools(4))
case("aten::mul.Tensor", bools(3, 4), bools(3, 4))
case("aten::mv.default", f32(3, 4), f32(4))
case("aten::dot.default", i64(5), i64(5))
case("aten::vdot.default", f64(5), f64(5))
case("aten::bitwise_and.Scalar", i64(3, 4), 6)
case("aten::bitwise_or.Scalar", i32(5), 3)
case("aten::bitwise_xor.Scalar", bools(4), True)
case("aten::acosh.default", f32(3, lo=1.1, hi=4.0))
case("aten::asinh.default", f32(4))
case("aten::atanh.default", f32(4, lo=-0.9, hi=0.9))

# ---------------------------------------------------------------- nn
case("aten::_native_batch_norm_legit_no_training.default", f32(2, 3, 4), f32(3), f32(3), f32(3),
     pos32(3), 0.1, 1e-5)
case("aten::_native_batch_norm_legit_no_training.default", f32(4, 3), None, None, f32(3),
     pos32(3), 0.1, 1e-5)
case("aten::_native_batch_norm_legit.default", f32(2, 3, 4), f32(3), f32(3), f32(3), pos32(3),
     False, 0.1, 1e-5)
case("aten::_native_batch_norm_legit.no_stats", f32(2, 3, 4, 4), f32(3), f32(3), True, 0.1,
     1e-5, rtol=1e-4, atol=1e-5)
case("aten::grid_sampler_2d.default", f32(1, 2, 4, 5), f32(1, 3, 3, 2, lo=-1.0, hi=1.0), 0, 0,
     False)
case("aten::grid_sampler_2d.default", f32(1, 2, 4, 5), f32(1, 3, 3, 2, lo=-1.2, hi=1.2), 1, 1,
     True)
case("aten::avg_pool3d.default", f32(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2])
case("aten::avg_pool3d.default", f32(2, 4, 5, 5), [3, 3, 3], [1, 1, 1], [1, 1, 1], False, True, 2)
case("aten::avg_pool1d.default", f32(1, 2, 8), [3], [2], [1])
case("aten::max_pool3d_with_indices.default", f32(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2])
case("aten::max_pool2d_with_indices.default", f32(1, 2, 5, 6), [3, 2], [2, 2], [1, 0])
case("aten::max_pool2d_with_indices.default", f32(2, 5, 5), [2, 2], [1, 1], [0, 0], [2, 1])
case("aten::_adaptive_avg_pool3d.default", f32(1, 2, 5, 6, 7), [2, 3, 4])
case("aten::adaptive_avg_pool3d.default", f32(2, 4, 4, 4), [1, 1, 1])
case("aten::adaptive_avg_pool1d.default", f32(1, 2, 7), [3])
case("aten::_adaptive_avg_pool2d.default", f32(1, 2, 7, 9), [3, 4])
case("aten::adaptive_avg_pool2d.default", f32(2, 5, 6), [4, 4])
case("aten::col2im.default", f32(1, 8, 9), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1])
case("aten::_cdist_forward.default", f32(3, 4), f32(5, 4), 2.0, None, rtol=1e-4)
case("aten::_cdist_forward.default", f32(2, 3, 4), f32(2, 5, 4), 1.0, None, rtol=1e-4)
case("aten::_pdist_forward.default", f32(4, 3), 3.0, rtol=1e-4)
case("aten::scaled_dot_product_attention.default", f32(1, 2, 3, 4), f32(1, 2, 5, 4),
     f32(1, 2, 5, 4), rtol=1e-4, atol=1e-5)
case("aten::scaled_dot_product_attention.default", f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4),
     is_causal=True, rtol=1e-4, atol=1e-5)
case("aten::scaled_dot_product_attention.default", f32(1, 2, 3, 4), f32(1, 2, 5, 4),
     f32(1, 2, 5, 4), bools(3, 5), scale=0.3, rtol=1e-4, atol=1e-5)
case("aten::_scaled_dot_product_flash_attention_for_cpu.default", f32(1, 2, 3, 4),
     f32(1, 2, 3, 4), f32(1, 2, 3, 4), rtol=1e-4, atol=1e-5)
case("aten::upsample_nearest1d.default", f32(1, 2, 5), [8])
case("aten::upsample_nearest2d.default", f32(1, 2, 3, 4), [6, 8])
case("aten::upsample_nearest2d.default", f32(1, 1, 3, 3), [7, 5])
case("aten::upsample_nearest3d.default", f32(1, 1, 2, 3, 2), [4, 6, 4])

case("aten::mkldnn_rnn_layer.default", f32(5, 2, 8), f32(64, 8, lo=-0.3, hi=0.3),
     f32(64, 16, lo=-0.3, hi=0.3), f32(64), f32(64), f32(2, 16), f32(2, 16), False, [], 2, 16, 1,
     True, False, False, False, rtol=1e-4, atol=1e-5)
case("aten::mkldnn_rnn_layer.default", f32(5, 2, 8), f32(64, 8, lo=-0.3, hi=0.3),
     f32(64, 16, lo=-0.3, hi=0.3), f32(64), f32(64), f32(2, 16), f32(2, 16), True, [], 2, 16, 1,
     True, False, False, False, rtol=1e-4, atol=1e-5)

# ---------------------------------------------------------------- creation (random: shapes)
case("aten::empty_strided.default", [2, 3], [3, 1], dtype=DT(np.float32), values=False)
case("aten::rand.default", [2, 3], dtype=DT(np.float32), values=False)
case("aten::randn.default", [4], dtype=DT(np.float64), values=False)
case("aten::randperm.default", 6, dtype=DT(np.int64), values=False)
