"""The Core ATen opset as torch states it: every overload tagged
torch.Tag.core (torch.ops.aten.<op>.<overload>), and which the exporter
covers (an ATen library function, ONNX Script or trace-only, or a native C++
function)."""

from __future__ import annotations

import pathlib
import re

import torch

from oxs import _core
from oxs.torch import aten  # noqa: F401  (registers the library)
from oxs.torch.aten import _registry

MISSING = pathlib.Path(__file__).resolve().parent / "core_missing.txt"


def core_overloads() -> list:
    """'aten::add.Tensor', ... for every overload tagged core, sorted. Every
    registered aten operator is looked at (dir(torch.ops.aten) lists only
    those a process has touched so far)."""
    out = set()
    for name in torch._C._dispatch_get_all_op_names():
        if not name.startswith("aten::"):
            continue
        op, _, ovl = name[len("aten::"):].partition(".")
        try:
            overload = getattr(getattr(torch.ops.aten, op), ovl or "default")
        except (AttributeError, RuntimeError):
            continue
        if torch.Tag.core in overload.tags:
            out.add(f"aten::{op}.{ovl or 'default'}")
    return sorted(out)


def coverage(overloads) -> dict:
    """{overload: [kinds]} with kinds among "script", "traced", "native"."""
    native = set(_core.torch_native_overloads(list(overloads)))
    out = {}
    for o in overloads:
        kinds = []
        for e in _registry.candidates(o):
            kinds.append("traced" if e.trace_only else "script")
        if o in native:
            kinds.append("native")
        out[o] = sorted(set(kinds))
    return out


def known_missing() -> dict:
    """{overload: reason} from core_missing.txt ('aten::op.overload : why')."""
    out = {}
    for n, line in enumerate(MISSING.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"(\S+::\S+)\s*:\s*(.+)$", line)
        if not m:
            raise ValueError(f"{MISSING}:{n}: write 'aten::op.overload : reason'")
        out[m.group(1)] = m.group(2)
    return out
