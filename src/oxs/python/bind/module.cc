// The module oxs._core: the C++ core as the pure-Python package oxs uses it.
#include <pybind11/pybind11.h>

#include "oxs/python/bind/bind.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "oxs core: ONNX Script compiler, evaluator and model I/O (use the package oxs)";
  oxs::python::bind_errors(m);
  oxs::python::bind_values(m);
  oxs::python::bind_models(m);
  oxs::python::bind_script(m);
  oxs::python::bind_builder(m);
  oxs::python::bind_rewrite(m);
  oxs::python::bind_torch(m);
}
