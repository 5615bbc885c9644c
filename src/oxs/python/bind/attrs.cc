// Attribute values from Python, typed by what the receiver expects.
#include <pybind11/stl.h>

#include "oxs/python/bind/bind.h"

namespace oxs::python {

// The type an attribute parameter has where the body uses it (`value_int=@dim`).
std::map<std::string, ir::AttrType> attribute_types(const ir::Function& f) {
  std::map<std::string, ir::AttrType> out;
  f.body->for_each_node_recursive([&](ir::Node* n) {
    for (const ir::Attr& a : n->attrs()) {
      if (a.is_reference()) out.emplace(a.ref_attr_name, a.type);
    }
  });
  return out;
}

ir::Attr attr_from_python(const std::string& name, ir::AttrType type, py::handle v) {
  using T = ir::AttrType;
  auto fail = [&](const char* want) -> ir::Attr {
    throw py::type_error("attribute '" + name + "' takes " + want + ", got " +
                         std::string(py::repr(v)));
  };
  bool is_bool = py::isinstance<py::bool_>(v);
  bool is_int = py::isinstance<py::int_>(v) && !is_bool;
  bool is_float = py::isinstance<py::float_>(v);
  switch (type) {
    case T::Int:
      if (is_int || is_bool) return ir::Attr::of_int(name, v.cast<int64_t>());
      return fail("an int");
    case T::Float:
      if (is_int || is_float) return ir::Attr::of_float(name, v.cast<float>());
      return fail("a float");
    case T::String:
      if (py::isinstance<py::str>(v)) return ir::Attr::of_string(name, v.cast<std::string>());
      return fail("a str");
    case T::Ints:
      try {
        return ir::Attr::of_ints(name, v.cast<std::vector<int64_t>>());
      } catch (const py::cast_error&) {
        return fail("a list of ints");
      }
    case T::Floats:
      try {
        return ir::Attr::of_floats(name, v.cast<std::vector<float>>());
      } catch (const py::cast_error&) {
        return fail("a list of floats");
      }
    case T::Strings:
      try {
        return ir::Attr::of_strings(name, v.cast<std::vector<std::string>>());
      } catch (const py::cast_error&) {
        return fail("a list of str");
      }
    case T::Tensor:
      return ir::Attr::of_tensor(name, ir_tensor_from_numpy(v));
    default:
      break;
  }
  // Not used by the body: its Python type decides.
  if (is_int || is_bool) return ir::Attr::of_int(name, v.cast<int64_t>());
  if (is_float) return ir::Attr::of_float(name, v.cast<float>());
  if (py::isinstance<py::str>(v)) return ir::Attr::of_string(name, v.cast<std::string>());
  if (py::isinstance<py::array>(v)) return ir::Attr::of_tensor(name, ir_tensor_from_numpy(v));
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    bool ints = true, numbers = true, strings = true;
    for (py::handle x : v) {
      bool i = py::isinstance<py::int_>(x);
      ints = ints && i;
      numbers = numbers && (i || py::isinstance<py::float_>(x));
      strings = strings && py::isinstance<py::str>(x);
    }
    if (ints && py::len(v) > 0) return ir::Attr::of_ints(name, v.cast<std::vector<int64_t>>());
    if (numbers && py::len(v) > 0) return ir::Attr::of_floats(name, v.cast<std::vector<float>>());
    if (strings && py::len(v) > 0) {
      return ir::Attr::of_strings(name, v.cast<std::vector<std::string>>());
    }
  }
  return fail("an int, float, str, numpy array or a non-empty list of one of those");
}

}  // namespace oxs::python
