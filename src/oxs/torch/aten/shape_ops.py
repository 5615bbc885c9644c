"""Shape and copy ops of the ATen library whose sizes are attributes: view,
_unsafe_view, _reshape_alias, reshape, expand, permute, unsqueeze, squeeze,
flatten, select, slice, cat, stack, constant_pad_nd, reflection_pad*,
replication_pad*, pixel_shuffle, repeat, clone, detach, alias.

Sizes come from the FX graph as ints: a symbolic size (dynamic_shapes) makes
the exporter build the shape itself; these functions cover static sizes."""

from __future__ import annotations

from typing import Sequence

from oxs import INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._helpers import _axis_list, _torch_pad_axes, _torch_pads
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TTensor


@aten_op("aten::view.default", "aten::_unsafe_view.default")
@script(aten_opset, default_opset=op)
def aten_view(self: TTensor, size: Sequence[int]) -> TTensor:
    """size may hold one -1; a 0 in size is an empty dimension, as in torch
    (allowzero=1), not ONNX's copy-this-dimension."""
    return op.Reshape(self, op.Constant(value_ints=size), allowzero=1)


@aten_op("aten::reshape.default")
@script(aten_opset, default_opset=op)
def aten_reshape(self: TTensor, shape: Sequence[int]) -> TTensor:
    return op.Reshape(self, op.Constant(value_ints=shape), allowzero=1)


@aten_op("aten::_reshape_alias.default")
@script(aten_opset, default_opset=op)
def aten_reshape_alias(self: TTensor, size: Sequence[int], stride: Sequence[int]) -> TTensor:
    """The strides describe a contiguous view after functionalization."""
    return op.Reshape(self, op.Constant(value_ints=size), allowzero=1)


@aten_op("aten::expand.default")
@script(aten_opset, default_opset=op)
def aten_expand(self: TTensor, size: Sequence[int], implicit: bool = False) -> TTensor:
    """A -1 in size keeps that dimension: as 1 it broadcasts to self's."""
    return op.Expand(self, op.Abs(op.Constant(value_ints=size)))


@aten_op("aten::permute.default")
@script(aten_opset, default_opset=op)
def aten_permute(self: TTensor, dims: Sequence[int]) -> TTensor:
    """dims must be non-negative here (negative dims need the rank: the
    exporter normalizes them)."""
    return op.Transpose(self, perm=dims)


@aten_op("aten::unsqueeze.default")
@script(aten_opset, default_opset=op)
def aten_unsqueeze(self: TTensor, dim: int) -> TTensor:
    return op.Unsqueeze(self, _axis_list(value=dim))


@aten_op("aten::squeeze.dim")
@script(aten_opset, default_opset=op)
def aten_squeeze_dim(self: TTensor, dim: int) -> TTensor:
    """Removes dim only when its size is 1 (torch leaves other sizes alone;
    ONNX Squeeze would fail)."""
    axes = _axis_list(value=dim)
    size = op.Gather(op.Shape(self), axes)
    if op.Equal(size, op.Constant(value_ints=[1])):
        r = op.Squeeze(self, axes)
    else:
        r = op.Identity(self)
    return r


@aten_op("aten::squeeze.default")
@script(aten_opset, default_opset=op)
def aten_squeeze(self: TTensor) -> TTensor:
    return op.Squeeze(self)


@aten_op("aten::flatten.using_ints")
@script(aten_opset, default_opset=op)
def aten_flatten(self: TTensor, start_dim: int = 0, end_dim: int = -1) -> TTensor:
    """Dimensions start_dim..end_dim become one (a 0-D tensor becomes 1-D)."""
    shape = op.Shape(self)
    rank = op.Size(shape)
    one = op.Constant(value_ints=[1])
    start = _axis_list(value=start_dim)
    end = _axis_list(value=end_dim)
    start = op.Where(op.Less(start, op.Constant(value_ints=[0])), op.Add(start, rank), start)
    end = op.Where(op.Less(end, op.Constant(value_ints=[0])), op.Add(end, rank), end)
    head = op.Slice(shape, op.Constant(value_ints=[0]), start)
    tail = op.Slice(shape, op.Add(end, one), op.Constant(value_ints=[9223372036854775807]))
    new_shape = op.Concat(head, op.Constant(value_ints=[-1]), tail, axis=0)
    return op.Reshape(self, new_shape)


@aten_op("aten::select.int")
@script(aten_opset, default_opset=op)
def aten_select(self: TTensor, dim: int, index: int) -> TTensor:
    """self[..., index, ...] at dim (the dimension is removed)."""
    return op.Gather(self, op.Constant(value_int=index), axis=dim)


@aten_op("aten::slice.Tensor")
@script(aten_opset, default_opset=op)
def aten_slice(self: TTensor, dim: int = 0, start: int = 0, end: int = 9223372036854775807,
               step: int = 1) -> TTensor:
    """start None is 0 and end None is the end: the defaults."""
    return op.Slice(self, _axis_list(value=start), _axis_list(value=end), _axis_list(value=dim),
                    _axis_list(value=step))


@aten_op("aten::cat.default")
@script(aten_opset, default_opset=op)
def aten_cat(tensors: Sequence[TTensor], dim: int = 0) -> TTensor:
    """The tensors as an ONNX sequence (the exporter may emit Concat over the
    list instead)."""
    return op.ConcatFromSequence(tensors, axis=dim)


@aten_op("aten::stack.default")
@script(aten_opset, default_opset=op)
def aten_stack(tensors: Sequence[TTensor], dim: int = 0) -> TTensor:
    return op.ConcatFromSequence(tensors, axis=dim, new_axis=1)


@aten_op("aten::constant_pad_nd.default")
@script(aten_opset, default_opset=op)
def aten_constant_pad_nd(self: TTensor, pad: Sequence[int], value: float = 0.0) -> TTensor:
    """pad is (begin, end) pairs from the last dimension backwards; negative
    amounts crop. Pad-18's axes input takes them without knowing the rank."""
    p = op.Constant(value_ints=pad)
    return op.Pad(self, _torch_pads(p), op.CastLike(value, self), _torch_pad_axes(p))


@aten_op("aten::reflection_pad1d.default", "aten::reflection_pad2d.default",
         "aten::reflection_pad3d.default")
@script(aten_opset, default_opset=op)
def aten_reflection_pad(self: TTensor, padding: Sequence[int]) -> TTensor:
    p = op.Constant(value_ints=padding)
    return op.Pad(self, _torch_pads(p), None, _torch_pad_axes(p), mode="reflect")


@aten_op("aten::replication_pad1d.default", "aten::replication_pad2d.default",
         "aten::replication_pad3d.default")
@script(aten_opset, default_opset=op)
def aten_replication_pad(self: TTensor, padding: Sequence[int]) -> TTensor:
    p = op.Constant(value_ints=padding)
    return op.Pad(self, _torch_pads(p), None, _torch_pad_axes(p), mode="edge")


@aten_op("aten::pixel_shuffle.default")
@script(aten_opset, default_opset=op)
def aten_pixel_shuffle(self: TTensor, upscale_factor: int) -> TTensor:
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (4-D input; more leading batch
    dimensions are the exporter's)."""
    return op.DepthToSpace(self, blocksize=upscale_factor, mode="CRD")


@aten_op("aten::repeat.default")
@script(aten_opset, default_opset=op)
def aten_repeat(self: TTensor, repeats: Sequence[int]) -> TTensor:
    """Tile; repeats may be longer than the rank (new leading dimensions of
    size 1 first)."""
    reps = op.Constant(value_ints=repeats)
    shape = op.Shape(self)
    extra = op.Sub(op.Size(reps), op.Size(shape))
    ones = op.Expand(op.Constant(value_ints=[1]), op.Reshape(extra, op.Constant(value_ints=[1])))
    x = op.Reshape(self, op.Concat(ones, shape, axis=0))
    return op.Tile(x, reps)


@aten_op("aten::clone.default")
@script(aten_opset, default_opset=op)
def aten_clone(self: TTensor, memory_format: int = -1) -> TTensor:
    """memory_format does not change values (-1: None)."""
    return op.Identity(self)


@aten_op("aten::detach.default", "aten::alias.default", "aten::lift_fresh_copy.default")
@script(aten_opset, default_opset=op)
def aten_detach(self: TTensor) -> TTensor:
    return op.Identity(self)
