// oxs::Error as the Python exception oxs.Error (with `kind`); usage errors
// (a bad argument) are TypeError/ValueError as Python code expects.
#include "oxs/ir/error.h"
#include "oxs/python/bind/bind.h"

namespace oxs::python {

void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error");
  error.doc() = "An error of the oxs core: a bad model or value, an unsupported construct, I/O.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Usage) {
        PyErr_SetString(PyExc_ValueError, e.what());
        return;
      }
      py::object exc = py::reinterpret_borrow<py::object>(error.ptr())(py::str(e.what()));
      exc.attr("kind") = error_kind_name(e.kind());
      PyErr_SetObject(error.ptr(), exc.ptr());
    }
  });
}

}  // namespace oxs::python
