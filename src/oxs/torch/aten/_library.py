"""The ATen library as one ONNX model, and its manifest (the format is
documented in _registry.py).

    python3 -m oxs.torch.aten._library OUT.onnx

imports every library module (a function that does not compile fails here
with the compiler's message), compiles the variants of functions with
optional inputs, and writes one ModelProto whose functions are the library's
and whose metadata_props["oxs.aten.manifest"] is the manifest as JSON."""

from __future__ import annotations

import collections.abc
import importlib
import inspect
import itertools
import json
import os
import sys
import typing

from oxs import _core
from oxs._script import CompileError, _compile, _external
from oxs._types import is_tensor_type
from oxs.onnx_opset import opset18

from . import _registry

MANIFEST_KEY = "oxs.aten.manifest"
_ATTR_TYPES = {int: "INT", float: "FLOAT", str: "STRING", bool: "BOOL"}
_LIST_TYPES = {int: "INTS", float: "FLOATS", str: "STRINGS", bool: "INTS"}
# Variants are compiled for at most this many optional inputs (2^k - 1 each).
_MAX_OPTIONAL = 4


def import_library() -> list:
    """Imports the package, which imports (and so compiles and registers)
    every library module; returns their names."""
    return importlib.import_module(__package__).MODULES


# ---------------------------------------------------------------- types


def _element_types(hint) -> tuple:
    """(element type names, TypeVar name or None) of a tensor annotation."""
    if isinstance(hint, typing.TypeVar):
        members = hint.__constraints__ or typing.get_args(hint.__bound__) or (hint.__bound__,)
        names = []
        for m in members:
            names.extend(_element_types(m)[0])
        return names, hint.__name__
    if typing.get_origin(hint) is typing.Union:
        names = []
        for m in typing.get_args(hint):
            names.extend(_element_types(m)[0])
        return names, None
    if is_tensor_type(hint):
        base = getattr(hint, "_base", hint)
        return [base.__name__], None
    raise TypeError(f"{hint!r} is not a tensor type or a TypeVar of tensor types")


def _strip_optional(hint) -> tuple:
    if typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) < len(typing.get_args(hint)):
            return (args[0] if len(args) == 1 else typing.Union[tuple(args)]), True
    return hint, False


def _is_sequence(hint) -> bool:
    return typing.get_origin(hint) in (collections.abc.Sequence, list, tuple)


def _json_default(value):
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return repr(value)  # "inf", "-inf", "nan": JSON has no such numbers
    return value


def describe(entry) -> dict:
    """The manifest record of one registered entry."""
    fn = entry.function
    record = {"function": entry.name, "domain": _registry.DOMAIN, "overloads": list(entry.overloads),
              "trace_only": entry.trace_only, "dtype_role": entry.dtype_role}
    if entry.trace_only:
        record["module"] = fn.__module__
        return record
    sig = inspect.signature(fn.function, eval_str=True)
    compiled = fn._sig
    if compiled["domain"] != _registry.DOMAIN:
        raise CompileError(f"{entry.name}: its domain is '{compiled['domain']}', not the "
                           f"library's '{_registry.DOMAIN}': decorate it with "
                           "@script(aten_opset, default_opset=op)", [])
    if (entry.dtype_role is None) == ("dtype" in compiled["attributes"]):
        raise CompileError(f"{entry.name}: a function with a ScalarType 'dtype' attribute says "
                           "what it means (aten_op(..., dtype='result' or 'cast_input')), and "
                           "only such a function", [])
    params = []
    for p in sig.parameters.values():
        hint, optional = _strip_optional(p.annotation)
        has_default = p.default is not inspect.Parameter.empty
        d = {"name": p.name}
        if p.name in compiled["inputs"]:
            d["kind"] = "input"
            d["sequence"] = _is_sequence(hint)
            types, var = _element_types(typing.get_args(hint)[0] if d["sequence"] else hint)
            d["types"], d["typevar"] = types, var
            d["optional"] = optional
            d["default"] = None
        elif p.name in compiled["attributes"]:
            d["kind"] = "attribute"
            if _is_sequence(hint):
                d["type"] = _LIST_TYPES[typing.get_args(hint)[0]]
            else:
                d["type"] = _ATTR_TYPES[hint]
            d["optional"] = has_default
            d["default"] = _json_default(p.default) if has_default else None
        else:
            raise CompileError(f"{entry.name}: parameter '{p.name}' is neither an input nor an "
                               "attribute of the compiled function", [])
        params.append(d)
    ret = sig.return_annotation
    names = compiled["outputs"]
    if ret is inspect.Signature.empty:
        raise CompileError(f"{entry.name}: give the return annotation (a TypeVar, a tensor type, "
                           "or Tuple[...] of them): the manifest lists the output types", [])
    hints = list(typing.get_args(ret)) if typing.get_origin(ret) is tuple else [ret]
    if len(hints) != len(names):
        raise CompileError(f"{entry.name}: the return annotation has {len(hints)} types for "
                           f"{len(names)} outputs", [])
    outputs = []
    for name, h in zip(names, hints):
        types, var = _element_types(h)
        outputs.append({"name": name, "types": types, "typevar": var})
    record["params"] = params
    record["outputs"] = outputs
    record["variants"] = [{"omitted": list(o), "function": variant_name(entry.name, o)}
                          for o in omitted_sets(entry)]
    return record


def manifest() -> list:
    """Every entry's record, in registration order (function names unique:
    the manifest and the tests find records by them)."""
    records = [describe(e) for e in _registry.entries()]
    seen = {}
    for r in records:
        if r["function"] in seen:
            raise CompileError(f"two library functions are named '{r['function']}' (for "
                               f"{seen[r['function']]} and {r['overloads']}): rename one "
                               "(trace-only functions are named traced_<op>)", [])
        seen[r["function"]] = r["overloads"]
    return records


# ---------------------------------------------------------------- variants


def omitted_sets(entry) -> list:
    """The non-empty sets of optional inputs a call may leave out, smallest
    first (each is a variant function of the library)."""
    if entry.trace_only:
        return []
    sig = inspect.signature(entry.function.function, eval_str=True)
    optional = [p.name for p in sig.parameters.values()
                if p.name in entry.function._sig["inputs"] and _strip_optional(p.annotation)[1]]
    if len(optional) > _MAX_OPTIONAL:
        raise CompileError(f"{entry.name}: {len(optional)} optional inputs; the library compiles "
                           f"variants for at most {_MAX_OPTIONAL}", [])
    out = []
    for k in range(1, len(optional) + 1):
        out.extend(itertools.combinations(optional, k))
    return out


def variant_name(function: str, omitted) -> str:
    """The compiler's name for the function compiled without these inputs."""
    return function + "__without" + "".join("_" + o for o in omitted)


class _SourceBlock:
    """A generated compilation block (the callers that make the compiler
    emit a function's variants)."""

    def __init__(self, filename, text, names):
        self.filename, self.text, self.names = filename, text, names

    def as_tuple(self):
        return (self.filename, self.text, 1, self.text.count("\n") + 1, self.names)


def _variant_unit(entry):
    """A compiled unit holding entry's variants (None when it has none)."""
    sets = omitted_sets(entry)
    if not sets:
        return None
    fn = entry.function
    sig = inspect.signature(fn.function)
    raw = fn.function.__annotations__
    n_out = len(fn._sig["outputs"])
    lines = []
    for k, omitted in enumerate(sets):
        params, args = [], []
        for p in sig.parameters.values():
            if p.name in omitted:
                continue
            if p.name in fn._sig["inputs"]:
                params.append(p.name)
                args.append(f"{p.name}={p.name}")
            else:
                params.append(f"{p.name}: {raw[p.name]}")
                args.append(f"{p.name}={p.name}")
        outs = ", ".join(f"o{i}" for i in range(n_out))
        lines += ["@script(aten_opset, default_opset=op)",
                  f"def _variant_{k}_of_{fn.name}({', '.join(params)}):",
                  f"    {outs} = {fn.name}({', '.join(args)})",
                  f"    return {outs}", ""]
    text = "\n".join(lines)
    scope = {"script": _script_decorator(), "op": opset18, "aten_opset": _registry.aten_opset,
             fn.name: fn, "Sequence": typing.Sequence}
    deps = []
    names = {k: _external(v, deps) for k, v in scope.items()}
    blocks = fn._blocks() + [_SourceBlock(f"<variants of {fn.name}>", text, names)]
    return _compile(blocks, "", True, None, ("", opset18.version))


def _script_decorator():
    from oxs import script
    return script


# ---------------------------------------------------------------- the model


def build_model():
    """The library as an onnx.ModelProto (functions, opset imports, manifest)."""
    import onnx
    import onnx.helper

    records = manifest()
    functions, origin = {}, {}
    opsets = {}
    ir_version = 8
    for entry in _registry.entries():
        if entry.trace_only:
            continue
        units = [("", entry.function.to_library())]
        v = _variant_unit(entry)
        if v is not None:
            units.append(("variants", v.model))
        for kind, model in units:
            proto = onnx.load_from_string(model.to_bytes())
            ir_version = max(ir_version, proto.ir_version)
            for f in proto.functions:
                if f.name.startswith("_variant_"):
                    continue
                key = (f.domain, f.name)
                if key in functions:
                    if functions[key].SerializeToString() != f.SerializeToString():
                        raise CompileError(
                            f"two different library functions are named '{f.name}' (used by "
                            f"{origin[key]} and by {entry.name}): rename one", [])
                    continue
                functions[key] = f
                origin[key] = entry.name
                for o in f.opset_import:
                    if opsets.setdefault(o.domain, o.version) != o.version:
                        raise CompileError(
                            f"{f.name} imports {o.domain or 'ai.onnx'} opset {o.version}, "
                            f"other library functions {opsets[o.domain]}: use one version", [])
    for r in records:
        for var in r.get("variants", ()):
            if (_registry.DOMAIN, var["function"]) not in functions:
                raise CompileError(f"{r['function']}: variant {var['function']} was not "
                                   "compiled", [])
    opsets.setdefault(_registry.DOMAIN, _registry.aten_opset.version)
    graph = onnx.helper.make_graph([], "aten_library", [], [])
    model = onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid(d, v) for d, v in sorted(opsets.items())],
        functions=list(functions.values()), producer_name="oxs.torch.aten")
    model.ir_version = ir_version
    onnx.helper.set_model_props(model, {MANIFEST_KEY: json.dumps(records, sort_keys=True)})
    return model


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python3 -m oxs.torch.aten._library OUT.onnx", file=sys.stderr)
        return 2
    try:
        import_library()
        proto = build_model()
    except CompileError as e:
        print(f"error: the ATen library does not compile:\n{e}", file=sys.stderr)
        return 1
    import oxs
    out = argv[0]
    oxs.save(oxs.from_onnx(proto), out)
    n = len(proto.functions)
    print(f"{out}: {n} functions, {len(_registry.overloads())} ATen overloads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
