#!/usr/bin/python3
"""Runs onnx's checker (full_check: with strict shape inference) and
`oxs check` on every .onnx file of a directory: the backend models after
`oxs opt`'s default pipeline (rewrite_backend --save DIR). Models whose
original already fails the onnx checker are skipped and counted; the rest
must pass both.

usage: check_models.py SAVED_DIR DATA_DIR OXS_BINARY
Ends with the line 'N passed, N failed'."""
import os
import subprocess
import sys

import onnx

saved, data, oxs = sys.argv[1], sys.argv[2], sys.argv[3]
passed = failed = skipped = 0
for name in sorted(os.listdir(saved)):
    suite, test = name[: -len(".onnx")].split("__", 1)
    try:
        onnx.checker.check_model(onnx.load(os.path.join(data, suite, test, "model.onnx")), full_check=True)
    except Exception:
        skipped += 1  # the original does not pass either: nothing to compare
        continue
    try:
        onnx.checker.check_model(onnx.load(os.path.join(saved, name)), full_check=True)
    except Exception as e:
        failed += 1
        print(f"FAIL {suite}/{test}: onnx checker: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        continue
    r = subprocess.run([oxs, "check", os.path.join(saved, name)], capture_output=True, text=True)
    if r.returncode == 0:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {suite}/{test}: oxs check: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else r.returncode}")
print(f"originals failing the checker themselves: {skipped}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
