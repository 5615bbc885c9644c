"""Trace-only neural-network functions: 3-D pooling (the 2-D forms are native
C++), adaptive pooling from static sizes, col2im, cdist/pdist, attention,
and the random creation ops."""

from __future__ import annotations

import math

import numpy as np

from oxs.onnx_opset import opset18 as op
from oxs.torch._trace_only import aten_traced, node_info

INT64, BOOL = 7, 9


def _triple(v, k):
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * k if len(v) == 1 else v


def _batched(fn):
    """Runs a pooling function on an unbatched input ([C, spatial...], one
    axis less than the kernel asks for) with a batch axis added."""
    def wrapper(self, **kwargs):
        size = kwargs.get("kernel_size", kwargs.get("output_size"))
        k = len(size) if isinstance(size, (list, tuple)) else 1
        if self.rank == k + 1:
            out = fn(op.Unsqueeze(self, [0]), **kwargs)
            if isinstance(out, tuple):
                return tuple(op.Squeeze(o, [0]) for o in out)
            return op.Squeeze(out, [0])
        return fn(self, **kwargs)
    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _pool_args(self, kernel_size, stride, padding, dilation=None):
    k = len(kernel_size) if isinstance(kernel_size, (list, tuple)) and len(kernel_size) > 1 \
        else self.rank - 2
    kernel = _triple(kernel_size, k)
    strides = _triple(stride, k) if stride else kernel
    pads = _triple(padding, k)
    return kernel, strides, pads + pads, _triple(dilation, k) if dilation is not None else None


@aten_traced("aten::avg_pool3d.default", "aten::avg_pool1d.default")
@_batched
def traced_avg_pool3d(self, kernel_size, stride=(), padding=0, ceil_mode=False,
                    count_include_pad=True, divisor_override=None):
    kernel, strides, pads, _ = _pool_args(self, kernel_size, stride, padding)
    if divisor_override is not None:
        # the window sums (mean over the whole kernel, padding included) / divisor
        y = op.AveragePool(self, kernel_shape=kernel, strides=strides, pads=pads,
                           ceil_mode=int(ceil_mode), count_include_pad=1)
        return op.Mul(y, op.CastLike(math.prod(kernel) / divisor_override, y))
    return op.AveragePool(self, kernel_shape=kernel, strides=strides, pads=pads,
                          ceil_mode=int(ceil_mode), count_include_pad=int(count_include_pad))


@aten_traced("aten::max_pool2d_with_indices.default", before_native=True)
def traced_max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1,
                                   ceil_mode=False):
    """The indices too, and unbatched [C, H, W] input (the native MaxPool
    lowering takes batched nodes whose indices nobody reads)."""
    used = node_info().results_used
    if self.rank == 4 and (len(used) < 2 or not used[1]):
        return NotImplemented
    return traced_max_pool3d_with_indices(self=self, kernel_size=kernel_size, stride=stride,
                                          padding=padding, dilation=dilation,
                                          ceil_mode=ceil_mode)


@aten_traced("aten::max_pool3d_with_indices.default")
@_batched
def traced_max_pool3d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1,
                                 ceil_mode=False):
    """MaxPool's indices count over the whole tensor (n, c, spatial); torch's
    over each channel's spatial positions: the remainder by the spatial size."""
    kernel, strides, pads, dil = _pool_args(self, kernel_size, stride, padding, dilation)
    x = op.Cast(self, to=1) if self.dtype == 16 else self  # MaxPool has no bfloat16
    y, idx = op.MaxPool(x, kernel_shape=kernel, strides=strides, pads=pads,
                        dilations=dil, ceil_mode=int(ceil_mode), _num_outputs=2)
    if self.dtype == 16:
        y = op.Cast(y, to=16)  # exact: the maxima are bfloat16 values
    spatial = op.ReduceProd(op.Shape(self, start=2), keepdims=0)
    return y, op.Mod(idx, spatial)


@aten_traced("aten::_adaptive_avg_pool3d.default", "aten::adaptive_avg_pool3d.default",
             "aten::adaptive_avg_pool1d.default")
@_batched
def traced_adaptive_avg_pool3d(self, output_size):
    return _adaptive_avg_pool(self, output_size)


@aten_traced("aten::_adaptive_avg_pool2d.default", "aten::adaptive_avg_pool2d.default",
             before_native=True)
def traced_adaptive_avg_pool2d(self, output_size):
    """Windows of different sizes (the native AveragePool lowering takes the
    others)."""
    spatial = list(range(self.rank - 2, self.rank))
    sizes = [self.shape[d] if self.shape else None for d in spatial]
    if any(s is None for s in sizes) or all(s % o == 0 for s, o in zip(sizes, output_size)):
        return NotImplemented
    if self.rank == 3:
        return op.Squeeze(_adaptive_avg_pool(op.Unsqueeze(self, [0]), output_size), [0])
    return _adaptive_avg_pool(self, output_size)


def _adaptive_avg_pool(self, output_size):
    """Global average over the spatial axes when every output size is 1;
    else AveragePool with the kernel and stride the static input sizes give
    (each input size a multiple of its output size, as torch's windows are
    then all equal)."""
    spatial = list(range(self.rank - len(output_size), self.rank))
    if all(o == 1 for o in output_size):
        return op.ReduceMean(self, spatial, keepdims=1)
    sizes = [self.shape[d] if self.shape else None for d in spatial]
    if any(s is None for s in sizes):
        raise NotImplementedError(f"adaptive average pooling from dynamic sizes {sizes}")
    if not any(s % o for s, o in zip(sizes, output_size)):
        kernel = [s // o for s, o in zip(sizes, output_size)]
        return op.AveragePool(self, kernel_shape=kernel, strides=kernel)
    # torch's windows [floor(i*n/o), ceil((i+1)*n/o)) are a product of
    # per-axis windows: average along one axis at a time.
    x = self
    for axis, n, o in zip(spatial, sizes, output_size):
        parts = []
        for i in range(o):
            lo, hi = (i * n) // o, -((-(i + 1) * n) // o)
            parts.append(op.ReduceMean(op.Slice(x, [lo], [hi], [axis]), [axis], keepdims=1))
        x = op.Concat(*parts, axis=axis) if len(parts) > 1 else parts[0]
    return x


@aten_traced("aten::col2im.default")
def traced_col2im(self, output_size, kernel_size, dilation, padding, stride):
    k = len(kernel_size)
    pads = _triple(padding, k)
    x = self if self.rank == 3 else op.Unsqueeze(self, [0])
    y = op.Col2Im(x, np.array(output_size, dtype=np.int64), np.array(kernel_size, dtype=np.int64),
                  dilations=_triple(dilation, k), pads=pads + pads, strides=_triple(stride, k))
    return y if self.rank == 3 else op.Squeeze(y, [0])


def _pairwise(x1, x2, p):
    """[..., P, R] distances between the rows of x1 [..., P, M] and x2 [..., R, M]."""
    d = op.Sub(op.Unsqueeze(x1, [-2]), op.Unsqueeze(x2, [-3]))
    a = op.Abs(d)
    if p == 0:
        return op.ReduceSum(op.Cast(op.Not(op.Equal(a, op.CastLike(0, a))), to=x1.dtype), [-1],
                            keepdims=0)
    if p == float("inf"):
        return op.ReduceMax(a, [-1], keepdims=0)
    if p == 1:
        return op.ReduceSum(a, [-1], keepdims=0)
    if p == 2:
        return op.Sqrt(op.ReduceSum(op.Mul(d, d), [-1], keepdims=0))
    s = op.ReduceSum(op.Pow(a, op.CastLike(p, a)), [-1], keepdims=0)
    return op.Pow(s, op.CastLike(1.0 / p, s))


@aten_traced("aten::_cdist_forward.default")
def traced_cdist_forward(x1, x2, p, compute_mode=None):
    return _pairwise(x1, x2, p)


@aten_traced("aten::_pdist_forward.default")
def traced_pdist_forward(self, p=2.0):
    """The upper triangle (i < j, row by row) of self's pairwise distances;
    the row count is static."""
    n = self.shape[0] if self.shape else None
    if n is None:
        raise NotImplementedError("pdist needs a static number of rows")
    full = op.Reshape(_pairwise(self, self, p), [-1])
    pos = np.array([i * n + j for i in range(n) for j in range(i + 1, n)], dtype=np.int64)
    if pos.size == 0:
        return op.Slice(full, [0], [0])
    return op.Gather(full, pos, axis=0)


# ---------------------------------------------------------------- attention


def _attention(query, key, value, attn_mask, is_causal, scale, enable_gqa):
    """softmax(q k^T * scale + mask) v, torch's math decomposition."""
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention with enable_gqa")
    e = query.shape[-1] if query.shape and query.shape[-1] is not None else None
    if scale is None:
        if e is None:
            s = op.Div(op.CastLike(1.0, query),
                       op.Sqrt(op.CastLike(op.Shape(query, start=-1), query)))
        else:
            s = op.CastLike(1.0 / math.sqrt(e), query)
    else:
        s = op.CastLike(scale, query)
    perm = list(range(key.rank - 2)) + [key.rank - 1, key.rank - 2]
    scores = op.MatMul(op.Mul(query, op.Sqrt(s)), op.Mul(op.Transpose(key, perm=perm),
                                                          op.Sqrt(s)))
    if is_causal:
        l_s = op.Concat(op.Shape(query, start=-2, end=-1), op.Shape(key, start=-2, end=-1),
                        axis=0)
        ones = op.ConstantOfShape(l_s, value=np.array([1], dtype=np.int64))
        keep = op.Cast(op.Trilu(ones, upper=0), to=BOOL)
        scores = op.Where(keep, scores, op.CastLike(float("-inf"), scores))
    if attn_mask is not None:
        if attn_mask.dtype == BOOL:
            scores = op.Where(attn_mask, scores, op.CastLike(float("-inf"), scores))
        else:
            scores = op.Add(scores, op.CastLike(attn_mask, scores))
    weights = op.Softmax(scores, axis=-1)
    return op.MatMul(weights, value), scores


@aten_traced("aten::scaled_dot_product_attention.default")
def traced_scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                      is_causal=False, scale=None, enable_gqa=False):
    if dropout_p:
        raise NotImplementedError("scaled_dot_product_attention with dropout_p > 0 (export in "
                                  "eval mode)")
    return _attention(query, key, value, attn_mask, is_causal, scale, enable_gqa)[0]


@aten_traced("aten::_scaled_dot_product_flash_attention_for_cpu.default")
def traced_sdpa_flash_cpu(query, key, value, dropout_p=0.0, is_causal=False, attn_mask=None,
                        scale=None):
    """(output, logsumexp over the keys) of the CPU flash kernel."""
    if dropout_p:
        raise NotImplementedError("attention with dropout_p > 0 (export in eval mode)")
    out, scores = _attention(query, key, value, attn_mask, is_causal, scale, False)
    lse = op.ReduceLogSumExp(op.Cast(scores, to=1), [-1], keepdims=0)
    return out, lse


# ---------------------------------------------------------------- random


def _result_dtype(dtype):
    return dtype if dtype is not None else node_info().result_dtypes[0]


@aten_traced("aten::rand.default")
def traced_rand(size, dtype=None, layout=None, device=None, pin_memory=None):
    """Uniform in [0, 1) (ONNX's generator: torch's values are not reproduced)."""
    return op.RandomUniform(shape=list(size), dtype=_result_dtype(dtype), low=0.0, high=1.0)


@aten_traced("aten::randn.default")
def traced_randn(size, dtype=None, layout=None, device=None, pin_memory=None):
    return op.RandomNormal(shape=list(size), dtype=_result_dtype(dtype), mean=0.0, scale=1.0)


@aten_traced("aten::randperm.default")
def traced_randperm(n, dtype=None, layout=None, device=None, pin_memory=None):
    """A random permutation of 0..n-1: the order that sorts n uniform values."""
    keys = op.RandomUniform(shape=[n], dtype=1)
    _, idx = op.TopK(keys, np.array([n], dtype=np.int64), axis=0, _num_outputs=2)
    return op.Cast(idx, to=_result_dtype(dtype))


# ---------------------------------------------------------------- recurrent


def _lstm_gates(w, h):
    """torch's gate blocks (i, f, g, o) of a [4H, ...] weight in ONNX LSTM's
    order (i, o, f, c)."""
    i, f, g, o = (op.Slice(w, [k * h], [(k + 1) * h], [0]) for k in range(4))
    return op.Concat(i, o, f, g, axis=0)


@aten_traced("aten::mkldnn_rnn_layer.default")
def traced_mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse,
                            batch_sizes, mode, hidden_size, num_layers, has_biases,
                            bidirectional, batch_first, train):
    """One direction of one LSTM layer (what nn.LSTM reaches on CPU under fake
    tracing) as ONNX LSTM: (output, hy, cy, an empty workspace)."""
    if mode != 2:
        raise NotImplementedError(f"mkldnn_rnn_layer mode {mode} (only LSTM, mode 2)")
    if batch_sizes:
        raise NotImplementedError("mkldnn_rnn_layer over packed sequences (batch_sizes)")
    h = hidden_size
    # nn.LSTM hands every layer seq-first input, also with batch_first (which
    # the CPU kernel does not read: it always steps over axis 0).
    x = input
    w = op.Unsqueeze(_lstm_gates(weight0, h), [0])
    r = op.Unsqueeze(_lstm_gates(weight1, h), [0])
    inputs = [x, w, r]
    if has_biases:
        inputs.append(op.Unsqueeze(op.Concat(_lstm_gates(weight2, h), _lstm_gates(weight3, h),
                                             axis=0), [0]))
    else:
        inputs.append(None)
    inputs += [None, op.Unsqueeze(hx_, [0]), op.Unsqueeze(cx_, [0])]
    y, y_h, y_c = op.LSTM(*inputs, hidden_size=h, direction="reverse" if reverse else "forward",
                          _num_outputs=3)
    out = op.Squeeze(y, [1])
    workspace = op.Constant(value=np.zeros([0], dtype=np.uint8))
    return out, op.Squeeze(y_h, [0]), op.Squeeze(y_c, [0]), workspace
