# Indexing with tensors follows numpy: A[i] with an int tensor i of any rank
# is a Gather on axis 0; a scalar tensor index drops the axis.
from onnxscript import script, opset17 as op
from onnxscript import FLOAT, INT64

# case rows:
#   A = rnd(4, 3)
#   i = np.array([0, 2], dtype=np.int64)
#   expect = A[i]
# case scalar_index:
#   A = rnd(4, 3)
#   i = np.array(3, dtype=np.int64)
#   expect = A[i]
# case matrix_index:
#   A = rnd(5, 2)
#   i = np.array([[0, 1], [4, 3]], dtype=np.int64)
#   expect = A[i]
# case list_index:
#   A = rnd(4, 3)
#   expect = A[[0, 2]]
# case index_second_axis:
#   A = rnd(3, 4)
#   i = np.array([3, 0, 1], dtype=np.int64)
#   expect = A[:, i]
# case int_and_slice:
#   A = rnd(4, 5)
#   expect = A[1, 1:4]
# dtypes: float32 float64


@script()
def rows(A: FLOAT[4, 3], i: INT64[2]) -> FLOAT[2, 3]:
    return A[i]


@script()
def scalar_index(A: FLOAT[4, 3], i: INT64[()]) -> FLOAT[3]:
    return A[i]


@script()
def matrix_index(A: FLOAT[5, 2], i: INT64[2, 2]) -> FLOAT[2, 2, 2]:
    return A[i]


@script()
def list_index(A: FLOAT[4, 3]) -> FLOAT[2, 3]:
    return A[[0, 2]]


@script()
def index_second_axis(A: FLOAT[3, 4], i: INT64[3]) -> FLOAT[3, 3]:
    return A[:, i]


@script()
def int_and_slice(A: FLOAT[4, 5]) -> FLOAT[3]:
    return A[1, 1:4]


# case paired_indices:
#   A = rnd(4, 3)
#   i = np.array([0, 3, 1], dtype=np.int64)
#   j = np.array([2, 0, 1], dtype=np.int64)
#   expect = A[i, j]
# case paired_broadcast_then_slice:
#   A = rnd(3, 4, 5)
#   i = np.array([[0], [2]], dtype=np.int64)
#   j = np.array([1, 3, -1], dtype=np.int64)
#   expect = A[i, j, 1:3]
# case paired_lists_then_slice:
#   A = rnd(3, 4)
#   expect = A[[0, 2], [1, 3]]


@script()
def paired_indices(A: FLOAT[4, 3], i: INT64[3], j: INT64[3]) -> FLOAT[3]:
    return A[i, j]


@script()
def paired_broadcast_then_slice(A: FLOAT[3, 4, 5], i: INT64[2, 1], j: INT64[3]) -> FLOAT[2, 3, 2]:
    return A[i, j, 1:3]


@script()
def paired_lists_then_slice(A: FLOAT[3, 4]) -> FLOAT[2]:
    return A[[0, 2], [1, 3]]
