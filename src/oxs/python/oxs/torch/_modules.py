"""modules_as_functions: which module calls become model-local functions.

A node's module path ("layer1.0.conv1 (Conv2d)", from the tracer) names the
innermost module running; its chosen ancestors are found among the dotted
prefixes of that path. Each node gets the list of chosen module calls it is
in, outermost first, as "path (Class)"; the interpreter turns each run of
nodes sharing one into a call of a function of the domain 'oxs.modules'."""

from __future__ import annotations

import torch

from ._trace import ExportError

_HOW = ("give a set of nn.Module classes or class names, e.g. "
        "{torchvision.models.resnet.BasicBlock} or {'BasicBlock'}")


def parse(option):
    """(keep library functions, chosen entries or None) from the option."""
    if option is None or option is False:
        return False, None
    if option is True:
        return True, None
    if isinstance(option, (str, type)) or not isinstance(option, (set, frozenset, list, tuple)):
        raise ExportError(f"export: modules_as_functions={option!r} is not True/False nor a "
                          f"collection; {_HOW}")
    entries = []
    for e in option:
        if isinstance(e, str) and e:
            entries.append(e)
        elif isinstance(e, type) and issubclass(e, torch.nn.Module):
            entries.append(e)
        else:
            raise ExportError(f"export: modules_as_functions has {e!r}, which is not an "
                              f"nn.Module class nor a class name; {_HOW}")
    return False, (entries or None)  # module functions; library functions inlined


def _matches(mod, entry):
    if isinstance(entry, str):
        cls = type(mod)
        return entry in (cls.__name__, f"{cls.__module__}.{cls.__qualname__}")
    return type(mod) is entry


def chosen_paths(model, entries):
    """{module path: 'path (Class)'} of the modules whose class is chosen;
    an entry that matches no module of the model is an error."""
    chosen, used = {}, set()
    for name, mod in model.named_modules():
        for i, e in enumerate(entries):
            if _matches(mod, e):
                chosen[name] = f"{name or '<root>'} ({type(mod).__name__})"
                used.add(i)
    missing = [e for i, e in enumerate(entries) if i not in used]
    if missing:
        names = ", ".join(e if isinstance(e, str) else e.__qualname__ for e in missing)
        raise ExportError(f"export: modules_as_functions names {names}, of which the model has no "
                          f"module; the model's classes are "
                          f"{sorted({type(m).__name__ for m in model.modules()})}")
    return chosen


def add_scopes(nodes, chosen):
    """Appends to each node tuple the chosen module calls it is in."""
    cache = {}
    out = []
    for n in nodes:
        module = n[2]
        scopes = cache.get(module)
        if scopes is None:
            path = module.rsplit(" (", 1)[0] if module else "<root>"
            path = "" if path == "<root>" else path
            parts = path.split(".") if path else []
            prefixes = [""] + [".".join(parts[:k]) for k in range(1, len(parts) + 1)]
            scopes = cache[module] = [chosen[p] for p in prefixes if p in chosen]
        out.append(tuple(n[:6]) + (scopes,))
    return out
