"""Models: load, save, check, infer shapes, run, decompile, compare, and the
bridge to the `onnx` package. oxs.Model is the core's model with read
access to graph, nodes, values, initializers (as numpy), functions and
opset imports."""

from __future__ import annotations

import os

from . import _core

Model = _core.Model


class CheckError(Exception):
    """The model is invalid; `problems` lists (stage, message) pairs."""

    def __init__(self, problems):
        self.problems = problems
        text = "\n".join(f"{stage}: {msg}" for stage, msg in problems)
        super().__init__(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found:\n{text}")


def _model(m) -> Model:
    if isinstance(m, Model):
        return m
    if isinstance(m, (str, os.PathLike)):
        return load(m)
    if type(m).__name__ == "ModelProto":
        return from_onnx(m)
    raise TypeError(f"expected an oxs.Model, an onnx.ModelProto or a path, not {type(m).__name__}")


def load(path) -> Model:
    """Reads a .onnx file; external data is mapped lazily, never copied."""
    return _core.load(os.fspath(path))


def save(model, path, external_data=None) -> None:
    """Writes atomically. external_data: None keeps tensors where they were,
    True moves tensors of 1 KiB and more to `<path>.data`, an int is that
    threshold in bytes, False brings every tensor inline."""
    _core.save(_model(model), os.fspath(path), external_data)


def check(model, full: bool = True) -> None:
    """Raises CheckError unless the model passes oxs's verifier, the op
    schemas, libonnx's checker and (full=True) strict shape inference."""
    issues = _core.check(_model(model), full)
    problems = [(stage, msg) for stage, msg, limitation in issues if not limitation]
    if problems:
        raise CheckError(problems)


def infer_shapes(model) -> Model:
    """A copy of the model with inferred types and shapes on every value."""
    return _core.infer_shapes(_model(model))


def run(model, feeds: dict, timeout=None, memory_limit_mb=None) -> dict:
    """Runs the main graph on the oxs evaluator: {input name: array, list
    (sequence), None (empty optional), dict (map)} -> {output name: value}.

    Limits for untrusted models, as `oxs run --max-seconds` and
    `--memory-limit-mb`: timeout (seconds of wall time; default none) stops
    the run with an error; memory_limit_mb bounds everything the run holds
    at once (tensors, strings, sequences, loop outputs; default three
    quarters of physical memory)."""
    if not isinstance(feeds, dict):
        raise TypeError("run(model, feeds): feeds is a dict {input name: value}")
    max_seconds = 0.0
    if timeout is not None:
        max_seconds = float(timeout)
        if not max_seconds > 0:
            raise ValueError(f"run: timeout must be a positive number of seconds, not {timeout!r}")
    max_live_bytes = 0
    if memory_limit_mb is not None:
        if isinstance(memory_limit_mb, bool) or not isinstance(memory_limit_mb, int) \
                or not 0 < memory_limit_mb <= (1 << 43):
            raise ValueError("run: memory_limit_mb must be an int between 1 and 2**43, "
                             f"not {memory_limit_mb!r}")
        max_live_bytes = memory_limit_mb << 20
    return _core.run(_model(model), feeds, max_seconds, max_live_bytes)


def decompile(model) -> str:
    """ONNX Script source that compiles back to an equivalent model."""
    return _core.decompile(_model(model))


class Diff:
    """The result of diff(): truthy when the models differ; str() explains."""

    def __init__(self, equivalent: bool, text: str):
        self.equivalent = equivalent
        self.text = text

    def __bool__(self):
        return not self.equivalent

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<oxs.Diff {'equivalent' if self.equivalent else 'different'}>"


def diff(a, b, rtol: float = 0.0, atol: float = 0.0) -> Diff:
    """Structural comparison ignoring names and independent node order."""
    eq, text = _core.diff(_model(a), _model(b), rtol, atol)
    return Diff(eq, text)


def from_onnx(proto) -> Model:
    """An oxs.Model from an onnx.ModelProto (or its serialized bytes)."""
    data = proto if isinstance(proto, (bytes, bytearray)) else proto.SerializeToString()
    return _core.load_from_bytes(bytes(data), ".")


def _to_onnx(self):
    """This model as an onnx.ModelProto (needs the onnx package)."""
    import onnx

    return onnx.load_from_string(self.to_bytes())


Model.to_onnx = _to_onnx
