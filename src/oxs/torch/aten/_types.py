"""The type constraints of the ATen library: TypeVars bound to unions of oxs
tensor types. A function's annotations name these, so the element types a
parameter accepts are the members of its TypeVar's union (the manifest lists
them by name, and the dispatcher scores candidates by them).

One TypeVar name is one constraint within a function: every parameter
annotated with the same TypeVar has the same element type at a call."""

from __future__ import annotations

from typing import TypeVar, Union

from oxs import (BFLOAT16, BOOL, DOUBLE, FLOAT, FLOAT16, INT8, INT16, INT32, INT64, UINT8)

# Floating point: what transcendental functions, softmax and norms accept.
TFloat = TypeVar("TFloat", bound=Union[FLOAT16, FLOAT, DOUBLE, BFLOAT16])
# Floats and signed/unsigned integers: arithmetic, comparisons, reductions.
TReal = TypeVar("TReal", bound=Union[FLOAT16, FLOAT, DOUBLE, BFLOAT16, INT8, INT16, INT32, INT64,
                                      UINT8])
# Signed numbers (what Neg, Abs and Sign accept besides unsigned).
TSigned = TypeVar("TSigned", bound=Union[FLOAT16, FLOAT, DOUBLE, BFLOAT16, INT8, INT16, INT32,
                                          INT64])
# Integers: bitwise ops (bool tensors have their own functions).
TInt = TypeVar("TInt", bound=Union[INT8, INT16, INT32, INT64, UINT8])
# Any element type torch tensors commonly hold (shape ops, where, copies).
TTensor = TypeVar("TTensor", bound=Union[BOOL, FLOAT16, FLOAT, DOUBLE, BFLOAT16, INT8, INT16, INT32,
                                          INT64, UINT8])
# A second, independent "any" constraint (a result whose element type is
# chosen by an attribute, e.g. _to_copy's dtype).
TTensor2 = TypeVar("TTensor2", bound=Union[BOOL, FLOAT16, FLOAT, DOUBLE, BFLOAT16, INT8, INT16,
                                            INT32, INT64, UINT8])
# Index tensors.
IntType = TypeVar("IntType", bound=Union[INT32, INT64])

# Concrete types, named here so library files import every type from one place.
__all__ = ["TFloat", "TReal", "TSigned", "TInt", "TTensor", "TTensor2", "IntType", "BOOL",
           "INT64", "FLOAT"]
