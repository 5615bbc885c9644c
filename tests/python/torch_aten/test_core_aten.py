"""Core ATen coverage: every overload torch tags core has a function, or is
listed in core_missing.txt with the reason; a new torch release that adds
core ops fails here, naming them."""

from __future__ import annotations

import core_ops


def test_torch_states_a_core_opset():
    ops = core_ops.core_overloads()
    assert len(ops) > 150 and "aten::convolution.default" in ops


def test_every_core_op_is_covered_or_listed():
    ops = core_ops.core_overloads()
    cov = core_ops.coverage(ops)
    listed = core_ops.known_missing()
    uncovered = [o for o in ops if not cov[o]]
    new = [o for o in uncovered if o not in listed]
    assert not new, ("core ATen overloads with no function (add one, or list it with the reason "
                     f"in {core_ops.MISSING.name}): {new}")
    stale = [o for o in listed if o in cov and cov[o]]
    assert not stale, f"covered now, remove from {core_ops.MISSING.name}: {stale}"
    gone = [o for o in listed if o not in cov]
    assert not gone, f"not core ATen overloads in this torch: {gone}"
    print(f"\ncore ATen: {len(ops) - len(uncovered)} of {len(ops)} overloads covered; "
          f"missing: {uncovered}")
