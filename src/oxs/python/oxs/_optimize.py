"""The rewriter from Python: the same passes and pipeline as `oxs opt`.

    optimized = oxs.optimize(model)                       # the default pipeline
    optimized = oxs.optimize(model, ["fold", "cse", "dce"], verify="equality")
    optimized, stats = oxs.optimize(model, return_stats=True)
    optimized = oxs.optimize(model, ["outline", "dce"], functions="lib.onnx")
    oxs.list_passes()        # {name: one-line summary}
    oxs.default_pipeline()   # the pass names optimize runs by default
"""

from __future__ import annotations

import os

from . import _core
from ._model import Model, _model


def list_passes() -> dict:
    """Every standard pass: {name: one-line summary}."""
    return dict(_core.list_passes())


def default_pipeline() -> list:
    """The passes optimize runs when `passes` is None, in order."""
    return list(_core.default_pipeline())


def _inputs(inputs) -> dict:
    if inputs is None:
        return {}
    if isinstance(inputs, (str, os.PathLike)):
        path = os.fspath(inputs)
        if not path.endswith(".npz"):
            raise ValueError(f"optimize: inputs '{path}' is not a .npz file; give a .npz "
                             "archive or a dict {input name: array}")
        import numpy as np

        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    if isinstance(inputs, dict):
        return inputs
    raise TypeError("optimize: inputs is a dict {input name: array} or the path of a .npz, not "
                    f"{type(inputs).__name__}")


def optimize(model, passes=None, verify=None, inputs=None, *, seed: int = 0, dims=None,
             bisect: bool = True, verify_ir: bool = False, functions=None,
             return_stats: bool = False):
    """Runs a pass pipeline on a copy of `model` (an oxs.Model, an
    onnx.ModelProto or a path) and returns the optimized oxs.Model; the
    model given is not changed.

    passes: None for the default pipeline, else a list of pass names, each
        "NAME" or "NAME:KEY=VALUE" (e.g. "fold:max-elements=4096").
    verify: None, "equality", "tolerance=RTOL,ATOL" or "metric=NAME:THRESHOLD"
        (max-abs, max-rel, cosine, top1): every pass is checked on the
        evaluator against the model before it; a failure raises oxs.Error
        naming the pass, the output, the figures and (bisect=True) the
        single rule application at fault.
    inputs: for verification, {input name: array} or the path of a .npz
        archive whose arrays are named like the inputs; inputs not given are
        random (seeded by `seed`; `dims` gives sizes of symbolic dims).
    verify_ir: check the IR after every pass (default: once at the end).
    functions: a model (oxs.Model, onnx.ModelProto or path) whose functions
        the outline pass also looks for: a subgraph computing one becomes a
        call of it, and the function is added to the model when first used
        (`oxs opt --functions LIB.onnx`). The passes must include "outline".
    return_stats: return (model, stats), stats a list with one dict per
        pass: pass, nodes_before, nodes_after, applications (per rule),
        total_applications, seconds, cap_reached, notes.
    """
    if isinstance(passes, str):
        raise TypeError("optimize: passes is a list of pass names, e.g. ['fold', 'cse']")
    if verify is not None and not isinstance(verify, str):
        raise TypeError("optimize: verify is a string such as 'equality'")
    m = _model(model)
    library = None if functions is None else _model(functions)
    out, stats = _core.optimize(m, None if passes is None else list(passes), verify or "",
                                _inputs(inputs), int(seed), dict(dims or {}), bool(bisect),
                                bool(verify_ir), library)
    return (out, stats) if return_stats else out


__all__ = ["optimize", "list_passes", "default_pipeline", "Model"]
