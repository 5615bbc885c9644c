"""Tensor types as onnxscript spells them: FLOAT (a scalar), FLOAT[64, "N"],
FLOAT[...] (any shape), and the element type's ONNX number as `FLOAT.dtype`.

The compiler reads annotations from the function's source; these objects are
what those names denote when it resolves them from Python."""

from __future__ import annotations

import typing

import numpy as np

# (name, ONNX TensorProto number, numpy dtype or None)
_ELEMENT_TYPES = [
    ("FLOAT", 1, np.float32), ("UINT8", 2, np.uint8), ("INT8", 3, np.int8),
    ("UINT16", 4, np.uint16), ("INT16", 5, np.int16), ("INT32", 6, np.int32),
    ("INT64", 7, np.int64), ("STRING", 8, np.object_), ("BOOL", 9, np.bool_),
    ("FLOAT16", 10, np.float16), ("DOUBLE", 11, np.float64), ("UINT32", 12, np.uint32),
    ("UINT64", 13, np.uint64), ("COMPLEX64", 14, np.complex64),
    ("COMPLEX128", 15, np.complex128), ("BFLOAT16", 16, None),
]


class _TensorTypeMeta(type):
    def __getitem__(cls, shape):
        return cls._with_shape(shape)

    def __repr__(cls):
        return cls.__name__

    # `FLOAT | float` (an attribute that may also be given as a tensor).
    def __or__(cls, other):
        return typing.Union[cls, other]

    def __ror__(cls, other):
        return typing.Union[other, cls]


class TensorType(metaclass=_TensorTypeMeta):
    """A tensor type; subscript it with a shape: FLOAT[2, "N"], FLOAT[...]."""

    dtype = 0  # ONNX element type number; 0 for the generic TensorType
    np_dtype = None
    shape = ()  # a bare type is a scalar, as in onnxscript; None: any shape

    @classmethod
    def _with_shape(cls, shape):
        if shape is Ellipsis:
            dims = None
        else:
            if not isinstance(shape, tuple):
                shape = (shape,)
            for d in shape:
                if not (d is None or isinstance(d, (int, str))) or isinstance(d, bool):
                    raise TypeError(f"{cls.__name__}[...]: a dimension is an int, a str or None, not {d!r}")
            dims = tuple(shape)
        base = cls._base if hasattr(cls, "_base") else cls
        text = "..." if dims is None else ", ".join(repr(d) for d in dims)
        return _TensorTypeMeta(f"{base.__name__}[{text}]", (base,), {"shape": dims, "_base": base})


def _make(name, number, np_dtype):
    return _TensorTypeMeta(name, (TensorType,), {"dtype": number, "np_dtype": np_dtype})


_by_name = {name: _make(name, n, d) for name, n, d in _ELEMENT_TYPES}
FLOAT = _by_name["FLOAT"]
UINT8 = _by_name["UINT8"]
INT8 = _by_name["INT8"]
UINT16 = _by_name["UINT16"]
INT16 = _by_name["INT16"]
INT32 = _by_name["INT32"]
INT64 = _by_name["INT64"]
STRING = _by_name["STRING"]
BOOL = _by_name["BOOL"]
FLOAT16 = _by_name["FLOAT16"]
DOUBLE = _by_name["DOUBLE"]
UINT32 = _by_name["UINT32"]
UINT64 = _by_name["UINT64"]
COMPLEX64 = _by_name["COMPLEX64"]
COMPLEX128 = _by_name["COMPLEX128"]
BFLOAT16 = _by_name["BFLOAT16"]

ELEMENT_TYPE_NAMES = [name for name, _, _ in _ELEMENT_TYPES]


def is_tensor_type(obj) -> bool:
    return isinstance(obj, type) and issubclass(obj, TensorType)
