"""Each ATen library function on oxs's evaluator against torch eager
(torch.ops.aten.<op>.<overload>), row by row of table.CASES."""

from __future__ import annotations

import pytest

import harness
from harness import compare, dispatch, load_manifest
from oxs.torch.aten import _registry
from table import CASES


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_library_matches_torch(case):
    compare(case)


def test_every_overload_has_a_case():
    """Each overload with an ONNX Script function has a row in table.py;
    each with only trace-only functions one in traced_table.py."""
    from traced_table import TRACED
    covered = {c.overload for c in CASES} | {c.overload for c in TRACED}
    missing = [o for o in _registry.overloads() if o not in covered]
    assert not missing, f"registered overloads without a row in table.py: {missing}"


# Functions no one-op row can reach, each with why and where it is tested.
UNREACHED = {
    # Chosen only for a size that varies with dynamic dims (a constant end
    # goes to aten_arange); tests/python/torch/test_export_dynamic_shapes.py.
    "aten_arange_dynamic",
}


def test_every_function_is_chosen_by_a_case():
    load_manifest()
    chosen = {dispatch(c)["function"] for c in CASES} | UNREACHED
    missing = [e.name for e in _registry.entries() if not e.trace_only and e.name not in chosen]
    assert not missing, f"library functions no row of table.py dispatches to: {missing}"


def test_every_variant_is_run_by_a_case():
    load_manifest()
    run = set()
    for c in CASES:
        record = dispatch(c)
        bound = harness.bind(record, c)
        omitted = [p["name"] for p in record["params"]
                   if p["kind"] == "input" and bound.get(p["name"]) is None]
        if omitted:
            run.add(tuple(omitted) if False else harness._library.variant_name(
                record["function"], omitted))
    wanted = {v["function"] for r in harness.MANIFEST for v in r.get("variants", ())}
    # Every function with optional inputs has its "all given" and at least
    # one "omitted" form exercised; the full cross product is not required.
    functions_with_variants = {r["function"] for r in harness.MANIFEST if r.get("variants")}
    exercised = {name.split("__without")[0] for name in run}
    assert functions_with_variants <= exercised, (
        f"functions whose omitted-input variants no row runs: "
        f"{sorted(functions_with_variants - exercised)} (variants: {sorted(wanted)})")


def test_a_row_without_a_matching_function_is_reported():
    bad = harness.Case("aten::div.Tensor", (harness.np.zeros(2, harness.np.bool_),
                                            harness.np.zeros(2, harness.np.bool_)))
    with pytest.raises(AssertionError, match="no library function accepts"):
        dispatch(bad)
