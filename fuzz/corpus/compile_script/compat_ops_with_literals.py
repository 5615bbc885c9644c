# More literals next to tensors: each takes the type its op's constraint
# binds (Clip's bounds, Concat's variadic inputs, comparisons), or keeps its
# own where the constraint is separate (Pow's exponent), as in onnxscript.
from onnxscript import FLOAT, script
from onnxscript import opset17 as op

# case clip_bounds:
#   x = rnd(6, lo=-3.0, hi=3.0)
#   expect = np.clip(x, -1.0, 1.5)
# case pow_int_exponent:
#   x = rnd(4)
#   expect = x ** 3
# case concat_literal:
#   x = rnd(2)
#   expect = np.concatenate([x, [0.5, -0.25]])
# case compare_literal:
#   x = rnd(5)
#   expect = (x > 0.5).astype(dt) + (x <= -0.5).astype(dt) * 2
# case where_int_literals:
#   x = rnd(5)
#   expect = np.where(x > 0, 1, -1).astype(np.int64)
# case operators:
#   x = rnd(4, lo=0.5, hi=2.0)
#   expect = (2 - x) * 3 / x + x ** 2 - 1 / (x + 1)
# dtypes: float32 float64


@script()
def clip_bounds(x: FLOAT["N"]) -> FLOAT["N"]:
    return op.Clip(x, -1.0, 1.5)


@script()
def pow_int_exponent(x: FLOAT["N"]) -> FLOAT["N"]:
    return op.Pow(x, 3)


@script()
def concat_literal(x: FLOAT[2]) -> FLOAT[4]:
    return op.Concat(x, [0.5, -0.25], axis=0)


@script()
def compare_literal(x: FLOAT["N"]) -> FLOAT["N"]:
    hi = op.CastLike(x > 0.5, x)
    lo = op.CastLike(x <= -0.5, x)
    return hi + lo * 2


@script()
def where_int_literals(x: FLOAT["N"]):
    return op.Where(x > 0, 1, -1)


@script()
def operators(x: FLOAT["N"]) -> FLOAT["N"]:
    return (2 - x) * 3 / x + x**2 - 1 / (x + 1)
