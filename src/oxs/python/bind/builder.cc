// oxs.GraphBuilder: the builder room for tools (the torch exporter): typed
// inputs, initializers borrowed from numpy, nodes checked against their
// schema and inferred as they are created, calls of compiled script
// functions, and finish() into an oxs.Model.
#include <pybind11/stl.h>

#include "oxs/builder/builder.h"
#include "oxs/ir/dtype.h"
#include "oxs/ir/error.h"
#include "oxs/python/bind/bind.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/signature.h"

using namespace pybind11::literals;

namespace oxs::python {

namespace {

struct PyBuilder {
  std::unique_ptr<builder::Builder> b;
  // A function body's builder points into its parent's: keep it alive.
  std::shared_ptr<PyBuilder> parent;
  std::string function_name;  // set for a function body
  builder::Builder& get() {
    if (!b) throw Error(ErrorKind::Usage, "this GraphBuilder was finished; start a new one");
    return *b;
  }
};

struct PyVar {
  std::shared_ptr<PyBuilder> owner;
  builder::Var v;
};

// The value, while its builder is not finished (finish() moves the graph out).
const builder::Var& live(const PyVar& v) {
  v.owner->get();
  return v.v;
}

ir::DataType dtype_arg(py::handle dt) {
  if (py::isinstance<py::int_>(dt)) {
    int raw = dt.cast<int>();
    if (!ir::is_valid_dtype(raw))
      throw py::value_error("no ONNX element type " + std::to_string(raw));
    return static_cast<ir::DataType>(raw);
  }
  auto d = dtype_of_numpy(py::dtype::from_args(py::reinterpret_borrow<py::object>(dt)));
  if (!d) throw py::type_error("no ONNX element type for " + std::string(py::repr(dt)));
  return *d;
}

std::optional<ir::Shape> shape_arg(py::handle shape) {
  if (shape.is_none()) return std::nullopt;
  std::vector<ir::Dim> dims;
  for (py::handle d : shape) {
    if (d.is_none()) {
      dims.push_back(ir::Dim::unknown());
    } else if (py::isinstance<py::str>(d)) {
      dims.push_back(ir::Dim::symbolic(d.cast<std::string>()));
    } else {
      dims.push_back(ir::Dim::known(d.cast<int64_t>()));
    }
  }
  return ir::Shape(std::move(dims));
}

std::vector<builder::Var> vars_arg(const std::shared_ptr<PyBuilder>& self, const py::list& inputs) {
  std::vector<builder::Var> out;
  for (py::handle h : inputs) {
    if (h.is_none()) {
      out.emplace_back();
      continue;
    }
    if (!py::isinstance<PyVar>(h)) {
      throw py::type_error("node inputs are values of this builder (or None), not " +
                           std::string(py::repr(h)));
    }
    const PyVar& v = h.cast<const PyVar&>();
    if (v.owner != self) throw py::value_error("a value of another GraphBuilder was passed");
    out.push_back(v.v);
  }
  return out;
}

py::object wrap_vars(const std::shared_ptr<PyBuilder>& self, const std::vector<builder::Var>& vs) {
  if (vs.size() == 1) return py::cast(PyVar{self, vs[0]});
  py::list l;
  for (const auto& v : vs) l.append(PyVar{self, v});
  return py::tuple(l);
}

std::unique_ptr<ir::Function> clone_function(const ir::Function& f) {
  auto c = std::make_unique<ir::Function>(f.domain, f.name);
  c->overload = f.overload;
  c->doc_string = f.doc_string;
  c->attributes = f.attributes;
  c->opset_imports = f.opset_imports;
  c->body = f.body->clone();
  return c;
}

}  // namespace

void bind_builder(py::module_& m) {
  m.def("op_outputs", [](const std::string& domain, const std::string& op, int64_t opset) {
    // The formal outputs of an op: (name, "single" | "optional" | "variadic").
    const schema::OpSignature& sig = schema::require(domain, op, opset);
    py::list out;
    for (const schema::FormalParam& p : sig.outputs) {
      const char* kind = p.option == schema::ParamOption::Single     ? "single"
                         : p.option == schema::ParamOption::Optional ? "optional"
                                                                     : "variadic";
      out.append(py::make_tuple(p.name, kind));
    }
    return out;
  });
  m.def("op_inputs", [](const std::string& domain, const std::string& op, int64_t opset) {
    // The formal inputs of an op: (name, "single" | "optional" | "variadic",
    // type constraint name or concrete type string).
    const schema::OpSignature& sig = schema::require(domain, op, opset);
    py::list out;
    for (const schema::FormalParam& p : sig.inputs) {
      const char* kind = p.option == schema::ParamOption::Single     ? "single"
                         : p.option == schema::ParamOption::Optional ? "optional"
                                                                     : "variadic";
      out.append(py::make_tuple(p.name, kind, p.type_constraint));
    }
    return out;
  });
  py::class_<PyVar>(m, "BuilderValue", "A value of a GraphBuilder's graph.")
      .def_property_readonly("name", [](const PyVar& v) { return live(v).name(); })
      .def_property_readonly("type", [](const PyVar& v) { return live(v).type().to_string(); })
      .def_property_readonly(
          "dtype",
          [](const PyVar& v) -> py::object {
            // The ONNX element type number (None while inference does not know it).
            const ir::Type& t = live(v).type();
            if (!t.is_tensor() || t.elem_type() == ir::DataType::Undefined) return py::none();
            return py::int_(static_cast<int>(t.elem_type()));
          },
          "The element type (an ONNX TensorProto.DataType number), or None if unknown.")
      .def_property_readonly(
          "shape",
          [](const PyVar& v) -> py::object {
            const ir::Type& t = live(v).type();
            if (!t.is_tensor() || !t.shape()) return py::none();
            py::list dims;
            for (const ir::Dim& d : t.shape()->dims()) {
              if (d.is_known()) {
                dims.append(d.value());
              } else if (d.is_symbolic()) {
                dims.append(d.symbol());
              } else {
                dims.append(py::none());
              }
            }
            return py::tuple(dims);
          },
          "The dims (ints, symbol names, None for unknown), or None if the rank is unknown.")
      .def_property_readonly(
          "rank",
          [](const PyVar& v) -> py::object {
            const ir::Type& t = live(v).type();
            if (!t.is_tensor() || !t.shape()) return py::none();
            return py::int_(t.shape()->rank());
          },
          "The rank, or None if unknown.")
      .def_property_readonly(
          "builder", [](const PyVar& v) { return v.owner; },
          "The GraphBuilder this value belongs to (op.X(...) on it adds nodes there).")
      .def("__repr__", [](const PyVar& v) {
        return "<oxs.BuilderValue " + live(v).name() + ": " + live(v).type().to_string() + ">";
      });

  py::class_<PyBuilder, std::shared_ptr<PyBuilder>>(
      m, "GraphBuilder", "Builds a model node by node (see oxs.GraphBuilder).")
      .def(py::init([](int64_t opset, const std::string& name, const std::string& producer) {
             auto p = std::make_shared<PyBuilder>();
             p->b = std::make_unique<builder::Builder>(builder::BuilderOptions{
                 .opset = opset, .graph_name = name, .producer_name = producer});
             return p;
           }),
           "opset"_a = 17, "name"_a = "main", "producer_name"_a = "oxs")
      .def(
          "input",
          [](const std::shared_ptr<PyBuilder>& self, const std::string& name, py::handle dtype,
             py::handle shape) {
            return PyVar{self, self->get().input(name, dtype_arg(dtype), shape_arg(shape))};
          },
          "name"_a, "dtype"_a, "shape"_a = py::none())
      .def(
          "initializer",
          [](const std::shared_ptr<PyBuilder>& self, const std::string& name, py::handle array) {
            // Borrowed: the tensor views the array's memory and keeps it alive.
            std::shared_ptr<ir::Tensor> t = ir_tensor_from_numpy(array);
            return PyVar{self, self->get().constant(std::move(*t), name)};
          },
          "name"_a, "array"_a)
      .def(
          "op",
          [](const std::shared_ptr<PyBuilder>& self, const std::string& op_type,
             const py::list& inputs, const py::dict& attrs, const std::string& domain,
             const std::string& name, size_t num_outputs) {
            builder::Builder& b = self->get();
            const schema::OpSignature* sig = nullptr;
            if (int64_t v = b.opset(domain); v > 0 || domain.empty()) {
              sig = schema::lookup(domain, op_type, v > 0 ? v : b.options().opset);
            }
            std::vector<ir::Attr> at;
            for (auto kv : attrs) {
              std::string k = kv.first.cast<std::string>();
              const schema::AttrParam* p = sig ? sig->find_attr(k) : nullptr;
              at.push_back(attr_from_python(k, p ? p->type : ir::AttrType::Undefined, kv.second));
            }
            auto outs = b.make_node(op_type, vars_arg(self, inputs), std::move(at),
                                    {.domain = domain, .name = name, .num_outputs = num_outputs});
            return wrap_vars(self, outs);
          },
          "op_type"_a, "inputs"_a, "attrs"_a = py::dict(), "domain"_a = "", "name"_a = "",
          "num_outputs"_a = 1)
      .def(
          "add_functions",
          [](const std::shared_ptr<PyBuilder>& self, py::handle library) {
            // Every function of `library` (an oxs.Model) not yet in this model.
            ModelPtr lib = model_of(library);
            builder::Builder& b = self->get();
            py::list names;
            for (const auto& f : lib->functions) {
              if (!b.model().functions.find(f->domain, f->name, f->overload)) {
                b.model().functions.push_back(clone_function(*f));
              }
              if (b.opset(f->domain) == 0) b.use_opset(f->domain, 1);
              names.append(f->name);
            }
            return names;
          },
          "library"_a)
      .def(
          "call",
          [](const std::shared_ptr<PyBuilder>& self, const std::string& function,
             const py::list& inputs, const py::dict& attrs, const std::string& domain,
             const std::string& name) {
            builder::Builder& b = self->get();
            const ir::Function* f = b.model().functions.find(domain, function);
            if (!f) {
              throw Error(ErrorKind::Usage, "no function " + domain + "." + function +
                                                " in this builder: add_functions() first");
            }
            auto types = attribute_types(*f);
            std::vector<ir::Attr> at;
            for (auto kv : attrs) {
              std::string k = kv.first.cast<std::string>();
              auto it = types.find(k);
              at.push_back(attr_from_python(
                  k, it == types.end() ? ir::AttrType::Undefined : it->second, kv.second));
            }
            return wrap_vars(self,
                             b.call(*f, vars_arg(self, inputs), std::move(at), {.name = name}));
          },
          "function"_a, "inputs"_a, "attrs"_a = py::dict(), "domain"_a = "this", "name"_a = "")
      .def(
          "output",
          [](const std::shared_ptr<PyBuilder>& self, const PyVar& v, const std::string& name) {
            if (v.owner != self)
              throw py::value_error("a value of another GraphBuilder was passed");
            self->get().output(v.v, name);
          },
          "value"_a, "name"_a = "")
      .def(
          "function",
          [](const std::shared_ptr<PyBuilder>& self, const std::string& domain,
             const std::string& name, std::vector<std::string> attributes) {
            // Builder::function returns its builder by guaranteed copy
            // elision (builders never move), so it is constructed in place.
            builder::Builder& b = self->get();
            if (b.opset("") == 0) b.use_opset("", b.options().opset);  // the body's imports
            auto body = std::make_shared<PyBuilder>();
            body->b.reset(new builder::Builder(b.function(domain, name, attributes)));
            body->parent = self;
            body->function_name = name;
            return body;
          },
          "domain"_a, "name"_a, "attributes"_a = std::vector<std::string>(),
          "A GraphBuilder for the body of a model-local function of this builder's model "
          "(inputs, nodes, outputs; constants become Constant nodes); hand it back with "
          "add_function().")
      .def(
          "add_function",
          [](const std::shared_ptr<PyBuilder>& self, const std::shared_ptr<PyBuilder>& body) {
            if (body->parent != self) {
              throw py::value_error(
                  "add_function: the body was not started by this builder's "
                  "function()");
            }
            const ir::Function& f = self->get().add_function(std::move(body->get()));
            body->b.reset();
            return f.name;
          },
          "body"_a)
      .def(
          "functions_model",
          [](const std::shared_ptr<PyBuilder>& self) {
            // A copy of the model's functions and opset imports, with an
            // empty graph: a library the torch exporter's candidates call
            // into. The builder stays usable.
            builder::Builder& b = self->get();
            auto m = std::make_shared<ir::Model>();
            m->ir_version = b.model().ir_version;
            m->opset_imports = b.model().opset_imports;
            if (!ir::find_opset(m->opset_imports, "")) {
              m->opset_imports.push_back({"", b.options().opset});
            }
            for (const auto& f : b.model().functions) m->functions.push_back(clone_function(*f));
            return wrap_model(std::move(m));
          },
          "The model's functions as a library model (empty graph).")
      .def_property_readonly(
          "opset",
          [](const std::shared_ptr<PyBuilder>& self) {
            builder::Builder& b = self->get();
            int64_t v = b.opset("");  // 0 until the first node imports it
            return v > 0 ? v : b.options().opset;
          },
          "The ai.onnx opset the builder's nodes are checked against.")
      .def("finish", [](const std::shared_ptr<PyBuilder>& self) {
        if (self->parent) {
          throw Error(ErrorKind::Usage,
                      "finish() is for a main GraphBuilder; hand a function "
                      "body back with add_function()");
        }
        builder::Builder& b = self->get();
        auto model = std::make_shared<ir::Model>(b.finish());
        self->b.reset();
        return wrap_model(std::move(model));
      });
}

}  // namespace oxs::python
