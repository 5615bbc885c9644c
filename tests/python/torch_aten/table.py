"""The per-op table: ATen calls (inputs of several dtypes and shapes,
attributes) that test_aten_ops.py runs on the library and on torch eager.
Every registered overload must have a row (test_every_overload_has_a_case),
and every registered function must be chosen by some row."""

from __future__ import annotations

import numpy as np

from harness import DT, Case

R = np.random.default_rng(1234)


def f32(*shape, lo=-3.0, hi=3.0):
    return R.uniform(lo, hi, shape).astype(np.float32)


def f64(*shape, lo=-3.0, hi=3.0):
    return R.uniform(lo, hi, shape).astype(np.float64)


def pos32(*shape):
    return f32(*shape, lo=0.1, hi=4.0)


def i64(*shape, lo=-5, hi=6):
    return R.integers(lo, hi, shape).astype(np.int64)


def i32(*shape, lo=-5, hi=6):
    return R.integers(lo, hi, shape).astype(np.int32)


def nonzero_i64(*shape):
    a = i64(*shape)
    a[a == 0] = 3
    return a


def bools(*shape):
    return R.integers(0, 2, shape).astype(np.bool_)


def scalar(value, dtype=np.float32):
    return np.array(value, dtype=dtype)


CASES: list[Case] = []


def case(overload, *args, **kwargs):
    CASES.append(Case(overload, args, kwargs))


def case_tol(overload, rtol, atol, *args, **kwargs):
    CASES.append(Case(overload, args, kwargs, rtol=rtol, atol=atol))


# ---------------------------------------------------------------- elementwise
for ov in ("aten::add.Tensor", "aten::sub.Tensor", "aten::rsub.Tensor"):
    case(ov, f32(2, 3), f32(3))
    case(ov, f64(4), f64(4), alpha=0.5)
    case(ov, i64(2, 3), i64(2, 3), alpha=2)
    case(ov, i32(3, 1), i32(1, 4))
for ov in ("aten::add.Scalar", "aten::sub.Scalar", "aten::rsub.Scalar"):
    case(ov, f32(2, 3), 2.5)
    case(ov, f64(3), -1.25, 3.0)
    case(ov, i64(3, 2), 3, 2)
case("aten::mul.Tensor", f32(2, 3), f32(2, 3))
case("aten::mul.Tensor", i64(4), i64(1))
case("aten::mul.Tensor", f64(2, 1, 3), f64(4, 1))
case("aten::mul.Scalar", f32(5), 0.5)
case("aten::mul.Scalar", i32(5), 3)
case("aten::div.Tensor", f32(2, 3), pos32(3))
case("aten::div.Tensor", f64(4), f64(4, lo=1, hi=2))
case("aten::div.Scalar", f32(2, 3), 4.0)
case("aten::div.Scalar", f64(3), -0.5)
for mode in ("floor", "trunc", None):
    case("aten::div.Tensor_mode", f32(3, 4) * 3, f32(4, lo=0.5, hi=2.0) * np.float32(-1),
         rounding_mode=mode)
    case("aten::div.Tensor_mode", f64(6) * 4, f64(6, lo=0.3, hi=2.0), rounding_mode=mode)
for mode in ("floor", "trunc"):
    case("aten::div.Tensor_mode", i64(3, 4, lo=-20, hi=21), nonzero_i64(4), rounding_mode=mode)
    case("aten::div.Tensor_mode", i32(5, lo=-9, hi=10), np.array([2, -3, 4, -1, 7], np.int32),
         rounding_mode=mode)
case("aten::pow.Tensor_Tensor", pos32(2, 3), f32(2, 3))
case("aten::pow.Tensor_Tensor", i64(4, lo=-3, hi=4), i64(4, lo=0, hi=4))
case("aten::pow.Tensor_Scalar", f32(3, 2), 2.0)
case("aten::pow.Tensor_Scalar", pos32(5), 0.5)
case("aten::pow.Tensor_Scalar", i64(5), 3)
case("aten::pow.Scalar", 2.0, f32(2, 3))
case("aten::pow.Scalar", 1.5, f64(4))
for ov in ("aten::minimum.default", "aten::maximum.default"):
    case(ov, f32(2, 3), f32(3))
    case(ov, i64(4), i64(4))
    case(ov, f64(2, 2), f64(2, 2))
case("aten::fmod.Tensor", f32(3, 4) * 3, f32(4, lo=0.5, hi=2.0))
case("aten::fmod.Tensor", i64(6, lo=-20, hi=20), nonzero_i64(6))
case("aten::fmod.Scalar", f32(5) * 4, 1.5)
case("aten::fmod.Scalar", i64(5, lo=-20, hi=20), 3)
case("aten::remainder.Tensor", f32(3, 4) * 3, f32(4, lo=0.5, hi=2.0) * np.float32(-1))
case("aten::remainder.Tensor", f64(5) * 3, f64(5, lo=0.5, hi=2.0))
case("aten::remainder.Tensor", i64(6, lo=-20, hi=20), nonzero_i64(6))
case("aten::remainder.Tensor", i32(4, lo=-9, hi=9), np.array([3, -3, 2, -5], np.int32))
case("aten::remainder.Scalar", f32(5) * 4, 1.5)
case("aten::remainder.Scalar", f64(5) * 4, -2.0)
case("aten::lerp.Scalar", f32(2, 3), f32(2, 3), 0.25)
case("aten::lerp.Scalar", f64(4), f64(4), 0.75)
case("aten::lerp.Tensor", f32(2, 3), f32(2, 3), f32(3, lo=0, hi=1))
case("aten::addcmul.default", f32(2, 3), f32(2, 3), f32(3), value=0.5)
case("aten::addcmul.default", i64(4), i64(4), i64(4))
case("aten::addcdiv.default", f32(2, 3), f32(2, 3), pos32(3), value=2.0)
case("aten::addcdiv.default", f64(4), f64(4), f64(4, lo=1, hi=2))

for ov, make in [("aten::neg.default", f32), ("aten::abs.default", f32), ("aten::sign.default", f32),
                 ("aten::exp.default", f32), ("aten::exp2.default", f32),
                 ("aten::expm1.default", f32), ("aten::log.default", pos32),
                 ("aten::log1p.default", pos32), ("aten::log2.default", pos32),
                 ("aten::log10.default", pos32), ("aten::sqrt.default", pos32),
                 ("aten::rsqrt.default", pos32), ("aten::reciprocal.default", pos32),
                 ("aten::erf.default", f32), ("aten::floor.default", f32),
                 ("aten::ceil.default", f32), ("aten::trunc.default", f32),
                 ("aten::frac.default", f32), ("aten::sin.default", f32),
                 ("aten::cos.default", f32), ("aten::tanh.default", f32)]:
    case(ov, make(2, 3, 4))
    case(ov, make(7).astype(np.float64))
    case(ov, np.array(make(1)[0]))  # 0-d
case("aten::round.default", np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -3.7], np.float32))
case("aten::round.default", f64(3, 3))
for ov in ("aten::neg.default", "aten::abs.default", "aten::sign.default"):
    case(ov, i64(2, 5))
    case(ov, i32(6))

# ---------------------------------------------------------------- compare and logic
for name in ("eq", "ne", "lt", "le", "gt", "ge"):
    a = np.round(f32(3, 4))
    case(f"aten::{name}.Tensor", a, np.round(f32(4)))
    case(f"aten::{name}.Tensor", i64(5), i64(5))
    case(f"aten::{name}.Tensor", f64(2, 2), f64(2, 1))
    case(f"aten::{name}.Scalar", a, 1.0)
    case(f"aten::{name}.Scalar", i64(6), 2)
case("aten::eq.Tensor", bools(5), bools(5))
case("aten::ne.Tensor", bools(5), bools(5))
case("aten::isnan.default", np.array([0.0, np.nan, 1.0, -np.inf], np.float32))
case("aten::isnan.default", np.array([np.nan, 2.0], np.float64))
case("aten::where.self", bools(3, 4), f32(3, 4), f32(4))
case("aten::where.self", bools(5), i64(5), i64(1))
case("aten::where.self", bools(2, 2), bools(2, 2), bools(2, 2))
case("aten::masked_fill.Scalar", f32(3, 4), bools(3, 4), -1.5)
case("aten::masked_fill.Scalar", i64(6), bools(6), 7)
case("aten::masked_fill.Scalar", f32(2, 3), bools(3), float("-inf"))
case("aten::masked_fill.Tensor", f32(3, 4), bools(4), scalar(2.5))
case("aten::masked_fill.Tensor", i64(5), bools(5), scalar(-3, np.int64))
case("aten::clamp.default", f32(3, 4), -0.5, 0.5)
case("aten::clamp.default", f32(3, 4), None, 0.5)
case("aten::clamp.default", f64(6), -1.0, None)
case("aten::clamp.default", i64(8), 1, 4)
case("aten::clamp.default", i64(8), None, 2)
case("aten::clamp.default", i32(8), -2, None)
case("aten::clamp.Tensor", f32(3, 4), f32(4, lo=-2, hi=-1), f32(3, 1, lo=0, hi=1))
case("aten::clamp.Tensor", i64(6), i64(6, lo=-3, hi=-1), i64(1, lo=1, hi=3))
case("aten::clamp.Tensor", f32(3, 4), None, f32(4, lo=0, hi=1))
case("aten::clamp.Tensor", f64(5), f64(5, lo=-1, hi=0), None)
case("aten::clamp_min.default", f32(3, 4), 0.25)
case("aten::clamp_min.default", i64(5), 0)
case("aten::clamp_max.default", f32(3, 4), 0.25)
case("aten::clamp_max.default", i64(5), 1)
case("aten::clamp_min.Tensor", f32(3, 4), f32(4))
case("aten::clamp_max.Tensor", f64(3, 4), f64(3, 4))
case("aten::logical_not.default", bools(3, 4))
case("aten::logical_not.default", np.round(f32(6)))
case("aten::logical_not.default", i64(6))
for name in ("and", "or", "xor"):
    case(f"aten::logical_{name}.default", bools(3, 4), bools(4))
    case(f"aten::logical_{name}.default", np.round(f32(6)), np.round(f32(6)))
    case(f"aten::logical_{name}.default", i64(6), i64(6))
    case(f"aten::bitwise_{name}.Tensor", i64(3, 4, lo=-100, hi=100), i64(4, lo=-100, hi=100))
    case(f"aten::bitwise_{name}.Tensor", i32(5, lo=0, hi=100), i32(5, lo=0, hi=100))
    case(f"aten::bitwise_{name}.Tensor", bools(5), bools(5))
case("aten::bitwise_not.default", i64(3, 4, lo=-100, hi=100))
case("aten::bitwise_not.default", np.arange(250, 256, dtype=np.uint8))
case("aten::bitwise_not.default", bools(6))

# ---------------------------------------------------------------- activations
for ov in ("aten::relu.default", "aten::relu6.default"):
    case(ov, f32(3, 4) * 3)
    case(ov, f64(5) * 4)
    case(ov, i64(6, lo=-10, hi=10))
case("aten::hardtanh.default", f32(3, 4))
case("aten::hardtanh.default", f32(3, 4) * 3, 0.0, 6.0)
case("aten::hardtanh.default", i64(6, lo=-10, hi=10), -2, 3)
case("aten::leaky_relu.default", f32(3, 4))
case("aten::leaky_relu.default", f64(6), 0.2)
case("aten::elu.default", f32(3, 4))
case("aten::elu.default", f64(6), 0.5, 1.5, 2.0)
case("aten::gelu.default", f32(3, 4))
case("aten::gelu.default", f32(3, 4), approximate="tanh")
case("aten::gelu.default", f64(6), approximate="none")
for ov in ("aten::silu.default", "aten::sigmoid.default", "aten::hardsigmoid.default",
           "aten::hardswish.default", "aten::mish.default"):
    case(ov, f32(3, 4) * 2)
    case(ov, f64(7) * 3)
case("aten::softplus.default", f32(3, 4) * 5)
case("aten::softplus.default", f64(8) * 5, 2.0, 3.0)
for ov in ("aten::_softmax.default", "aten::_log_softmax.default"):
    case(ov, f32(2, 3, 4), 1, False)
    case(ov, f64(3, 5), -1, False)
for ov in ("aten::softmax.int", "aten::log_softmax.int"):
    case(ov, f32(2, 3, 4), -1)
    case(ov, f32(4, 3), 0, DT(np.float64))

# ---------------------------------------------------------------- reductions
x3 = f32(2, 3, 4)
case("aten::sum.dim_IntList", x3, [1])
case("aten::sum.dim_IntList", x3, [0, 2], True)
case("aten::sum.dim_IntList", i64(3, 4), [-1])
case("aten::sum.dim_IntList", x3, None)
case("aten::sum.dim_IntList", f32(3, 4), [0], dtype=DT(np.float64))
case("aten::sum.default", x3)
case("aten::sum.default", i64(3, 4))
case("aten::mean.dim", x3, [-1, -2], True)
case("aten::mean.dim", f64(4, 5), [0])
case("aten::mean.dim", x3, None)
case("aten::mean.default", x3)
case("aten::mean.default", f64(5))
for ov in ("aten::amax.default", "aten::amin.default"):
    case(ov, x3, [1])
    case(ov, x3, [0, 2], True)
    case(ov, i64(3, 4), [])
case("aten::prod.dim_int", f32(3, 4, lo=0.5, hi=1.5), 1)
case("aten::prod.dim_int", i64(3, 4, lo=-3, hi=3), 0, True)
case("aten::logsumexp.default", x3 * 30, [1])
case("aten::logsumexp.default", f64(3, 4), [0, 1], True)
for ov in ("aten::var.correction", "aten::std.correction"):
    case(ov, x3, [1], correction=None)
    case(ov, x3, [0, 2], correction=0, keepdim=True)
    case(ov, f64(4, 6), None, correction=2)
    case(ov, f32(10), [0], correction=1)
for ov in ("aten::argmax.default", "aten::argmin.default"):
    case(ov, x3, 1)
    case(ov, i64(4, 5), -1, True)
case("aten::cumsum.default", x3, 1)
case("aten::cumsum.default", i64(4, 5), -1)

# ---------------------------------------------------------------- linalg
case_tol("aten::matmul.default", 1e-5, 1e-5, f32(3, 4), f32(4, 5))
case_tol("aten::matmul.default", 1e-5, 1e-5, f32(2, 3, 4), f32(4, 5))
case_tol("aten::matmul.default", 1e-5, 1e-5, f32(4), f32(2, 4, 3))
case("aten::matmul.default", f64(2, 1, 3, 4), f64(5, 4, 2))
case_tol("aten::mm.default", 1e-5, 1e-5, f32(3, 4), f32(4, 5))
case_tol("aten::bmm.default", 1e-5, 1e-5, f32(2, 3, 4), f32(2, 4, 5))
case_tol("aten::addmm.default", 1e-5, 1e-5, f32(5), f32(3, 4), f32(4, 5))
case_tol("aten::addmm.default", 1e-5, 1e-5, f32(3, 5), f32(3, 4), f32(4, 5), beta=0.5, alpha=2.0)
case("aten::addmm.default", f64(1, 5), f64(3, 4), f64(4, 5), beta=-1.0)
case_tol("aten::baddbmm.default", 1e-5, 1e-5, f32(2, 3, 5), f32(2, 3, 4), f32(2, 4, 5))
case("aten::baddbmm.default", f64(5), f64(2, 3, 4), f64(2, 4, 5), beta=0.5, alpha=3.0)
case_tol("aten::linear.default", 1e-5, 1e-5, f32(2, 3, 4), f32(5, 4), f32(5))
case_tol("aten::linear.default", 1e-5, 1e-5, f32(3, 4), f32(5, 4))
case("aten::linear.default", f64(4), f64(2, 4), None)
case("aten::t.default", f32(3, 4))
case("aten::t.default", i64(5))
case("aten::t.default", bools(2, 3))

# ---------------------------------------------------------------- shapes
x4 = f32(2, 3, 4, 1)
for ov in ("aten::view.default", "aten::_unsafe_view.default", "aten::reshape.default"):
    case(ov, x4, [6, -1])
    case(ov, i64(2, 3), [3, 2])
    case(ov, f32(0, 3), [3, 0])
case("aten::_reshape_alias.default", x4, [4, 6], [6, 1])
case("aten::expand.default", f32(3, 1), [2, 3, 5])
case("aten::expand.default", i64(1, 4), [3, -1])
case("aten::expand.default", bools(2, 1), [-1, 3])
case("aten::permute.default", x4, [3, 0, 2, 1])
case("aten::permute.default", i64(2, 3), [1, 0])
case("aten::unsqueeze.default", x4, 0)
case("aten::unsqueeze.default", x4, -1)
case("aten::unsqueeze.default", i64(3), 1)
case("aten::squeeze.dim", x4, 3)
case("aten::squeeze.dim", x4, 1)
case("aten::squeeze.dim", f32(1, 3), -2)
case("aten::squeeze.default", f32(1, 3, 1, 2))
case("aten::squeeze.default", i64(2, 1))
case("aten::flatten.using_ints", x4)
case("aten::flatten.using_ints", x4, 1)
case("aten::flatten.using_ints", x4, 1, 2)
case("aten::flatten.using_ints", i64(2, 3, 4), 0, -2)
case("aten::select.int", x4, 1, 2)
case("aten::select.int", x4, -2, -1)
case("aten::select.int", i64(5), 0, 3)
case("aten::slice.Tensor", x4, 1, 1, 3)
case("aten::slice.Tensor", x4, 0, None, None, 2)
case("aten::slice.Tensor", x4, 2, -2, None)
case("aten::slice.Tensor", i64(6), 0, 1, 9223372036854775807, 2)
case("aten::slice.Tensor", i64(6), 0, 2, -1)
case("aten::cat.default", [f32(2, 3), f32(4, 3)])
case("aten::cat.default", [i64(2, 3), i64(2, 1), i64(2, 2)], 1)
case("aten::cat.default", [f32(2, 3, 2), f32(2, 3, 1)], -1)
case("aten::stack.default", [f32(2, 3), f32(2, 3)])
case("aten::stack.default", [i64(4), i64(4), i64(4)], 1)
case("aten::stack.default", [f32(2, 3), f32(2, 3)], -1)
for ov in ("aten::clone.default", "aten::detach.default", "aten::alias.default",
           "aten::lift_fresh_copy.default"):
    case(ov, f32(2, 3))
    case(ov, i64(4))

# ---------------------------------------------------------------- nn
xl = f32(2, 3, 8)
case_tol("aten::native_layer_norm.default", 1e-5, 1e-5, xl, [8], f32(8), f32(8), 1e-5)
case_tol("aten::native_layer_norm.default", 1e-5, 1e-5, xl, [3, 8], None, None, 1e-5)
case_tol("aten::native_layer_norm.default", 1e-5, 1e-5, xl, [8], f32(8), None, 1e-3)
case("aten::native_layer_norm.default", f64(4, 6), [6], f64(6), f64(6), 1e-5)
case_tol("aten::layer_norm.default", 1e-5, 1e-5, xl, [8], f32(8), f32(8))
case_tol("aten::layer_norm.default", 1e-5, 1e-5, xl, [3, 8])
case_tol("aten::layer_norm.default", 1e-5, 1e-5, xl, [8], None, f32(8), 1e-3)
xb = f32(2, 3, 4, 4)
case_tol("aten::native_batch_norm.default", 1e-5, 1e-5, xb, f32(3), f32(3), f32(3), pos32(3),
         False, 0.1, 1e-5)
case_tol("aten::native_batch_norm.default", 1e-5, 1e-5, f32(2, 3, 5), None, None, f32(3),
         pos32(3), False, 0.1, 1e-3)
case_tol("aten::native_batch_norm.default", 1e-5, 1e-5, f32(4, 3), f32(3), None, f32(3),
         pos32(3), False, 0.1, 1e-5)
case_tol("aten::native_group_norm.default", 1e-5, 1e-5, f32(2, 6, 4, 4), f32(6), f32(6), 2, 6,
         16, 3, 1e-5)
case_tol("aten::native_group_norm.default", 1e-5, 1e-5, f32(2, 4, 5), None, None, 2, 4, 5, 2,
         1e-5)
for ov in ("aten::dropout.default", "aten::feature_dropout.default",
           "aten::alpha_dropout.default"):
    case(ov, f32(3, 4), 0.5, False)
case("aten::dropout.default", f64(6), 0.1, False)
case("aten::native_dropout.default", f32(3, 4), 0.5, False)
case("aten::embedding.default", f32(10, 3), i64(2, 4, lo=0, hi=10))
case("aten::embedding.default", i64(6, 2), np.array([5, 0, 1], np.int32))
case("aten::embedding.default", f32(10, 3), i64(3, lo=0, hi=10), 0)

# ---------------------------------------------------------------- creation
case("aten::full.default", [2, 3], 1.5, dtype=DT(np.float32))
case("aten::full.default", [4], 7, dtype=DT(np.int64))
case("aten::full.default", [2, 2], 1.0, dtype=DT(np.bool_))
case("aten::full.default", [3], 2.5)  # dtype None: the result's dtype
for ov in ("aten::zeros.default", "aten::ones.default"):
    case(ov, [2, 3], dtype=DT(np.float32))
    case(ov, [4, 1], dtype=DT(np.int64))
    case(ov, [3])
CASES.append(Case("aten::empty.memory_format", ([2, 3],), {"dtype": DT(np.float32)},
                  values=False))
case("aten::scalar_tensor.default", 3.5)
case("aten::scalar_tensor.default", 4, dtype=DT(np.int64))
case("aten::full_like.default", f32(2, 3), 0.5)
case("aten::full_like.default", i64(4), 3)
case("aten::full_like.default", f32(2, 2), 2, dtype=DT(np.int64))
for ov in ("aten::zeros_like.default", "aten::ones_like.default"):
    case(ov, f32(2, 3))
    case(ov, i64(4))
    case(ov, f32(2, 2), dtype=DT(np.float64))
CASES.append(Case("aten::empty_like.default", (f32(2, 3),), values=False))
case("aten::_to_copy.default", f32(2, 3) * 4, dtype=DT(np.int64))
case("aten::_to_copy.default", i64(4), dtype=DT(np.float32))
case("aten::_to_copy.default", f32(3))
case("aten::_to_copy.default", f64(2, 2), dtype=DT(np.bool_))

# ---------------------------------------------------------------- second batch
case("aten::true_divide.Tensor", f32(2, 3), pos32(3))
case("aten::min.other", f32(2, 3), f32(3))
case("aten::max.other", i64(4), i64(4))
case("aten::floor_divide.default", f32(3, 4) * 3, f32(4, lo=0.5, hi=2.0) * np.float32(-1))
case("aten::floor_divide.default", i64(3, 4, lo=-20, hi=21), nonzero_i64(4))
case("aten::atan2.default", f32(3, 4), f32(4))
case("aten::atan2.default", np.array([1, -1, 0, 0, 1, -1, 0], np.float64),
     np.array([0, 0, 1, -1, -1, -1, 0], np.float64))
case("aten::square.default", f32(2, 3))
case("aten::square.default", i64(5))
for ov in ("aten::tan.default", "aten::sinh.default", "aten::cosh.default", "aten::atan.default"):
    case(ov, f32(2, 3, lo=-1.2, hi=1.2))
    case(ov, f64(5, lo=-1.2, hi=1.2))
for ov in ("aten::asin.default", "aten::acos.default"):
    case(ov, f32(2, 3, lo=-0.99, hi=0.99))
    case(ov, f64(5, lo=-0.99, hi=0.99))
special = np.array([0.0, np.inf, -np.inf, np.nan, -2.5], np.float32)
case("aten::isinf.default", special)
case("aten::isinf.default", special.astype(np.float64))
case("aten::isfinite.default", special)
case("aten::where.ScalarOther", bools(3, 4), f32(3, 4), 0.5)
case("aten::where.ScalarOther", bools(5), i64(5), 2)
case("aten::where.ScalarSelf", bools(3, 4), -1.5, f32(4))
case("aten::selu.default", f32(3, 4))
case("aten::celu.default", f32(3, 4))
case("aten::celu.default", f64(6), 0.5)
case("aten::prelu.default", f32(2, 3, 4), f32(3, lo=0, hi=0.5))
case("aten::prelu.default", f32(2, 3), f32(1, lo=0, hi=0.5))
case("aten::glu.default", f32(2, 6))
case("aten::glu.default", f64(4, 3, 2), 0)
case("aten::log_sigmoid.default", f32(3, 4) * 10)
case("aten::hardshrink.default", f32(3, 4))
case("aten::hardshrink.default", f64(6), 1.0)
case("aten::softshrink.default", f32(3, 4))
case("aten::softshrink.default", f64(6), 1.0)
case("aten::threshold.default", f32(3, 4), 0.5, -1.0)
case("aten::threshold.default", i64(6), 1, 0)
for ov in ("aten::max.default", "aten::min.default"):
    case(ov, f32(3, 4))
    case(ov, i64(6))
for ov in ("aten::max.dim", "aten::min.dim"):
    case(ov, f32(3, 4), 1)
    case(ov, f64(2, 3, 4), 0, True)
    case(ov, i64(4, 5, lo=-1000, hi=1000), -1)
a01 = np.array([[0, 1, 2], [3, 4, 5]], np.float32)
for ov in ("aten::all.default", "aten::any.default"):
    case(ov, a01)
    case(ov, bools(4))
    case(ov, np.zeros(3, np.int64))
    case(ov, np.ones(3, np.int64))
for ov in ("aten::all.dim", "aten::any.dim"):
    case(ov, a01, 1)
    case(ov, bools(3, 4), 0, True)
for order in (2.0, 1.0, 3.0, float("inf"), float("-inf"), 0.0):
    case("aten::linalg_vector_norm.default", f32(3, 4), order)
case("aten::linalg_vector_norm.default", f32(2, 3, 4), 2.0, [1, 2], True)
case("aten::linalg_vector_norm.default", f64(5), 1.5, [0])
case("aten::index_select.default", f32(4, 3), 0, np.array([3, 0, 3], np.int64))
case("aten::index_select.default", i64(2, 5), 1, np.array([4, 0], np.int64))
case("aten::index_select.default", f32(4, 3), -1, np.array([1], np.int32))
case("aten::gather.default", f32(3, 4), 1, R.integers(0, 4, (3, 2)).astype(np.int64))
case("aten::gather.default", i64(3, 4), 0, R.integers(0, 3, (2, 4)).astype(np.int64))
case("aten::topk.default", f32(3, 8), 3)
case("aten::topk.default", f64(4, 5), 2, 0, False)
case("aten::topk.default", i64(10, lo=-1000, hi=1000), 4)
case("aten::sort.default", f32(3, 8))
case("aten::sort.default", f64(4, 5), 0, True)
for ov in ("aten::tril.default", "aten::triu.default"):
    case(ov, f32(4, 5))
    case(ov, i64(2, 3, 3), 1)
    case(ov, f32(4, 4), -1)
case("aten::new_zeros.default", f32(2), [2, 3])
case("aten::new_zeros.default", f32(2), [4], dtype=DT(np.int64))
CASES.append(Case("aten::new_empty.default", (i64(2), [3, 2]), {}, values=False))
case("aten::new_ones.default", i64(2), [2, 3])
case("aten::new_full.default", f32(2), [2, 2], 1.5)
case("aten::new_full.default", f32(2), [3], 4, dtype=DT(np.int32))
case("aten::fill.Scalar", f32(2, 3), 1.25)
case("aten::fill.Scalar", i64(4), 7)
case("aten::arange.default", 5)
case("aten::arange.default", 4.5, dtype=DT(np.float32))
case("aten::arange.start", 2, 7)
case("aten::arange.start", -1.5, 2.0, dtype=DT(np.float32))
case("aten::arange.start_step", 0, 10, 3)
case("aten::arange.start_step", 1.0, -2.0, -0.5, dtype=DT(np.float32))
case("aten::arange.start_step", 0.0, 1.0, 0.1, dtype=DT(np.float64))

# ---------------------------------------------------------------- float16
# torch 1.13 has CPU float16 kernels for few ops (no exp, tanh, sigmoid,
# softmax, matmul, layer_norm, ...): these rows are the ones it can answer.
def f16(*shape):
    return R.uniform(-3.0, 3.0, shape).astype(np.float16)


for ov in ("aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::maximum.default"):
    case_tol(ov, 2e-3, 2e-3, f16(2, 3), f16(3))
case_tol("aten::div.Tensor", 2e-3, 2e-3, f16(4), f16(4) + np.float16(4))
case_tol("aten::mean.dim", 2e-3, 2e-3, f16(2, 8), [1])
case_tol("aten::where.self", 0, 0, bools(3), f16(3), f16(3))
case_tol("aten::neg.default", 0, 0, f16(5))
case_tol("aten::view.default", 0, 0, f16(2, 3), [3, 2])

# ---------------------------------------------------------------- third batch
for mode in ("floor", "trunc", None):
    case("aten::div.Scalar_mode", f32(3, 4) * 3, -0.75, rounding_mode=mode)
for mode in ("floor", "trunc"):
    case("aten::div.Scalar_mode", i64(6, lo=-20, hi=21), -3, rounding_mode=mode)
case("aten::hypot.default", f32(3, 4), f32(4))
case("aten::hypot.default", f64(5), f64(5))
case("aten::logaddexp.default", f32(3, 4) * 30, f32(4) * 30)
case("aten::logaddexp.default", f64(5), f64(5))
case_tol("aten::mv.default", 1e-5, 1e-5, f32(3, 4), f32(4))
case_tol("aten::dot.default", 1e-5, 1e-5, f32(6), f32(6))
case("aten::dot.default", f64(3), f64(3))
case("aten::outer.default", f32(3), f32(4))
case("aten::outer.default", f64(2), f64(5))
for ov in ("aten::var_mean.correction", "aten::std_mean.correction"):
    case(ov, x3, [1], correction=None)
    case(ov, f64(4, 6), None, correction=0, keepdim=True)
case("aten::scatter.src", f32(3, 5), 1, np.array([[0, 4], [2, 1], [3, 3]], np.int64)[:, :1],
     f32(3, 5))
case("aten::scatter.src", i64(4, 3), 0, np.array([[3, 0, 1], [1, 2, 0]], np.int64), i64(2, 3))
case("aten::scatter.value", f32(3, 5), 1, np.array([[0, 4], [2, 1], [3, 0]], np.int64), 2.5)
case("aten::scatter_add.default", f32(3, 5), 1,
     np.array([[0, 4, 0], [2, 2, 1], [3, 0, 3]], np.int64), f32(3, 4))
case("aten::scatter_add.default", i64(4, 3), 0, np.array([[3, 0, 1], [3, 0, 1]], np.int64),
     i64(2, 3))
case("aten::nonzero.default", np.array([[0, 1.5, 0], [2, 0, -1]], np.float32))
case("aten::nonzero.default", bools(2, 3, 4))
case("aten::nonzero.default", np.zeros(4, np.int64))
case("aten::flip.default", f32(2, 3, 4), [0, 2])
case("aten::flip.default", i64(5), [-1])
case("aten::flip.default", bools(2, 3), [1, 0])

# ---------------------------------------------------------------- resize
img = f32(1, 2, 3, 4)
case("aten::upsample_nearest2d.vec", img, [6, 8], None)
case("aten::upsample_nearest2d.vec", img, [5, 7], None)
case("aten::upsample_nearest2d.vec", img, None, [2.0, 2.0])
case("aten::upsample_nearest2d.vec", f64(2, 1, 4, 4), None, [1.5, 0.5])
case("aten::upsample_bilinear2d.vec", img, [5, 7], False, None)
case("aten::upsample_bilinear2d.vec", img, [6, 9], True, None)
case("aten::upsample_bilinear2d.vec", img, None, False, [2.0, 2.0])
case("aten::upsample_bilinear2d.vec", img, None, True, [2.0, 1.5])
case("aten::upsample_bilinear2d.vec", f64(1, 1, 1, 3), [1, 4], False, None)

# ---------------------------------------------------------------- pad, repeat
case("aten::constant_pad_nd.default", f32(2, 3, 4), [1, 2])
case("aten::constant_pad_nd.default", f32(2, 3, 4), [1, 0, 0, 2], -1.5)
case("aten::constant_pad_nd.default", i64(3, 4), [-1, 1, 2, -1], 7)
case("aten::constant_pad_nd.default", f64(2, 2, 2), [1, 1, 1, 1, 1, 1])
case("aten::repeat.default", f32(2, 3), [2, 1])
case("aten::repeat.default", i64(3), [2, 2])
case("aten::repeat.default", bools(2, 1), [1, 1, 3])

# ---------------------------------------------------------------- fourth batch
case("aten::norm.ScalarOpt_dim", f32(3, 4), 2, [1])
case("aten::norm.ScalarOpt_dim", f32(2, 3, 4), None, [1, 2], True)
case("aten::norm.ScalarOpt_dim", f64(5, 2), 1, [0])
case("aten::reflection_pad1d.default", f32(2, 3, 5), [2, 1])
case("aten::reflection_pad2d.default", f32(1, 2, 4, 5), [1, 2, 3, 0])
case("aten::reflection_pad3d.default", f64(1, 1, 3, 3, 3), [1, 1, 0, 2, 1, 0])
case("aten::replication_pad1d.default", f32(2, 3, 5), [3, 0])
case("aten::replication_pad2d.default", f64(1, 2, 3, 3), [1, 2, 2, 1])
case("aten::replication_pad3d.default", f32(1, 1, 2, 3, 2), [1, 0, 0, 1, 2, 2])
case("aten::pixel_shuffle.default", f32(2, 8, 3, 4), 2)
case("aten::pixel_shuffle.default", i64(1, 9, 2, 2), 3)
case("aten::masked_select.default", f32(3, 4), bools(3, 4))
case("aten::masked_select.default", i64(3, 4), bools(4))
case("aten::masked_select.default", f32(1, 4), bools(3, 1))
for reduction in (0, 1, 2):
    case("aten::mse_loss.default", f32(3, 4), f32(3, 4), reduction)
case("aten::mse_loss.default", f64(5), f64(5))
