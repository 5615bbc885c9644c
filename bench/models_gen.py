"""Exports the real models of bench/models.sh with Debian's torch/torchvision.

Random weights from a fixed seed, opset 17, batch 1, one float input named
"input"; also writes IN_DIR/input.npy (fixed seed) for both runtimes.
  usage: /usr/bin/python3 bench/models_gen.py OUT_DIR [MODEL ...]
"""
import os
import sys

import numpy as np
import torch
import torchvision


class Encoder(torch.nn.Module):
    """A 24-layer nn.TransformerEncoder (d_model 512, 8 heads, FFN 2048, GELU)."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(
            d_model=512, nhead=8, dim_feedforward=2048, activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=24, enable_nested_tensor=False)
        # The layers are deep copies of one: give each its own weights (the
        # exporter would otherwise store equal tensors once).
        for p in self.encoder.parameters():
            if p.dim() > 1:
                torch.nn.init.xavier_uniform_(p)
            else:
                torch.nn.init.normal_(p, std=0.02)

    def forward(self, x):
        return self.encoder(x)


MODELS = {
    "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 224, 224)),
    "mobilenet_v3_large": (lambda: torchvision.models.mobilenet_v3_large(), (1, 3, 224, 224)),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(), (1, 3, 224, 224)),
    "transformer_encoder24": (Encoder, (1, 128, 512)),
}


def export(name, out):
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    if name == "vit_b_16":  # torchvision starts the head at zero: all outputs would be 0
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    path = os.path.join(out, name + ".onnx")
    # Not under torch.no_grad(): with grad enabled, torch's attention stays
    # off its fused fast path (aten::_native_multi_head_attention has no
    # ONNX export) and exports as MatMul/Softmax.
    torch.onnx.export(model, (x,), path, opset_version=17, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    ind = os.path.join(out, name + "_in")
    os.makedirs(ind, exist_ok=True)
    np.save(os.path.join(ind, "input.npy"), x.numpy())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or MODELS:
        if not os.path.exists(os.path.join(out, name + ".onnx")):
            export(name, out)


if __name__ == "__main__":
    main()
