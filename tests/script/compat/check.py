"""Oracle side of the onnxscript-compatibility corpus (compat_test.cc).

Reads a manifest of compiled models (one per corpus case and element type),
and for each: runs onnx's checker with full_check, makes the case's inputs
and computes its expected outputs with numpy from the formula in the corpus
file's header, independently of oxs. Writes <dir>/<id>.in.<name>.npy,
<dir>/<id>.expect.<k>.npy and one result line per case to stdout:
    <id> ok
    <id> FAIL <message>
Usage: check.py MANIFEST. Manifest lines: <id> <model.onnx> <dtype> <spec>, the
spec being the case's header lines joined by ' ;; '.
"""
import math
import sys

import numpy as np
import onnx

_erf = np.vectorize(math.erf)


def run_case(case_id, model_path, dtype, spec, out_dir):
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    rng = np.random.default_rng(abs(hash(case_id)) % (2**32))
    dt = np.dtype(dtype)

    def rnd(*shape, lo=-2.0, hi=2.0):
        return rng.uniform(lo, hi, size=shape).astype(dt)

    def arr(xs, dtype=None):
        return np.array(xs, dtype=dtype if dtype is not None else dt)

    env = {"np": np, "math": math, "erf": _erf, "rnd": rnd, "arr": arr, "dt": dt}
    inputs = {}
    expects = None
    for line in spec.split(" ;; "):
        line = line.strip()
        if not line or line.startswith("entry"):
            continue
        name, _, expr = line.partition("=")
        name = name.strip()
        if name == "expect":
            value = eval(expr, env)
            expects = list(value) if isinstance(value, tuple) else [value]
        else:
            value = eval(expr, env)
            env[name] = value
            inputs[name] = np.asarray(value)
    if expects is None:
        raise ValueError("the case has no 'expect = ...' line")
    graph_inputs = [i.name for i in model.graph.input]
    for name in graph_inputs:
        if name not in inputs:
            raise ValueError(f"the spec gives no value for input '{name}'")
        np.save(f"{out_dir}/{case_id}.in.{name}.npy", inputs[name])
    for k, e in enumerate(expects):
        e = np.asarray(e)
        # Formulas compute in float64 (math.erf, Python floats); a model of
        # the case's element type must give that type.
        if np.issubdtype(e.dtype, np.floating):
            e = e.astype(dt)
        np.save(f"{out_dir}/{case_id}.expect.{k}.npy", e)


def main():
    manifest = sys.argv[1]
    out_dir = manifest.rsplit("/", 1)[0]
    with open(manifest) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            case_id, model_path, dtype, spec = line.split(" ", 3)
            try:
                run_case(case_id, model_path, dtype, spec, out_dir)
                print(case_id, "ok", flush=True)
            except Exception as e:  # reported per case by the C++ driver
                msg = str(e).replace("\n", " | ")
                print(case_id, "FAIL", type(e).__name__ + ": " + msg, flush=True)


if __name__ == "__main__":
    main()
