"""Writes from Python are atomic and symlink-safe as the CLI's are (every
file goes through the core's save: temporary file, rename; data files
through directory descriptors that never follow a link), and oxs.run takes
the limits of `oxs run` for untrusted models (timeout=, memory_limit_mb=)."""

import os

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh
import pytest

import oxs
from conftest import HERE

MLP = HERE.parent.parent / "examples" / "models" / "mlp.onnx"


def entries(path):
    return sorted(os.listdir(path))


def test_save_replaces_a_symlink_planted_at_the_external_data_path(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / "mlp.onnx.data").symlink_to(victim)
    m = oxs.load(MLP)
    oxs.save(m, out / "mlp.onnx", external_data=64)
    assert victim.read_text() == "precious"
    data = out / "mlp.onnx.data"
    assert not data.is_symlink() and data.stat().st_size > 0
    back = oxs.load(out / "mlp.onnx")
    for k, v in m.graph.initializers.items():
        np.testing.assert_array_equal(back.graph.initializers[k], v)


def test_save_replaces_a_symlink_planted_at_the_model_path(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "mlp.onnx").symlink_to(victim)
    oxs.save(oxs.load(MLP), tmp_path / "mlp.onnx")
    assert victim.read_text() == "precious"
    assert not (tmp_path / "mlp.onnx").is_symlink()
    assert not oxs.diff(oxs.load(tmp_path / "mlp.onnx"), oxs.load(MLP))


def model_with_data_in(tmp_path, location):
    """A model (y = x + w) whose weight w lives in external data at
    `location`, written by the onnx package; loaded by oxs."""
    src = tmp_path / "src"
    (src / location).parent.mkdir(parents=True)
    w = onh.from_array(np.arange(64, dtype=np.float32), "w")
    graph = oh.make_graph(
        [oh.make_node("Add", ["x", "w"], ["y"])], "g",
        [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [64])],
        [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [64])], [w])
    proto = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    onnx.save_model(proto, str(src / "m.onnx"), save_as_external_data=True,
                    location=location, size_threshold=0)
    return oxs.load(src / "m.onnx")


def test_save_refuses_a_symlinked_directory_in_a_data_location(tmp_path):
    m = model_with_data_in(tmp_path, "weights/w.bin")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "weights").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(oxs.Error, match="weights: is a symbolic link; refusing to write through it"):
        oxs.save(m, out / "m.onnx")
    assert entries(elsewhere) == []
    # No model file and no temporary file were left behind.
    assert entries(out) == ["weights"]


def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path):
    # Two tensors whose external data overlap: the save fails after the
    # model was written to its temporary file.
    src = tmp_path / "src"
    src.mkdir()
    (src / "w.bin").write_bytes(np.arange(8, dtype=np.float32).tobytes())
    inits = []
    for name, offset in (("a", 0), ("b", 8)):
        t = onnx.TensorProto(name=name, data_type=onnx.TensorProto.FLOAT, dims=[4])
        t.data_location = onnx.TensorProto.EXTERNAL
        for k, v in (("location", "w.bin"), ("offset", str(offset)), ("length", "16")):
            t.external_data.add(key=k, value=v)
        inits.append(t)
    graph = oh.make_graph(
        [oh.make_node("Add", ["a", "b"], ["y"])], "g", [],
        [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4])], inits)
    proto = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])
    (src / "m.onnx").write_bytes(proto.SerializeToString())
    m = oxs.load(src / "m.onnx")
    out = tmp_path / "out"
    out.mkdir()
    (out / "m.onnx").write_bytes(b"the old model")
    with pytest.raises(ValueError, match="overlap in external data file 'w.bin'"):
        oxs.save(m, out / "m.onnx")
    assert (out / "m.onnx").read_bytes() == b"the old model"
    assert entries(out) == ["m.onnx"]


def endless_loop(collect):
    """Loop(M = 2^62, cond = true) over a carried float[2]; with `collect`
    the body also returns a scan output every trip."""
    body_outputs = [oh.make_tensor_value_info("c_out", onnx.TensorProto.BOOL, []),
                    oh.make_tensor_value_info("v_out", onnx.TensorProto.FLOAT, [2])]
    nodes = [oh.make_node("Identity", ["c"], ["c_out"]), oh.make_node("Neg", ["v"], ["v_out"])]
    if collect:
        nodes.append(oh.make_node("Abs", ["v"], ["part"]))
        body_outputs.append(oh.make_tensor_value_info("part", onnx.TensorProto.FLOAT, [2]))
    body = oh.make_graph(
        nodes, "body",
        [oh.make_tensor_value_info("i", onnx.TensorProto.INT64, []),
         oh.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
         oh.make_tensor_value_info("v", onnx.TensorProto.FLOAT, [2])], body_outputs)
    outs = ["y", "all"] if collect else ["y"]
    graph = oh.make_graph(
        [oh.make_node("Loop", ["M", "cond", "x"], outs, name="bomb", body=body)], "g",
        [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
        [oh.make_tensor_value_info(o, onnx.TensorProto.FLOAT, None) for o in outs],
        [onh.from_array(np.array(1 << 62, np.int64), "M"), onh.from_array(np.array(True), "cond")])
    return oxs.from_onnx(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)]))


def test_run_timeout_stops_an_endless_loop():
    with pytest.raises(oxs.Error, match="time limit of 0.3 s"):
        oxs.run(endless_loop(False), {"x": np.ones(2, np.float32)}, timeout=0.3)
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        oxs.run(endless_loop(False), {"x": np.ones(2, np.float32)}, timeout=0)


def test_run_memory_limit_stops_a_loop_that_collects_a_scan_output_every_trip():
    # Whichever charge of a trip passes the limit first is named, with its node.
    with pytest.raises(oxs.Error, match=r"node '.*would take the memory held by this run to "
                                        r"[0-9]+ bytes, over the limit of 16777216 bytes"):
        oxs.run(endless_loop(True), {"x": np.ones(2, np.float32)}, memory_limit_mb=16, timeout=120)
    with pytest.raises(ValueError, match="memory_limit_mb must be an int"):
        oxs.run(endless_loop(True), {"x": np.ones(2, np.float32)}, memory_limit_mb=0)


def test_run_within_its_limits_returns_the_outputs():
    out = oxs.run(oxs.load(MLP), {"X": np.ones((2, 4), np.float32)}, timeout=60, memory_limit_mb=64)
    assert out["Y"].shape == (2, 3)
