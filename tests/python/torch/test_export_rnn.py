"""nn.LSTM and nn.GRU (two layers, batch_first) in eval mode: on meta tensors
torch runs the recurrences step by step (linear, sigmoid, tanh, unbind,
unsafe_split, stack), which the exporter unrolls over the traced sequence
length; compared with torch eager with a dynamic batch at two sizes, and on
ONNX Runtime. Their zero initial states are created with the batch size,
which the export reads from the input's dynamic dim."""

import pytest
import torch

import oxs
import oxs.torch
from torch_helpers import assert_close, eager, run_ort, run_oxs


class Recurrent(torch.nn.Module):
    def __init__(self, cls):
        super().__init__()
        self.rnn = cls(8, 16, num_layers=2, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU], ids=["LSTM", "GRU"])
def test_recurrent_layers_match_torch_with_a_dynamic_batch(cls):
    torch.manual_seed(0)
    m = Recurrent(cls).eval()
    model = oxs.torch.export(m, (torch.randn(2, 5, 8),), dynamic_shapes=({0: "N"},), opset=17)
    ops = {n.op_type for n in model.graph.nodes}
    assert "Sigmoid" in ops and "Tanh" in ops, ops
    for n in (1, 3):
        x = torch.randn(n, 5, 8)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"{cls.__name__} batch {n}")
    x = torch.randn(3, 5, 8)
    assert_close(run_ort(model.to_bytes(), {"x": x.numpy()}), eager(m, x), 1e-5,
                 f"{cls.__name__} on onnxruntime")


@pytest.mark.parametrize("cls", [torch.nn.LSTM, torch.nn.GRU], ids=["LSTM", "GRU"])
def test_fake_tracing_keeps_each_output_shape_before_a_later_in_place_transpose(cls):
    # batch_first stacks the steps [seq, batch, hidden] and then transposes
    # that tensor in place; make_fx's recorded value is the same tensor, so
    # without a snapshot the stack would claim [batch, seq, hidden].
    torch.manual_seed(0)
    m = Recurrent(cls).eval()
    model = oxs.torch.export(m, (torch.randn(2, 5, 8),), tracing="fake", opset=17)
    x = torch.randn(2, 5, 8)
    assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"{cls.__name__} fake")


def test_a_recurrent_layer_keeps_its_weights_after_export():
    # The trace swaps meta tensors into the module's weight list; the real
    # weights are back afterwards.
    torch.manual_seed(0)
    m = Recurrent(torch.nn.LSTM).eval()
    x = torch.randn(2, 5, 8)
    before = eager(m, x)
    oxs.torch.export(m, (x,))
    assert all(w.device.type == "cpu" for w in m.rnn._flat_weights)
    assert_close(eager(m, x), before, 0.0, "eager after export")


class ZerosLikeBatch(torch.nn.Module):
    def forward(self, x):
        return x.sum(1) + torch.zeros(x.shape[0], x.shape[2])  # zeros sized by the batch


def test_a_created_tensor_sized_by_a_dynamic_dim_reads_it_from_the_input():
    m = ZerosLikeBatch()
    model = oxs.torch.export(m, (torch.randn(2, 3, 4),), dynamic_shapes=({0: "N"},))
    for n in (1, 5):
        x = torch.randn(n, 3, 4)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"batch {n}")


def test_two_dynamic_dims_with_one_example_size_stay_apart():
    # Symbolic sizes (torch's SymInts) tell N from S even when the example
    # gives both the same size: the zeros take N, not S.
    m = ZerosLikeBatch()
    model = oxs.torch.export(m, (torch.randn(2, 2, 4),), dynamic_shapes=({0: "N", 1: "S"},))
    for n, s in ((1, 5), (4, 3)):
        x = torch.randn(n, s, 4)
        assert_close(run_oxs(model, {"x": x}), eager(m, x), 1e-5, f"N={n} S={s}")
