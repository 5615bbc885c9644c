# Attribute parameters: a bool attribute used as a tensor is a BOOL tensor,
# attributes forwarded to a called function that uses them as tensors, and
# defaults that the model and eager runs both apply.
from onnxscript import script, opset17 as op
from onnxscript import FLOAT

# case flag_as_tensor:
#   x = rnd(5)
#   expect = -x
# case forwarded_alpha:
#   x = rnd(4)
#   expect = x * 3.0
# case default_alpha:
#   x = rnd(4)
#   expect = x * 0.5 + 1
# case constant_from_attribute:
#   x = rnd(3)
#   expect = x + 0.25
# case int_attribute_as_tensor:
#   x = rnd(2, 5)
#   expect = x * 3
# dtypes: float32 float64


@script()
def pick(x, flag: bool = True):
    c = op.Equal(flag, True)
    return op.Where(c, op.Neg(x), x)


@script()
def flag_as_tensor(x: FLOAT["N"]) -> FLOAT["N"]:
    return pick(x, flag=True)


@script()
def inner(x, alpha: float):
    return op.Mul(x, alpha)


@script()
def outer(x, alpha: float = 2.0):
    return inner(x, alpha=alpha)


@script()
def forwarded_alpha(x: FLOAT["N"]) -> FLOAT["N"]:
    return outer(x, alpha=3.0)


@script()
def scaled(x, alpha: float = 0.5, beta: float = 1.0):
    return op.Add(op.Mul(x, alpha), beta)


@script()
def default_alpha(x: FLOAT["N"]) -> FLOAT["N"]:
    return scaled(x)


@script()
def shift(x, delta: float = 0.25):
    d = op.Constant(value_float=delta)
    return op.Add(x, op.CastLike(d, x))


@script()
def constant_from_attribute(x: FLOAT["N"]) -> FLOAT["N"]:
    return shift(x)


@script()
def times(x, k: int = 3):
    return op.Mul(x, op.CastLike(k, x))


@script()
def int_attribute_as_tensor(x: FLOAT["M", "N"]) -> FLOAT["M", "N"]:
    return times(x)


# case flag_in_model:
#   x = rnd(4)
#   expect = x * 2


@script()
def flag_in_model(x: FLOAT["N"], flag: bool = True) -> FLOAT["N"]:
    # In the model's graph the default is a BOOL constant.
    c = op.Equal(flag, True)
    return op.Where(c, op.Add(x, x), x)
