// Models from Python: load/save, read-only views of graphs, nodes, values and
// functions (each view keeps its model alive), check, inference, running,
// decompiling, comparing, and bytes for the `onnx` package.
#include <pybind11/stl.h>

#include "oxs/eval/session.h"
#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/ir/structural_diff.h"
#include "oxs/ir/verifier.h"
#include "oxs/onnx/model_io.h"
#include "oxs/python/bind/bind.h"
#include "oxs/schema/conformance.h"
#include "oxs/script/decompile/decompile.h"

using namespace pybind11::literals;

namespace oxs::python {

namespace {

// A view of something inside a model; the model lives as long as the view.
template <class T>
std::shared_ptr<T> view(const ModelPtr& m, T* p) {
  return std::shared_ptr<T>(m, p);
}

struct PyModel {
  ModelPtr m;
};

py::object type_shape(const ir::Type& t) {
  if (!t.shape()) return py::none();
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
}

py::object attr_value(const ModelPtr& m, const ir::Attr& a) {
  using T = ir::AttrType;
  if (a.is_reference()) return py::str("@" + a.ref_attr_name);
  switch (a.type) {
    case T::Float:
      return py::float_(a.f);
    case T::Int:
      return py::int_(a.i);
    case T::String:
      return py::bytes(a.s).attr("decode")("utf-8", "replace");
    case T::Tensor:
      if (!a.t) return py::none();  // a malformed file: the type without the tensor
      return numpy_from_ir(*a.t);
    case T::Graph:
      return py::cast(view<ir::Graph>(m, a.g.get()));
    case T::Floats:
      return py::cast(a.floats);
    case T::Ints:
      return py::cast(a.ints);
    case T::Strings:
      return py::cast(a.strings);
    case T::Tensors: {
      py::list l;
      for (const auto& t : a.tensors) l.append(numpy_from_ir(*t));
      return l;
    }
    case T::Graphs: {
      py::list l;
      for (const auto& g : a.graphs) l.append(py::cast(view<ir::Graph>(m, g.get())));
      return l;
    }
    default:
      return py::str(std::string("<") + ir::attr_type_name(a.type) + ">");
  }
}

// Views hold the aliasing shared_ptr of their object; the owning model is the
// control block. These helpers rebuild the model pointer for nested views.
template <class T>
ModelPtr owner(const std::shared_ptr<T>& p) {
  return ModelPtr(p, nullptr);
}

ir::Model clone_model(const ir::Model& m) {
  std::string bytes = onnx::save_to_bytes(m);
  return onnx::load_from_bytes(bytes, ".", "model");
}

onnx::SaveOptions save_options(py::handle external_data) {
  onnx::SaveOptions o;
  if (external_data.is_none()) return o;
  if (py::isinstance<py::bool_>(external_data)) {
    o.external_data = external_data.cast<bool>() ? onnx::SaveOptions::ExternalData::External
                                                 : onnx::SaveOptions::ExternalData::Inline;
    return o;
  }
  if (py::isinstance<py::int_>(external_data)) {
    o.external_data = onnx::SaveOptions::ExternalData::External;
    o.threshold = external_data.cast<int64_t>();
    if (o.threshold < 0) throw Error(ErrorKind::Usage, "external_data threshold must be >= 0");
    return o;
  }
  throw py::type_error(
      "external_data takes None (keep), True/False (all external/inline) or a "
      "byte threshold");
}

}  // namespace

py::object wrap_model(ModelPtr m) {
  return py::cast(PyModel{std::move(m)});
}

ModelPtr model_of(py::handle model) {
  if (!py::isinstance<PyModel>(model)) {
    throw py::type_error("expected an oxs.Model, got " + std::string(py::str(py::type::handle_of(model))));
  }
  return model.cast<PyModel&>().m;
}

void bind_models(py::module_& m) {
  using GraphP = std::shared_ptr<ir::Graph>;
  using NodeP = std::shared_ptr<ir::Node>;
  using ValueP = std::shared_ptr<ir::Value>;
  using FunctionP = std::shared_ptr<ir::Function>;

  py::class_<ir::Value, ValueP>(m, "Value", "A value of a graph (read-only view).")
      .def_property_readonly("name", &ir::Value::name)
      .def_property_readonly("type", [](const ir::Value& v) { return v.type().to_string(); })
      .def_property_readonly(
          "dtype",
          [](const ir::Value& v) -> py::object {
            if (!v.type().is_tensor() || v.type().elem_type() == ir::DataType::Undefined) {
              return py::none();
            }
            return numpy_dtype(v.type().elem_type());
          })
      .def_property_readonly("shape", [](const ir::Value& v) { return type_shape(v.type()); })
      .def("__repr__", [](const ir::Value& v) {
        return "<oxs.Value " + v.name() + ": " + v.type().to_string() + ">";
      });

  py::class_<ir::Node, NodeP>(m, "Node", "A node of a graph (read-only view).")
      .def_property_readonly("op_type", &ir::Node::op_type)
      .def_property_readonly("domain", &ir::Node::domain)
      .def_property_readonly("name", &ir::Node::name)
      .def_property_readonly("inputs",
                             [](const NodeP& n) {
                               py::list l;
                               for (ir::Value* v : n->inputs()) {
                                 l.append(v ? py::cast(view(owner(n), v)) : py::none());
                               }
                               return l;
                             })
      .def_property_readonly("outputs",
                             [](const NodeP& n) {
                               py::list l;
                               for (ir::Value* v : n->outputs()) {
                                 l.append(v ? py::cast(view(owner(n), v)) : py::none());
                               }
                               return l;
                             })
      .def_property_readonly("attributes",
                             [](const NodeP& n) {
                               py::dict d;
                               for (const ir::Attr& a : n->attrs()) {
                                 d[py::str(a.name)] = attr_value(owner(n), a);
                               }
                               return d;
                             })
      .def("__repr__",
           [](const ir::Node& n) { return "<oxs.Node " + ir::print_node_line(n) + ">"; });

  py::class_<ir::Graph, GraphP>(m, "Graph", "A graph (read-only view).")
      .def_property_readonly("name", &ir::Graph::name)
      .def_property_readonly("inputs",
                             [](const GraphP& g) {
                               py::list l;
                               for (ir::Value* v : g->inputs()) l.append(view(owner(g), v));
                               return l;
                             })
      .def_property_readonly("outputs",
                             [](const GraphP& g) {
                               py::list l;
                               for (ir::Value* v : g->outputs()) l.append(view(owner(g), v));
                               return l;
                             })
      .def_property_readonly("nodes",
                             [](const GraphP& g) {
                               py::list l;
                               for (ir::Node* n : g->nodes()) l.append(view(owner(g), n));
                               return l;
                             })
      .def_property_readonly("initializers",
                             [](const GraphP& g) {
                               py::dict d;
                               for (ir::Value* v : g->initializers()) {
                                 d[py::str(v->name())] = numpy_from_ir(*v->const_value());
                               }
                               return d;
                             })
      .def("__str__", [](const ir::Graph& g) { return ir::print(g); });

  py::class_<ir::Function, FunctionP>(m, "Function", "A model-local function (read-only view).")
      .def_property_readonly("name", [](const ir::Function& f) { return f.name; })
      .def_property_readonly("domain", [](const ir::Function& f) { return f.domain; })
      .def_property_readonly("attributes", [](const ir::Function& f) { return f.attributes; })
      .def_property_readonly("body",
                             [](const FunctionP& f) { return view(owner(f), f->body.get()); })
      .def_property_readonly("opset_imports",
                             [](const ir::Function& f) {
                               py::dict d;
                               for (const auto& o : f.opset_imports)
                                 d[py::str(o.domain)] = o.version;
                               return d;
                             })
      .def("__str__", [](const ir::Function& f) { return ir::print(f); });

  py::class_<PyModel>(m, "Model", "An ONNX model held by oxs (see oxs.Model).")
      .def_property_readonly("ir_version", [](const PyModel& p) { return p.m->ir_version; })
      .def_property_readonly("producer_name", [](const PyModel& p) { return p.m->producer_name; })
      .def_property_readonly("graph", [](const PyModel& p) { return view(p.m, p.m->graph.get()); })
      .def_property_readonly("functions",
                             [](const PyModel& p) {
                               py::list l;
                               for (const auto& f : p.m->functions) l.append(view(p.m, f.get()));
                               return l;
                             })
      .def_property_readonly("opset_imports",
                             [](const PyModel& p) {
                               py::dict d;
                               for (const auto& o : p.m->opset_imports)
                                 d[py::str(o.domain)] = o.version;
                               return d;
                             })
      .def("to_bytes",
           [](const PyModel& p) {
             std::string s;
             {
               py::gil_scoped_release nogil;
               s = onnx::save_to_bytes(*p.m);
             }
             return py::bytes(s);
           })
      .def("__str__", [](const PyModel& p) { return ir::print(*p.m); });

  m.def("load", [](const std::string& path) {
    py::gil_scoped_release nogil;
    auto mp = std::make_shared<ir::Model>(onnx::load(path));
    py::gil_scoped_acquire gil;
    return wrap_model(std::move(mp));
  });
  m.def("load_from_bytes", [](py::bytes b, const std::string& base_dir) {
    std::string s = b;
    py::gil_scoped_release nogil;
    auto mp = std::make_shared<ir::Model>(onnx::load_from_bytes(s, base_dir, "<bytes>"));
    py::gil_scoped_acquire gil;
    return wrap_model(std::move(mp));
  });
  m.def("save", [](py::handle model, const std::string& path, py::handle external_data) {
    ModelPtr mp = model_of(model);
    onnx::SaveOptions o = save_options(external_data);
    py::gil_scoped_release nogil;
    onnx::save(*mp, path, o);
  });
  m.def("check", [](py::handle model, bool full) {
    ModelPtr mp = model_of(model);
    py::list out;
    std::vector<ir::VerifyIssue> vi;
    std::vector<schema::ConformanceIssue> ci;
    {
      py::gil_scoped_release nogil;
      vi = ir::verify(*mp);
      if (vi.empty()) {
        schema::ConformanceOptions co;
        co.shape_inference = full;
        ci = schema::check_conformance(*mp, co);
      }
    }
    for (const auto& i : vi)
      out.append(py::make_tuple("verifier", i.where + ": " + i.message, false));
    for (const auto& i : ci) out.append(py::make_tuple(i.stage, i.message, i.limitation));
    return out;
  });
  m.def("infer_shapes", [](py::handle model) {
    ModelPtr mp = model_of(model);
    py::gil_scoped_release nogil;
    auto out = std::make_shared<ir::Model>(clone_model(*mp));
    infer::run(*out);
    py::gil_scoped_acquire gil;
    return wrap_model(std::move(out));
  });
  m.def(
      "run",
      [](py::handle model, const py::dict& feeds, double max_seconds, int64_t max_live_bytes) {
        ModelPtr mp = model_of(model);
        std::map<std::string, eval::Value> in;
        std::map<std::string, const ir::Value*> by_name;
        for (const ir::Value* v : mp->graph->inputs()) by_name[v->name()] = v;
        for (auto kv : feeds) {
          std::string name = kv.first.cast<std::string>();
          auto it = by_name.find(name);
          if (it == by_name.end()) {
            std::string known;
            for (const auto& [k, v] : by_name) known += (known.empty() ? "" : ", ") + k;
            throw Error(ErrorKind::Usage,
                        "the model has no input '" + name + "' (inputs: " + known + ")");
          }
          in.emplace(name,
                     value_from_python(kv.second, it->second->type(), "input '" + name + "'"));
        }
        std::vector<eval::Value> out;
        std::vector<std::string> names;
        {
          py::gil_scoped_release nogil;
          eval::SessionOptions options;
          options.max_seconds = max_seconds;        // <= 0: none
          options.max_live_bytes = max_live_bytes;  // 0: the default budget
          eval::Session s(*mp, std::move(options));
          out = s.run(in);
          names = s.output_names();
        }
        py::dict d;
        for (size_t i = 0; i < out.size(); ++i) d[py::str(names[i])] = value_to_python(out[i]);
        return d;
      },
      "model"_a, "feeds"_a, "max_seconds"_a = 0.0, "max_live_bytes"_a = int64_t{0});
  m.def("decompile", [](py::handle model) {
    ModelPtr mp = model_of(model);
    py::gil_scoped_release nogil;
    return script::decompile(*mp).source;
  });
  m.def("diff", [](py::handle a, py::handle b, double rtol, double atol) {
    ModelPtr ma = model_of(a), mb = model_of(b);
    ir::DiffOptions o;
    o.rtol = rtol;
    o.atol = atol;
    ir::DiffResult r;
    {
      py::gil_scoped_release nogil;
      r = ir::diff(*ma, *mb, o);
    }
    return py::make_tuple(r.equivalent(), r.to_string());
  });
}

}  // namespace oxs::python
