"""Opset objects: `opset15` (ai.onnx 15), `Opset("com.example", 1)`."""

from __future__ import annotations


class Opset:
    """An operator set: a domain ("" for ai.onnx) and a version.

    In a script, `op.Relu(x)` names the op Relu of this opset; the compiler
    checks it against the schema of that version."""

    def __init__(self, domain: str, version: int):
        if not isinstance(domain, str):
            raise TypeError(f"Opset: the domain is a str, not {domain!r}")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise TypeError(f"Opset: the version is a positive int, not {version!r}")
        self.domain = domain
        self.version = version

    def __repr__(self):
        if self.domain in ("", "ai.onnx"):
            return f"opset{self.version}"
        return f"Opset({self.domain!r}, {self.version})"

    def __eq__(self, other):
        return isinstance(other, Opset) and (self.domain, self.version) == (other.domain, other.version)

    def __hash__(self):
        return hash((self.domain, self.version))

    def __getattr__(self, name):
        # `op.Relu(x)` outside a script function runs the op eagerly.
        if name.startswith("_") or not name[:1].isupper():
            raise AttributeError(name)

        def call(*args, **attrs):
            from ._eager_op import run_op

            return run_op(self, name, args, attrs)

        call.__name__ = name
        call.__qualname__ = f"{self!r}.{name}"
        return call
