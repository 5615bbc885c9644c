# Python literals in explicit op calls take the element type the op's type
# constraint binds from the other inputs (onnxscript's autocast): a typed
# constant when that type is known while compiling, CastLike in a generic
# function.
from onnxscript import script, opset17 as op
from onnxscript import FLOAT

# case one_minus_erf:
#   x = rnd(5)
#   expect = 1 - erf(x)
# case generic_gelu:
#   x = rnd(2, 3)
#   expect = 0.5 * x * (1 + erf(x / math.sqrt(2)))
# case list_literal:
#   x = rnd(3)
#   expect = x + np.array([1, 2, 3])
# case literal_first_in_variadic:
#   x = rnd(4)
#   expect = np.maximum(np.maximum(x, 0), 1)
# case where_literals:
#   x = rnd(6)
#   expect = np.where(x > 0, x, 0)
# dtypes: float32 float64


@script()
def one_minus_erf(x: FLOAT["N"]) -> FLOAT["N"]:
    return op.Sub(1, op.Erf(x))


@script()
def gelu(x):
    # x is untyped here: the literals become CastLike(literal, x).
    return op.Mul(op.Mul(0.5, x), op.Add(1, op.Erf(op.Div(x, 1.4142135623730951))))


@script()
def generic_gelu(x: FLOAT["M", "N"]) -> FLOAT["M", "N"]:
    return gelu(x)


@script()
def list_literal(x: FLOAT[3]) -> FLOAT[3]:
    return op.Add(x, [1, 2, 3])


@script()
def literal_first_in_variadic(x: FLOAT["N"]) -> FLOAT["N"]:
    return op.Max(0, x, 1)


@script()
def where_literals(x: FLOAT["N"]) -> FLOAT["N"]:
    return op.Where(op.Greater(x, 0), x, 0)
