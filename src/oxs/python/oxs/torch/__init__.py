"""oxs.torch: export PyTorch models to ONNX through the ATen library
(oxs.torch.aten), the dispatcher and the interpreter of src/oxs/torch/."""
