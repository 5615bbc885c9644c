"""OpInfo cases: every sample torch's OpInfo database
(torch.testing._internal.common_methods_invocations.op_db) gives for an op,
in every dtype the op supports among DTYPES, exported with oxs.torch.export
as a one-op model (the op's tensors are the model's inputs, everything else
is fixed) and compared with torch eager on oxs's evaluator (oxs.run) and on
ONNX Runtime.

Tolerances (TOLERANCES, rtol/atol per dtype): exact for integers and bool;
float64 1e-7; float32 1e-5 (ONNX kernels accumulate in another order than
ATen's); float16 1e-2/1e-3 and bfloat16 2e-2/1e-2 (torch computes these in
float32 and rounds once, an ONNX kernel may round after every step). numpy
has no bfloat16: a bfloat16 case feeds float32 inputs that the model casts to
bfloat16 first, and casts bfloat16 results to float32 (torch eager runs the
same wrapper).

A case's status: "pass" (oxs and ORT both match); "ort-no-kernel: ..." (oxs
matches; ONNX Runtime's CPU provider has no kernel for an op at that type,
mostly bfloat16); "fail: ..." (a mismatch of values, dtypes or shapes, or a
run error, on oxs and/or ORT, each named); "export: ..." (the exporter
refuses it); "missing: overloads" (no ATen function: the op is not covered);
"unrepresentable: why" (ONNX or the harness cannot state the case: a
non-tensor result, a complex dtype...). A sample torch itself rejects is no
case.

    python3 opinfo.py sweep OUT.jsonl   # every op of op_db (make sweep-opinfo);
                                        # resumes after a crash, skipping the op
    python3 opinfo.py sweep OUT.jsonl --redo OP...   # run these ops again
    python3 opinfo.py summarize OUT.jsonl SUMMARY.json
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import sys
import warnings

import numpy as np
import torch
import torch.utils._pytree as pytree

import oxs
import oxs.torch

HERE = pathlib.Path(__file__).resolve().parent
EXCLUSIONS = HERE / "opinfo_exclusions.txt"

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "float64": torch.float64, "int32": torch.int32, "int64": torch.int64,
          "bool": torch.bool}
TOLERANCES = {"float64": (1e-7, 1e-7), "float32": (1e-5, 1e-5), "float16": (1e-2, 1e-3),
              "bfloat16": (2e-2, 1e-2), "int32": (0, 0), "int64": (0, 0), "bool": (0, 0)}
# Ops whose results are random: no sample can be compared with eager.
RANDOM = re.compile(r"(^|[._])(bernoulli|normal|uniform|rand|randn|randint|randperm|dropout"
                    r"|multinomial|cauchy|exponential|geometric|log_normal|rrelu"
                    r"|empty|new_empty|empty_like|empty_strided)($|[._])")


def op_db():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db as db
    return db


def op_name(info) -> str:
    return info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")


def find_op(name: str):
    for info in op_db():
        if op_name(info) == name:
            return info
    raise KeyError(f"no OpInfo named {name!r}")


def dtypes_of(info) -> list:
    supported = info.supported_dtypes("cpu")
    return [n for n, d in DTYPES.items() if d in supported]


@dataclasses.dataclass
class Result:
    op: str
    dtype: str
    sample: int
    status: str
    overloads: tuple = ()

    def to_json(self):
        return {"op": self.op, "dtype": self.dtype, "sample": self.sample, "status": self.status,
                "overloads": list(self.overloads)}


class _OneOp(torch.nn.Module):
    """The op applied to the sample: tensors are the forward's inputs (as
    float32 for bfloat16 ones, cast inside), the rest is fixed."""

    def __init__(self, fn, spec, consts, bf16):
        super().__init__()
        self.fn, self.spec, self.consts, self.bf16 = fn, spec, consts, bf16

    def forward(self, *tensors):
        it = iter(tensors)
        leaves = []
        for c, bf in zip(self.consts, self.bf16):
            if c is _TENSOR:
                t = next(it)
                leaves.append(t.to(torch.bfloat16) if bf else t)
            else:
                leaves.append(c)
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        out = self.fn(*args, **kwargs)
        outs = pytree.tree_leaves(out)
        return tuple(o.to(torch.float32) if isinstance(o, torch.Tensor) and
                     o.dtype == torch.bfloat16 else o for o in outs)


_TENSOR = object()


def _short(e, n=300) -> str:
    s = " ".join(str(e).split())
    return s[:n] + ("..." if len(s) > n else "")


def _to_numpy(t):
    return t.detach().numpy()


_NAMES = {np.dtype(np.float64): "float64", np.dtype(np.float32): "float32",
          np.dtype(np.float16): "float16"}


def _compare(got, expected, dtype, where):
    """None if `got` matches torch's `expected`, else what differs. Float
    results use the tolerance of their own dtype (an int input's exp is
    float32), a float32 result of a bfloat16 case bfloat16's."""
    if len(got) != len(expected):
        return f"mismatch {where}: {len(got)} outputs, torch {len(expected)}"
    for k, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        if g.dtype != e.dtype:
            return f"mismatch {where}: output {k} is {g.dtype}, torch {e.dtype}"
        if g.shape != e.shape:
            return f"mismatch {where}: output {k} has shape {g.shape}, torch {e.shape}"
        if e.dtype.kind in "fc":
            rtol, atol = TOLERANCES["bfloat16" if dtype == "bfloat16" else _NAMES[e.dtype]]
            ok = np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = np.array_equal(g, e)
        if not ok:
            with np.errstate(all="ignore"):
                diff = np.nanmax(np.abs(g.astype(np.float64) - e.astype(np.float64))) \
                    if g.size else 0
            return f"mismatch {where}: output {k} differs (max abs diff {diff:.3g})"
    return None


_ORT = None


def _ort():
    global _ORT
    if _ORT is None:
        import onnxruntime
        onnxruntime.set_default_logger_severity(3)
        _ORT = onnxruntime
    return _ORT


def run_case(info, dtype: str, index: int, sample) -> Result:
    name = op_name(info)

    def result(status, overloads=()):
        return Result(name, dtype, index, status, tuple(overloads))

    if RANDOM.search(info.name):
        return result("unrepresentable: the op's results are random")
    leaves, spec = pytree.tree_flatten(((sample.input,) + tuple(sample.args), sample.kwargs))
    consts, bf16, inputs = [], [], []
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            if leaf.is_complex():
                return result("unrepresentable: a complex tensor")
            consts.append(_TENSOR)
            bf = leaf.dtype == torch.bfloat16
            bf16.append(bf)
            inputs.append((leaf.to(torch.float32) if bf else leaf).detach().clone()
                          .contiguous())
        else:
            consts.append(leaf)
            bf16.append(False)
    model = _OneOp(info.op, spec, consts, bf16)
    try:
        with torch.no_grad():
            expected = model(*[t.clone() for t in inputs])
    except Exception:
        return None  # torch rejects the sample: no case
    if not all(isinstance(o, torch.Tensor) for o in expected):
        return result("unrepresentable: a result that is not a tensor "
                      f"({', '.join(type(o).__name__ for o in expected)})")
    if any(o.is_complex() for o in expected):
        return result("unrepresentable: a complex result")
    if not expected:
        return result("unrepresentable: no tensor result")
    expected = [_to_numpy(o) for o in expected]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            onnx_model, decisions = oxs.torch.export(model, tuple(inputs), explain=True)
    except oxs.torch.ExportError as e:
        text = str(e)
        if "have no ATen function" in text:
            missing = sorted(set(re.findall(r"^\s+(\S+::\S+) at node", text, re.M)))
            return result("missing: " + " ".join(missing))
        return result("export: " + _short(text))
    except Exception as e:  # the tracer or torch itself
        return result(f"export: {type(e).__name__}: {_short(e)}")
    overloads = sorted({d["target"].split("@")[0] for d in decisions})
    feeds = {v.name: _to_numpy(t) for v, t in zip(onnx_model.graph.inputs, inputs)}
    names = [v.name for v in onnx_model.graph.outputs]
    try:
        out = oxs.run(onnx_model, feeds)
        on_oxs = _compare([out[n] for n in names], expected, dtype, "oxs")
    except Exception as e:
        on_oxs = f"error oxs: {_short(e)}"
    try:
        ort = _ort()
        options = ort.SessionOptions()
        options.log_severity_level = 4
        sess = ort.InferenceSession(onnx_model.to_bytes(), options,
                                    providers=["CPUExecutionProvider"])
        on_ort = _compare(sess.run(names, feeds), expected, dtype, "ort")
    except Exception as e:
        text = _short(e)
        no_kernel = "NOT_IMPLEMENTED" in text or "data type is not supported" in text
        on_ort = ("ort-no-kernel: " if no_kernel else "error ort: ") + text
    if on_oxs is None and on_ort is None:
        return result("pass", overloads)
    if on_oxs is None and on_ort.startswith("ort-no-kernel"):
        return result(on_ort, overloads)
    return result("fail: " + "; ".join(x for x in (on_oxs, on_ort) if x), overloads)


def run_op(info, dtypes=None):
    """Every case of one OpInfo: a list of Results."""
    out = []
    for dtype in dtypes or dtypes_of(info):
        torch.manual_seed(0)
        try:
            samples = list(info.sample_inputs("cpu", DTYPES[dtype], requires_grad=False))
        except Exception as e:
            out.append(Result(op_name(info), dtype, -1, f"unrepresentable: OpInfo gives no "
                              f"samples ({type(e).__name__}: {_short(e, 100)})"))
            continue
        for i, s in enumerate(samples):
            r = run_case(info, dtype, i, s)
            if r is not None:
                out.append(r)
    return out


# ---------------------------------------------------------------- exclusions


def load_exclusions() -> dict:
    """{(op, dtype, sample): reason} from opinfo_exclusions.txt (dtype and
    sample may be "*")."""
    out = {}
    for n, line in enumerate(EXCLUSIONS.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"(\S+)\s+(\S+)\s+(\S+)\s*:\s*(.+)$", line)
        if not m:
            raise ValueError(f"{EXCLUSIONS}:{n}: write 'op dtype sample : reason'")
        out[(m.group(1), m.group(2), m.group(3))] = m.group(4)
    return out


def exclusion(exclusions, r: Result):
    for key in ((r.op, r.dtype, str(r.sample)), (r.op, r.dtype, "*"), (r.op, "*", str(r.sample)),
                (r.op, "*", "*")):
        if key in exclusions:
            return exclusions[key]
    return None


# ---------------------------------------------------------------- the sweep


def sweep(out_path, names=None, redo=False):
    """Runs every OpInfo (or `names`) in this process, appending one JSON
    line per case to out_path; ops already in the file are not run again
    (a crashed sweep resumes), unless redo: then `names`' lines are dropped
    first and run again (after a change to their functions)."""
    done = set()
    p = pathlib.Path(out_path)
    if redo and names and p.exists():
        keep = [line for line in p.read_text().splitlines()
                if line.strip() and json.loads(line)["op"] not in names]
        p.write_text("".join(line + "\n" for line in keep))
    if p.exists():
        for line in p.read_text().splitlines():
            if line.strip():
                done.add(json.loads(line)["op"])
    with p.open("a") as f:
        for info in op_db():
            name = op_name(info)
            if name in done or (names and name not in names):
                continue
            print(name, file=sys.stderr, flush=True)
            f.write(json.dumps({"op": name, "dtype": "", "sample": -2,
                                "status": "started", "overloads": []}) + "\n")
            f.flush()
            for r in run_op(info):
                f.write(json.dumps(r.to_json()) + "\n")
            f.write(json.dumps({"op": name, "dtype": "", "sample": -3,
                                "status": "ended", "overloads": []}) + "\n")
            f.flush()


def category(status: str) -> str:
    return status.split(":")[0]


def summarize(jsonl, out_json):
    """The sweep's counts: per op (cases by category, crashed or not) and per
    ATen overload (cases whose exported graph used it, and how many passed),
    written as JSON for docs/aten-coverage.md."""
    ops, overloads = {}, {}
    for line in pathlib.Path(jsonl).read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        o = ops.setdefault(r["op"], {"counts": {}, "dtypes": {}, "crashed": False,
                                     "ended": False})
        if r["status"] == "started":
            continue
        if r["status"] == "ended":
            o["ended"] = True
            continue
        c = category(r["status"])
        o["counts"][c] = o["counts"].get(c, 0) + 1
        d = o["dtypes"].setdefault(r["dtype"], {})
        d[c] = d.get(c, 0) + 1
        for ov in r["overloads"]:
            v = overloads.setdefault(ov, {"cases": 0, "pass": 0, "ops": [], "dtypes": []})
            v["cases"] += 1
            if c in ("pass", "ort-no-kernel"):
                v["pass"] += 1
                if r["dtype"] not in v["dtypes"]:
                    v["dtypes"].append(r["dtype"])
            if r["op"] not in v["ops"]:
                v["ops"].append(r["op"])
        if c == "missing":
            for ov in r["status"].split(":", 1)[1].split():
                v = overloads.setdefault(ov, {"cases": 0, "pass": 0, "ops": [], "dtypes": []})
                v["missing"] = v.get("missing", 0) + 1
                if r["op"] not in v["ops"]:
                    v["ops"].append(r["op"])
    for o in ops.values():
        o["crashed"] = not o.pop("ended")
    for v in overloads.values():
        v["ops"].sort()
        v["dtypes"] = [d for d in DTYPES if d in v["dtypes"]]
    total = {}
    for o in ops.values():
        for c, n in o["counts"].items():
            total[c] = total.get(c, 0) + n
    data = {"torch": torch.__version__, "total": total, "ops": ops, "overloads": overloads}
    pathlib.Path(out_json).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


def main(argv):
    if len(argv) >= 2 and argv[0] == "sweep":
        redo = "--redo" in argv
        names = set(a for a in argv[2:] if a != "--redo") or None
        sweep(argv[1], names, redo)
        return 0
    if len(argv) == 3 and argv[0] == "summarize":
        data = summarize(argv[1], argv[2])
        print(f"{argv[2]}: {len(data['ops'])} ops, cases {data['total']}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
