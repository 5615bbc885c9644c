// numpy <-> the core's tensors and runtime values.
#include <pybind11/stl.h>

#include <cstring>

#include "oxs/ir/dtype.h"
#include "oxs/ir/error.h"
#include "oxs/python/bind/bind.h"

using namespace pybind11::literals;

namespace oxs::python {

namespace {

py::module_ numpy() {
  return py::module_::import("numpy");
}

// Keeps a Python object alive from C++; the reference is dropped with the GIL
// held, whichever thread releases the last owner.
std::shared_ptr<const void> keep_python(py::object o) {
  auto* held = new py::object(std::move(o));
  return std::shared_ptr<const void>(held, [](const void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<const py::object*>(p);
  });
}

bool is_string_kind(const py::dtype& dt) {
  char k = dt.kind();
  return k == 'U' || k == 'S' || k == 'O';
}

std::vector<int64_t> dims_of(const py::array& a) {
  std::vector<int64_t> dims(a.ndim());
  for (py::ssize_t i = 0; i < a.ndim(); ++i) dims[i] = a.shape(i);
  return dims;
}

}  // namespace

// By kind and size, not by comparing dtype objects: this runs for every
// eager input.
std::optional<ir::DataType> dtype_of_numpy(const py::dtype& dt) {
  using D = ir::DataType;
  if (is_string_kind(dt)) return D::String;
  py::ssize_t n = dt.itemsize();
  switch (dt.kind()) {
    case 'f':
      return n == 2 ? D::Float16 : n == 4 ? D::Float : n == 8 ? D::Double : std::optional<D>();
    case 'i':
      return n == 1   ? D::Int8
             : n == 2 ? D::Int16
             : n == 4 ? D::Int32
             : n == 8 ? D::Int64
                      : std::optional<D>();
    case 'u':
      return n == 1   ? D::Uint8
             : n == 2 ? D::Uint16
             : n == 4 ? D::Uint32
             : n == 8 ? D::Uint64
                      : std::optional<D>();
    case 'b':
      return D::Bool;
    case 'c':
      return n == 8 ? D::Complex64 : n == 16 ? D::Complex128 : std::optional<D>();
    default:
      return std::nullopt;
  }
}

py::dtype numpy_dtype(ir::DataType dt) {
  using D = ir::DataType;
  switch (dt) {
    case D::Float:
      return py::dtype::of<float>();
    case D::Double:
      return py::dtype::of<double>();
    case D::Float16:
      return py::dtype("float16");
    case D::Int8:
      return py::dtype::of<int8_t>();
    case D::Int16:
      return py::dtype::of<int16_t>();
    case D::Int32:
      return py::dtype::of<int32_t>();
    case D::Int64:
      return py::dtype::of<int64_t>();
    case D::Uint8:
      return py::dtype::of<uint8_t>();
    case D::Uint16:
      return py::dtype::of<uint16_t>();
    case D::Uint32:
      return py::dtype::of<uint32_t>();
    case D::Uint64:
      return py::dtype::of<uint64_t>();
    case D::Bool:
      return py::dtype::of<bool>();
    case D::Complex64:
      return py::dtype("complex64");
    case D::Complex128:
      return py::dtype("complex128");
    case D::String:
      return py::dtype("O");
    default:
      break;
  }
  throw Error(ErrorKind::Unsupported,
              "element type " + std::string(ir::dtype_name(dt)) + " has no numpy equivalent");
}

std::shared_ptr<ir::Tensor> ir_tensor_from_numpy(py::handle obj) {
  py::array a = py::array::ensure(obj);
  if (!a)
    throw Error(ErrorKind::Input,
                "expected a numpy array, got " + std::string(py::str(py::type::handle_of(obj))));
  auto dt = dtype_of_numpy(a.dtype());
  if (!dt) {
    throw Error(ErrorKind::Unsupported,
                "numpy dtype " + std::string(py::str(a.dtype())) + " has no ONNX element type");
  }
  auto t = std::make_shared<ir::Tensor>(*dt, dims_of(a));
  if (*dt == ir::DataType::String) {
    py::list flat = a.attr("ravel")().attr("tolist")();
    for (py::handle s : flat) {
      if (py::isinstance<py::bytes>(s)) {
        t->strings.push_back(std::string(py::reinterpret_borrow<py::bytes>(s)));
      } else {
        t->strings.push_back(py::str(s));
      }
    }
    return t;
  }
  // C-contiguous and aligned (numpy's allocations are): borrow the buffer.
  py::array c = py::array::ensure(a, py::array::c_style);
  size_t nbytes = static_cast<size_t>(c.nbytes());
  const auto* data = static_cast<const std::byte*>(c.data());
  t->set_storage(std::make_shared<ir::BorrowedStorage>(data, nbytes, keep_python(c)));
  return t;
}

py::array numpy_from_ir(const ir::Tensor& t) {
  if (t.dtype() == ir::DataType::String) {
    py::list items;
    for (const std::string& s : t.strings) items.append(py::str(s));
    return numpy().attr("array")(items, "dtype"_a = "O").attr("reshape")(py::cast(t.dims()));
  }
  py::array out(numpy_dtype(t.dtype()), t.dims());
  auto bytes = t.bytes();
  if (static_cast<size_t>(out.nbytes()) != bytes.size()) {
    throw Error(ErrorKind::Invalid, "tensor '" + t.name + "' holds " +
                                        std::to_string(bytes.size()) + " bytes, its shape needs " +
                                        std::to_string(out.nbytes()));
  }
  if (!bytes.empty()) std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
  return out;
}

namespace {

// Python scalars and lists: numpy decides the nesting, the expected element
// type (or onnxscript's defaults) the dtype.
py::array array_of_python(py::handle obj, ir::DataType want, const std::string& what) {
  py::object dtype = py::none();
  if (want != ir::DataType::Undefined && want != ir::DataType::String) {
    dtype = numpy_dtype(want);
  }
  py::array a;
  try {
    a = numpy().attr("asarray")(obj, "dtype"_a = dtype);
  } catch (const py::error_already_set& e) {
    throw py::type_error(
        what + ": cannot be a tensor (a ragged or mixed list?): " + std::string(e.what()));
  }
  if (dtype.is_none()) {
    char k = a.dtype().kind();
    if (k == 'f') a = a.attr("astype")("float32");
    if (k == 'i') a = a.attr("astype")("int64");
    if (k == 'O') {
      throw py::type_error(what + ": a ragged or mixed list cannot be a tensor");
    }
  }
  return a;
}

}  // namespace

eval::Value value_from_python(py::handle obj, const ir::Type& expected, const std::string& what) {
  using K = ir::Type::Kind;
  if (obj.is_none()) {
    if (expected.kind() == K::Optional)
      return eval::Value::optional(std::nullopt, *expected.element());
    return eval::Value();
  }
  if (expected.kind() == K::Optional) {
    return eval::Value::optional(value_from_python(obj, *expected.element(), what),
                                 *expected.element());
  }
  if (expected.kind() == K::Sequence) {
    if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj)) {
      throw Error(ErrorKind::Input, what + " is a sequence: pass a list of arrays");
    }
    std::vector<eval::Value> items;
    size_t i = 0;
    for (py::handle item : obj) {
      items.push_back(
          value_from_python(item, *expected.element(), what + "[" + std::to_string(i++) + "]"));
    }
    return eval::Value::sequence(std::move(items), *expected.element());
  }
  if (expected.kind() == K::Map || py::isinstance<py::dict>(obj)) {
    if (!py::isinstance<py::dict>(obj))
      throw Error(ErrorKind::Input, what + " is a map: pass a dict");
    py::dict d = py::reinterpret_borrow<py::dict>(obj);
    py::list keys, values;
    for (auto kv : d) {
      keys.append(kv.first);
      values.append(kv.second);
    }
    ir::DataType kt = expected.kind() == K::Map ? expected.elem_type() : ir::DataType::Undefined;
    ir::DataType vt = expected.kind() == K::Map && expected.element()->kind() == K::Tensor
                          ? expected.element()->elem_type()
                          : ir::DataType::Undefined;
    auto kten = eval::Tensor::from_ir(*ir_tensor_from_numpy(array_of_python(keys, kt, what)));
    auto vten = eval::Tensor::from_ir(*ir_tensor_from_numpy(array_of_python(values, vt, what)));
    return eval::Value::map(std::move(kten), std::move(vten));
  }
  py::array a;
  if (py::isinstance<py::array>(obj)) {
    a = py::reinterpret_borrow<py::array>(obj);
  } else {
    ir::DataType want =
        expected.kind() == K::Tensor ? expected.elem_type() : ir::DataType::Undefined;
    a = array_of_python(obj, want, what);
  }
  return eval::Value(
      eval::Tensor::from_ir(std::shared_ptr<const ir::Tensor>(ir_tensor_from_numpy(a))));
}

py::object value_to_python(const eval::Value& v) {
  switch (v.kind()) {
    case eval::Value::Kind::None:
      return py::none();
    case eval::Value::Kind::Optional:
      return v.has_element() ? value_to_python(v.element()) : py::none();
    case eval::Value::Kind::Sequence: {
      py::list out;
      for (const eval::Value& item : v.items()) out.append(value_to_python(item));
      return out;
    }
    case eval::Value::Kind::Map: {
      py::dict out;
      py::object keys = value_to_python(eval::Value(v.map_keys()));
      py::object values = value_to_python(eval::Value(v.map_values()));
      py::list kl = keys.attr("tolist")();
      for (size_t i = 0; i < py::len(kl); ++i) out[kl[i]] = values[py::int_(i)];
      return out;
    }
    case eval::Value::Kind::Tensor:
      break;
  }
  const eval::Tensor& t = v.tensor();
  if (t.dtype() == ir::DataType::String) {
    py::list items;
    for (const std::string& s : t.strings()) items.append(py::str(s));
    return numpy().attr("array")(items, "dtype"_a = "O").attr("reshape")(py::cast(t.dims()));
  }
  // A read-only view of the evaluator's buffer: the array owns a copy of the
  // Tensor handle, which shares (and keeps alive) the bytes.
  auto* held = new eval::Tensor(t);
  py::capsule owner(held, [](void* p) { delete static_cast<eval::Tensor*>(p); });
  py::array out(numpy_dtype(t.dtype()), t.dims(), {}, t.raw(), owner);
  py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return out;
}

void bind_values(py::module_& m) {
  m.def("_roundtrip_value", [](py::handle obj) {
    // For tests: Python -> runtime value -> Python without running anything.
    return value_to_python(value_from_python(obj, ir::Type(), "value"));
  });
}

}  // namespace oxs::python
