"""A representative subset of the torchvision sweep (sweep_torchvision.py, `make
sweep-torchvision`), run as tests: the same export with a dynamic batch, full
onnx check and comparison with torch eager on oxs and ONNX Runtime at batch 1
and 3."""

import pytest

from sweep_torchvision import run_one


@pytest.mark.parametrize("name", ["squeezenet1_1", "mnasnet0_5", "regnet_x_400mf"])
def test_torchvision_model_exports_and_matches_torch(name):
    row = run_one(name)
    print(row)
    assert row["nodes"] > 20, row
    assert row["ok"], row
