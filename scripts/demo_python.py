#!/usr/bin/python3
"""The Python package in action (scripts/demo runs this with PYTHONPATH set to
build/python): a script function written as onnxscript users write it, run
eagerly on numpy arrays with a trace, exported as an onnx.ModelProto and
checked, and a model loaded, inspected and run."""

import pathlib
import sys
import tempfile
import textwrap

import numpy as np

import oxs

root = pathlib.Path(__file__).resolve().parent.parent
tmp = pathlib.Path(tempfile.mkdtemp())
src = tmp / "gelu_lib.py"
src.write_text(textwrap.dedent('''\
    import math
    from oxs import FLOAT, script
    from oxs.onnx_opset import opset17 as op

    SQRT1_2 = math.sqrt(0.5)

    @script()
    def gelu(X):
        return 0.5 * X * (op.Erf(X * SQRT1_2) + 1.0)

    @script()
    def mlp_block(X: FLOAT["N", 4], W: FLOAT[4, 4]) -> FLOAT["N", 4]:
        return gelu(op.MatMul(X, W))
'''))
sys.path.insert(0, str(tmp))
import gelu_lib  # noqa: E402  (compiled at import: every @script function)

print(">>> gelu_lib.gelu(np.array([-1.0, 0.0, 1.0], np.float32))")
print(gelu_lib.gelu(np.array([-1.0, 0.0, 1.0], np.float32)))
print("\n>>> with oxs.trace() as t: gelu_lib.mlp_block(x, w)")
x = np.arange(8, dtype=np.float32).reshape(2, 4) / 8
w = np.eye(4, dtype=np.float32)
with oxs.trace() as t:
    y = gelu_lib.mlp_block(x, w)
for e in t.events:
    print("  " * e.depth + f"{e.op:8} -> {', '.join(e.outputs)}   # {e.where or '(no script line: a constant or an op body)'}")
print(y)

proto = gelu_lib.mlp_block.to_model_proto()
import onnx  # noqa: E402

onnx.checker.check_model(proto, full_check=True)
print(f"\n>>> mlp_block.to_model_proto(): {len(proto.graph.node)} nodes, functions "
      f"{[f.name for f in proto.functions]}, accepted by onnx.checker")

print("\n>>> a compile error: every problem, with file, line, caret and hint")
bad = tmp / "bad_lib.py"
bad.write_text("from oxs import script\nfrom oxs.onnx_opset import opset17 as op\n\n\n"
               "@script()\ndef f(x):\n    return op.Sofmax(x, axs=1)\n")
try:
    import bad_lib  # noqa: F401
except oxs.CompileError as e:
    print(e)

print("\n>>> m = oxs.load('examples/models/mlp.onnx'); oxs.run(m, {'X': ...})")
m = oxs.load(root / "examples/models/mlp.onnx")
print([f"{n.op_type}({', '.join(v.name for v in n.inputs)})" for n in m.graph.nodes])
print(oxs.run(m, {"X": np.ones((2, 4), np.float32)})["Y"])

print("\n>>> oxs.torch.export(net, (x,), dynamic_shapes=({0: 'batch'},)): PyTorch to ONNX")
import torch  # noqa: E402
import oxs.torch  # noqa: E402

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 2)).eval()
xt = torch.randn(3, 4)
exported = oxs.torch.export(net, (xt,), dynamic_shapes=({0: "batch"},))
print([n.op_type for n in exported.graph.nodes])
x5 = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
ours = list(oxs.run(exported, {exported.graph.inputs[0].name: x5}).values())[0]
with torch.no_grad():
    theirs = net(torch.from_numpy(x5)).numpy()
print(f"batch 5 (traced with 3): max |oxs - torch| = {np.abs(ours - theirs).max():.2e}")
