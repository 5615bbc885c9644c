"""Resampling of the ATen library: upsample_nearest2d and
upsample_bilinear2d (.vec overloads, what F.interpolate traces to) as ONNX
Resize over the two spatial axes.

torch's nearest is ONNX's asymmetric + floor; bilinear is align_corners or
pytorch_half_pixel. With output sizes the scale is out / in on both sides;
with scale factors torch maps indices by 1 / scale, as Resize does with a
scales input."""

from __future__ import annotations

from typing import Sequence

from oxs import script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TFloat


@aten_op("aten::upsample_nearest2d.vec")
@script(aten_opset, default_opset=op)
def aten_upsample_nearest2d_vec(input: TFloat, output_size: Sequence[int] = (),
                                scale_factors: Sequence[float] = ()) -> TFloat:
    """output_size or scale_factors (the other None: omitted, empty)."""
    sizes = op.Constant(value_ints=output_size)
    if op.Size(sizes) > 0:
        r = op.Resize(input, None, None, sizes, axes=[2, 3], mode="nearest",
                      coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    else:
        r = op.Resize(input, None, op.Constant(value_floats=scale_factors), axes=[2, 3],
                      mode="nearest", coordinate_transformation_mode="asymmetric",
                      nearest_mode="floor")
    return r


@aten_op("aten::upsample_bilinear2d.vec")
@script(aten_opset, default_opset=op)
def aten_upsample_bilinear2d_vec(input: TFloat, output_size: Sequence[int] = (),
                                 align_corners: bool = False,
                                 scale_factors: Sequence[float] = ()) -> TFloat:
    sizes = op.Constant(value_ints=output_size)
    scales = op.Constant(value_floats=scale_factors)
    if op.Size(sizes) > 0:
        if align_corners:
            r = op.Resize(input, None, None, sizes, axes=[2, 3], mode="linear",
                          coordinate_transformation_mode="align_corners")
        else:
            r = op.Resize(input, None, None, sizes, axes=[2, 3], mode="linear",
                          coordinate_transformation_mode="pytorch_half_pixel")
    else:
        if align_corners:
            r = op.Resize(input, None, scales, axes=[2, 3], mode="linear",
                          coordinate_transformation_mode="align_corners")
        else:
            r = op.Resize(input, None, scales, axes=[2, 3], mode="linear",
                          coordinate_transformation_mode="pytorch_half_pixel")
    return r
