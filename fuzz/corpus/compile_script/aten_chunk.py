# torch.chunk from the ONNX Script announcement: `if` and arithmetic on shapes.
# It imports opset18; compile with --opset 17 (libonnx 1.12 knows up to 17).
from onnxscript import opset18 as op, script, FLOAT, INT64


@script()
def aten_chunk(self: FLOAT[...], chunks: int, dim: int = 0):
    neg_1 = op.Constant(value_ints=[-1])
    # Get size of specified dim
    self_shape = op.Shape(self)
    dim_size = op.Gather(self_shape, dim, axis=0)
    # Compute size/chunk to get the number of data in one chunk
    num_per_chunk = dim_size / chunks
    num_per_chunk = op.Cast(op.Mod(dim_size, chunks) > 0, to=INT64.dtype) + num_per_chunk  # round up

    # Compute real chunk number
    num_chunk = dim_size / num_per_chunk
    # Get something like [n, n, n, n, ...], total num_chunk
    list_split = op.Expand(num_per_chunk, op.Reshape(num_chunk, neg_1))

    remainder = op.Mod(dim_size, num_per_chunk)
    if remainder > 0:
        # Append the remainder to the [n, n, n, n, ..., r]
        list_split = op.Concat(list_split, op.Reshape(remainder, neg_1), axis=0)
    return op.SplitToSequence(self, list_split, axis=dim)


@script()
def ten_chunks_model(x: FLOAT["N"]):
    return aten_chunk(x, chunks=10)
