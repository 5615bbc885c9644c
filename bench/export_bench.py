#!/usr/bin/python3
"""oxs.torch.export against torch.onnx.export (torch 1.13) on the same models
in the same process, and the tracing modes (oxs's meta-tensor recorder and
make_fx's real, fake and symbolic) on resnet50.

usage: export_bench.py MODELS...     (mlp, resnet18, mobilenet_v2,
       mobilenet_v3_large, efficientnet_b0, resnet50, vit_b_16, transformer)
       export_bench.py library         (loading the compiled ATen library)
       export_bench.py tracing MODEL MODES...
Prints one markdown table row per model (best of 3 runs each; torch.onnx.export
of vit_b_16 and the transformer once: 5-15 s each), then the tracing-mode
rows. Run through bench/export.sh."""

import io
import sys
import time

import torch
import torchvision

import oxs.torch
from oxs.torch import _trace


def model(name):
    torch.manual_seed(0)
    if name == "mlp":
        m = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
        return m.eval(), torch.randn(8, 256)
    if name == "transformer":  # issue #14's 24-layer TransformerEncoder
        layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True)
        return torch.nn.TransformerEncoder(layer, 24).eval(), torch.randn(1, 128, 512)
    return getattr(torchvision.models, name)().eval(), torch.randn(1, 3, 224, 224)


def best(f, n=3):
    out = None
    for _ in range(n):
        t0 = time.perf_counter()
        r = f()
        dt = time.perf_counter() - t0
        if out is None or dt < out[0]:
            out = (dt, r)
    return out


def row(name):
    m, x = model(name)

    def ours():
        oxs.torch.export(m, (x,), opset=17)
        return oxs.torch.last_export_stats()

    # torch.onnx.export cannot export the eval-mode fast path of attention
    # (aten::_native_multi_head_attention): it exports those models in train
    # mode (TrainingMode.PRESERVE), the same computation as their dropouts are 0.
    fast_path = any(isinstance(x, (torch.nn.MultiheadAttention, torch.nn.TransformerEncoderLayer))
                    for x in m.modules())

    def theirs():
        with torch.no_grad():
            if not fast_path:
                torch.onnx.export(m, (x,), io.BytesIO(), opset_version=17)
                return
            m.train()
            try:
                torch.onnx.export(m, (x,), io.BytesIO(), opset_version=17,
                                  training=torch.onnx.TrainingMode.PRESERVE)
            finally:
                m.eval()

    ours()  # the first call imports the ATen library and compiles nothing again
    t_ours, s = best(ours)
    t_torch, _ = best(theirs, n=1 if name in ("vit_b_16", "transformer") else 3)
    handoff = s["handoff_py"] + s["handoff"]
    print(f"| {name} | {t_ours:.3f} s | {s['tracing']:.3f} s | {handoff:.3f} s | "
          f"{s['dispatch'] * 1e3:.2f} ms | {s['build'] + s['cleanup']:.3f} s | {t_torch:.3f} s | "
          f"{t_torch / t_ours:.1f}x |", flush=True)


def tracing_modes(name, modes):
    m, x = model(name)
    for mode in modes:
        t, _ = best(lambda: _trace.trace(m, (x,), {}, mode=mode), n=2 if mode != "symbolic" else 1)
        print(f"| {name} | {mode} | {t:.3f} s |", flush=True)


def library():
    """The ATen library as the exporter loads it (aten_library.onnx and its
    manifest, once per process) against compiling its .py sources (what
    importing oxs.torch.aten does)."""
    from oxs.torch import _library
    t0 = time.perf_counter()
    lib = _library.load_library()
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    from oxs.torch.aten import _registry
    for e in _registry.entries():
        if not e.trace_only:
            e.function.to_library()
    t_compile = time.perf_counter() - t0
    print(f"| load aten_library.onnx and its manifest (the exporter, once per process) | "
          f"{len(lib.records)} functions | {t_load:.3f} s |")
    print(f"| import oxs.torch.aten: compile every .py function (not done at export) | "
          f"{len(_registry.entries())} functions | {t_compile:.3f} s |", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "library":
        library()
    elif sys.argv[1] == "tracing":
        tracing_modes(sys.argv[2], sys.argv[3:])
    else:
        for name in sys.argv[1:]:
            row(name)
