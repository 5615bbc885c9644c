"""One export, the first call in a fresh process, to a file: what a user waits
for (bench/export.sh runs this once per model and exporter).

    python export_first_call.py TOOL MODEL OUT.onnx
    TOOL: oxs | dynamo (torch.onnx.export(..., dynamo=True)) |
          torchscript (torch.onnx.export(..., dynamo=False))

Prints one JSON line: tool, model, export seconds (the call alone: model made
and torch imported before), nodes of the written file's main graph, peak RSS
of the process (MiB), or the error's first line."""

import json
import os
import resource
import sys
import time
import warnings

warnings.filterwarnings("ignore")
tool, name, out = sys.argv[1:4]

import torch  # noqa: E402


def make(name):
    torch.manual_seed(0)
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True)
        return torch.nn.TransformerEncoder(layer, 24, enable_nested_tensor=False).eval(), \
            torch.randn(2, 128, 512)
    import torchvision

    return torchvision.models.get_model(name, weights=None).eval(), torch.randn(2, 3, 224, 224)


model, x = make(name)
row = {"tool": tool, "model": name}
try:
    t0 = time.perf_counter()
    if tool == "oxs":
        import oxs.torch

        oxs.torch.export(model, (x,), path=out, dynamic_shapes=({0: "batch"},))
    else:
        from torch.export import Dim

        kw = ({"dynamo": True, "dynamic_shapes": ({0: Dim("batch")},)} if tool == "dynamo" else
              {"dynamo": False, "input_names": ["x"], "dynamic_axes": {"x": {0: "batch"}}})
        torch.onnx.export(model, (x,), out, opset_version=18, **kw)
    row["export_s"] = time.perf_counter() - t0
    import onnx

    row["nodes"] = len(onnx.load(out, load_external_data=False).graph.node)
except Exception as e:
    text = str(e).strip().splitlines()
    row["error"] = f"{type(e).__name__}: {text[0] if text else ''}"[:200]
row["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(row))
