"""Runs a model with ONNX Runtime (the onnxruntime wheel of the project venv)
on .npy inputs and writes its outputs as .npy: the second oracle of
tests/eval/ort_*.cc and the reference side of bench/eval.sh, ml.sh, models.sh.

usage: python run_ort.py MODEL IN_DIR OUT_DIR [REPEAT]
  IN_DIR/<input name>.npy for every graph input; writes OUT_DIR/<output index>.npy.
  With REPEAT > 0, also times REPEAT runs and prints "ort_ms_per_run <ms>".
ORT_THREADS sets the intra-op threads (default 1).
"""

import os
import sys
import time

import numpy as np
import onnxruntime as ort


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[4], file=sys.stderr)
        return 2
    model, in_dir, out_dir = argv[1:4]
    repeat = int(argv[4]) if len(argv) == 5 else 0
    options = ort.SessionOptions()
    options.intra_op_num_threads = int(os.environ.get("ORT_THREADS", "1"))
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {}
    for i in session.get_inputs():
        a = np.load(os.path.join(in_dir, i.name + ".npy"))
        feeds[i.name] = a.astype(object) if a.dtype.kind == "U" else a
    outs = session.run(None, feeds)
    os.makedirs(out_dir, exist_ok=True)
    for k, o in enumerate(outs):
        o = np.asarray(o)
        if o.dtype == object:  # strings come back as Python objects
            o = o.astype(str)
        np.save(os.path.join(out_dir, f"{k}.npy"), o)
    if repeat > 0:
        t0 = time.perf_counter()
        for _ in range(repeat):
            session.run(None, feeds)
        print(f"ort_ms_per_run {(time.perf_counter() - t0) * 1e3 / repeat:.3f}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # one line, as the C++ side reports it
        print(f"run_ort: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
