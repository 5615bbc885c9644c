"""ATen functions the torch 2 front end needs (the exporter's owner adds
them here, apart from the families' files): overloads whose size arguments
vary with the dynamic dims. A symbolic trace (dynamic_shapes) passes such a
size as a graph value, so these functions take it as an input; the
dispatcher picks them only when the size is dynamic (a constant scores
higher as the family's attribute)."""

from __future__ import annotations

from oxs import INT64, script
from oxs.onnx_opset import opset18 as op
from oxs.torch.aten._registry import aten_op, aten_opset
from oxs.torch.aten._types import TTensor2



@aten_op("aten::arange.default", dtype="result")
@script(aten_opset, default_opset=op)
def aten_arange_dynamic(end: INT64, dtype: int, layout: int = -1, device: str = "",
                        pin_memory: bool = False) -> TTensor2:
    """0, 1, ... below end (a size computed from the dynamic dims)."""
    zero = op.Constant(value_int=0)
    one = op.Constant(value_int=1)
    return op.Cast(op.Range(zero, end, one), to=dtype)
