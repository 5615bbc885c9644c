// Internal to the module oxs._core: one bind_* function per file, and the
// conversions between numpy and the core's tensors that they share.
//
// The module is binding and glue only: every decision about ONNX (types,
// ops, models) is the core's; here values change representation and the GIL
// is released around work that does not touch Python.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "oxs/eval/tensor.h"
#include "oxs/ir/model.h"
#include "oxs/ir/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_values(py::module_& m);
void bind_models(py::module_& m);
void bind_script(py::module_& m);
void bind_builder(py::module_& m);
void bind_rewrite(py::module_& m);
void bind_torch(py::module_& m);

// The element type of a numpy dtype; nullopt if ONNX has none.
std::optional<ir::DataType> dtype_of_numpy(const py::dtype& dt);
py::dtype numpy_dtype(ir::DataType dt);  // throws oxs::Error for bfloat16 and others

// An IR tensor over a numpy array's memory (borrowed, not copied, when the
// array is C-contiguous and aligned; copied otherwise). Strings are copied.
std::shared_ptr<ir::Tensor> ir_tensor_from_numpy(py::handle obj);
// A numpy array of an IR tensor (a copy; initializers may be mapped files).
py::array numpy_from_ir(const ir::Tensor& t);

// A runtime value from a Python value: numpy arrays (zero copy where the
// layout allows), Python scalars and nested lists (typed like `expected`'s
// element type when it has one, else int -> int64, float -> float32, bool ->
// bool, str -> string), lists as sequences when `expected` is a sequence,
// None as an empty optional. `what` names the value in errors.
eval::Value value_from_python(py::handle obj, const ir::Type& expected, const std::string& what);
// numpy arrays (read-only views of the evaluator's buffers), lists, None, dicts.
py::object value_to_python(const eval::Value& v);

// The type each attribute parameter of `f` has where its body uses it.
std::map<std::string, ir::AttrType> attribute_types(const ir::Function& f);
// An attribute `name` of type `type` (Undefined: the Python type decides)
// from a Python value; TypeError naming the attribute when it does not fit.
ir::Attr attr_from_python(const std::string& name, ir::AttrType type, py::handle v);

// A model shared between its Python views (graphs, nodes, values keep it alive).
using ModelPtr = std::shared_ptr<ir::Model>;
py::object wrap_model(ModelPtr m);
ModelPtr model_of(py::handle model);  // from an oxs._core.Model

}  // namespace oxs::python
