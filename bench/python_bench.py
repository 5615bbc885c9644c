#!/usr/bin/python3
"""Benchmarks of the Python package (bench/python.sh runs this):

  script  N  -- imports a generated library of N @script() functions
               (bench/compile_gen.py, written for onnxscript, imported through
               oxs.compat): the cost of @script per function, which includes
               reading the source, resolving its names in Python and compiling
               it (with the functions it calls) in C++.
  eager      -- the per-call and per-op overhead of eager calls on tiny
               tensors: a 1-op and a 21-op script function; numpy's own
               per-op cost on the same tensors as the peer.
Prints `key=value` lines."""

import importlib.util
import os
import subprocess
import sys
import time

import numpy as np


def bench_script(n: int, out_dir: str):
    import oxs.compat  # noqa: F401  (the corpus imports onnxscript)

    path = os.path.join(out_dir, f"pylib_{n}.py")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compile_gen.py"),
                    path, str(n)], check=True)
    spec = importlib.util.spec_from_file_location(f"pylib_{n}", path)
    mod = importlib.util.module_from_spec(spec)
    t0, c0 = time.perf_counter(), time.process_time()
    spec.loader.exec_module(mod)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    import oxs

    count = sum(isinstance(v, oxs.OnnxFunction) for v in vars(mod).values())
    print(f"functions={count} wall_s={wall:.4f} cpu_s={cpu:.4f} "
          f"ms_per_function_cpu={1000 * cpu / count:.3f} ms_per_function_wall={1000 * wall / count:.3f}")


def best_per_call(fn, reps=2000, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def bench_eager(out_dir: str):
    src = os.path.join(out_dir, "eager_fns.py")
    chain = "\n".join("    x = op.Add(x, y)" for _ in range(21))
    with open(src, "w") as f:
        f.write("from oxs import script\nfrom oxs.onnx_opset import opset17 as op\n\n\n"
                "@script()\ndef one(x, y):\n    return op.Add(x, y)\n\n\n"
                f"@script()\ndef many(x, y):\n{chain}\n    return x\n")
    spec = importlib.util.spec_from_file_location("eager_fns", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = np.ones(4, np.float32)
    y = np.ones(4, np.float32)
    np.testing.assert_array_equal(mod.many(x, y), x + 21 * y)
    one = best_per_call(lambda: mod.one(x, y))
    many = best_per_call(lambda: mod.many(x, y))
    per_op = (many - one) / 20
    numpy_op = best_per_call(lambda: np.add(x, y), reps=20000)
    print(f"call_1op_us={one * 1e6:.2f} call_21op_us={many * 1e6:.2f} per_op_us={per_op * 1e6:.2f} "
          f"numpy_add_us={numpy_op * 1e6:.3f}")


if __name__ == "__main__":
    what = sys.argv[1]
    out = sys.argv[-1]
    if what == "script":
        bench_script(int(sys.argv[2]), out)
    else:
        bench_eager(out)
