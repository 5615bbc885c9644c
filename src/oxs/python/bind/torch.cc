// oxs._core.torch_export: the hand-off from oxs.torch (Python, tracing) to
// the torch/ room (C++: dispatcher and interpreter). The structure is read
// once into torch::ExportGraph (src/oxs/python/oxs/torch/_handoff.py
// describes it); parameters arrive as numpy views and stay borrowed.
#include <pybind11/stl.h>

#include <chrono>

#include "oxs/onnx/model_io.h"
#include "oxs/python/bind/bind.h"
#include "oxs/torch/interpreter.h"

namespace oxs::python {

namespace {

using namespace pybind11::literals;

torch::Arg read_arg(const py::handle& h) {
  auto t = h.cast<py::tuple>();
  torch::Arg a;
  a.name = t[0].cast<std::string>();
  a.schema_type = t[1].cast<std::string>();
  std::string kind = t[2].cast<std::string>();
  py::handle v = t[3];
  using K = torch::Arg::Kind;
  if (kind == "t") {
    a.kind = K::Tensor;
    a.i = v.cast<int64_t>();
  } else if (kind == "n") {
    a.kind = K::None;
  } else if (kind == "tl") {
    a.kind = K::TensorList;
    a.ints = v.cast<std::vector<int64_t>>();
  } else if (kind == "i" || kind == "b" || kind == "dt") {
    a.kind = kind == "i" ? K::Int : kind == "b" ? K::Bool : K::DType;
    a.i = kind == "b" ? (v.cast<bool>() ? 1 : 0) : v.cast<int64_t>();
  } else if (kind == "sy") {  // a SymInt: (example value, expression id)
    auto pair = v.cast<std::vector<int64_t>>();
    a.kind = K::Int;
    a.i = pair.at(0);
    a.syms = {pair.at(1)};
  } else if (kind == "sys") {  // an int list holding SymInts: (example values, ids)
    auto pair = v.cast<py::tuple>();
    a.kind = K::Ints;
    a.ints = pair[0].cast<std::vector<int64_t>>();
    a.syms = pair[1].cast<std::vector<int64_t>>();
  } else if (kind == "f") {
    a.kind = K::Float;
    a.f = v.cast<double>();
  } else if (kind == "is") {
    a.kind = K::Ints;
    a.ints = v.cast<std::vector<int64_t>>();
  } else if (kind == "fs") {
    a.kind = K::Floats;
    a.floats = v.cast<std::vector<double>>();
  } else if (kind == "s") {
    a.kind = K::String;
    a.s = v.cast<std::string>();
  } else {
    a.kind = K::Other;
    a.s = py::str(v).cast<std::string>();
  }
  return a;
}

torch::ExportGraph read_graph(const py::list& inputs, const py::list& params, const py::list& nodes,
                              const py::list& outputs, const py::dict& symbols,
                              const py::list& exprs) {
  torch::ExportGraph g;
  for (auto h : inputs) {
    auto t = h.cast<py::tuple>();
    torch::GraphInput in;
    in.id = t[0].cast<int64_t>();
    in.name = t[1].cast<std::string>();
    in.dtype = static_cast<ir::DataType>(t[2].cast<int>());
    for (auto d : t[3].cast<py::list>()) {
      if (py::isinstance<py::str>(d)) {
        in.dims.push_back(ir::Dim::symbolic(d.cast<std::string>()));
      } else {
        in.dims.push_back(ir::Dim::known(d.cast<int64_t>()));
      }
    }
    g.inputs.push_back(std::move(in));
  }
  for (auto h : params) {
    auto t = h.cast<py::tuple>();
    torch::Param p;
    p.id = t[0].cast<int64_t>();
    p.name = t[1].cast<std::string>();
    p.tensor = ir_tensor_from_numpy(t[2]);
    p.tensor->name = p.name;
    g.params.push_back(std::move(p));
  }
  for (auto h : nodes) {
    auto t = h.cast<py::tuple>();
    torch::FxNode n;
    n.name = t[0].cast<std::string>();
    n.target = t[1].cast<std::string>();
    n.module = t[2].cast<std::string>();
    for (auto a : t[3].cast<py::list>()) n.args.push_back(read_arg(a));
    for (auto o : t[4].cast<py::list>()) {
      auto ot = o.cast<py::tuple>();
      torch::OutMeta m{ot[0].cast<int64_t>(),
                       static_cast<ir::DataType>(ot[1].cast<int>()),
                       ot[2].cast<std::vector<int64_t>>(),
                       {}};
      if (ot.size() > 3) m.syms = ot[3].cast<std::vector<int64_t>>();
      n.outputs.push_back(std::move(m));
    }
    if (t.size() > 5) n.source = t[5].cast<std::string>();
    if (t.size() > 6) n.scopes = t[6].cast<std::vector<std::string>>();
    g.nodes.push_back(std::move(n));
  }
  for (auto h : outputs) {
    auto t = h.cast<py::tuple>();
    g.outputs.emplace_back(t[0].cast<int64_t>(), t[1].cast<std::string>());
  }
  for (auto kv : symbols) g.symbols[kv.first.cast<std::string>()] = kv.second.cast<int64_t>();
  // exprs: [(op, text, value, hint, [arg ids])]
  using Op = torch::SymExpr::Op;
  static const std::map<std::string, Op> ops = {
      {"symbol", Op::Symbol},     {"const", Op::Const}, {"add", Op::Add}, {"mul", Op::Mul},
      {"floordiv", Op::FloorDiv}, {"mod", Op::Mod},     {"max", Op::Max}, {"min", Op::Min}};
  for (auto h : exprs) {
    auto t = h.cast<py::tuple>();
    torch::SymExpr e;
    e.op = ops.at(t[0].cast<std::string>());
    e.text = t[1].cast<std::string>();
    e.value = t[2].cast<int64_t>();
    e.hint = t[3].cast<int64_t>();
    e.args = t[4].cast<std::vector<int64_t>>();
    g.exprs.push_back(std::move(e));
  }
  return g;
}

// An attribute's default (from the library's manifest) as an argument.
torch::Arg default_arg(const std::string& name, const py::handle& v) {
  const char* kind = "o";
  if (py::isinstance<py::bool_>(v)) {
    kind = "b";
  } else if (py::isinstance<py::int_>(v)) {
    kind = "i";
  } else if (py::isinstance<py::float_>(v)) {
    kind = "f";
  } else if (py::isinstance<py::str>(v)) {
    kind = "s";
  } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    bool ints = true;
    for (auto x : v) ints = ints && py::isinstance<py::int_>(x);
    kind = ints ? "is" : "fs";
  }
  return read_arg(py::make_tuple(name, "", kind, v));
}

void read_candidates(const py::list& cands, torch::Library& lib) {
  for (auto h : cands) {
    auto t = h.cast<py::tuple>();
    torch::Candidate c;
    c.overload = t[0].cast<std::string>();
    c.name = t[1].cast<std::string>();
    c.user = t[2].cast<bool>();
    c.library = model_of(t[3]);
    c.function = t[4].cast<std::string>();
    for (auto p : t[5].cast<py::list>()) {
      auto pt = p.cast<py::tuple>();
      torch::ParamSpec s;
      s.name = pt[0].cast<std::string>();
      s.is_input = pt[1].cast<std::string>() == "input";
      for (int d : pt[2].cast<std::vector<int>>()) s.dtypes.push_back(static_cast<ir::DataType>(d));
      s.optional = pt[3].cast<bool>();
      s.attr_kind = pt[4].cast<std::string>();
      s.has_default = pt[5].cast<bool>();
      s.sequence = pt[6].cast<bool>();
      if (!pt[7].is_none()) s.default_value = default_arg(s.name, pt[7]);
      s.typevar = pt[8].cast<std::string>();
      c.params.push_back(std::move(s));
    }
    c.dtype_role = t[6].cast<std::string>();
    c.has_variants = t[7].cast<bool>();
    c.output_typevars = t[8].cast<std::vector<std::string>>();
    lib.add(std::move(c));
  }
}

py::list explain(const torch::ExportGraph& g, const torch::Dispatch& d) {
  py::list out;
  for (size_t i = 0; i < d.decisions.size(); ++i) {
    const auto& dec = d.decisions[i];
    const auto& n = g.nodes[i];
    py::list cands;
    for (size_t k = 0; k < dec.scored.size(); ++k) {
      const auto& s = dec.scored[k];
      cands.append(py::dict(
          "name"_a = s.candidate->name,
          "kind"_a = s.candidate->kind == torch::Candidate::Kind::Native ? "native" : "script",
          "user"_a = s.candidate->user, "score"_a = s.score, "fits"_a = s.rejected.empty(),
          "why_lost"_a = k < dec.lost_because.size() ? dec.lost_because[k] : std::string()));
    }
    out.append(
        py::dict("node"_a = n.name, "target"_a = n.target, "module"_a = n.module,
                 "looked_up"_a = dec.looked_up, "note"_a = dec.note, "candidates"_a = cands,
                 "winner"_a = dec.winner ? py::object(py::str(dec.winner->name)) : py::none()));
  }
  return out;
}

}  // namespace

void bind_torch(py::module_& m) {
  m.def(
      "torch_load_library",
      [](const std::string& path) {
        ModelPtr mp;
        {
          py::gil_scoped_release nogil;
          mp = std::make_shared<ir::Model>(onnx::load(path));
        }
        py::object manifest = py::none();
        for (const auto& [k, v] : mp->metadata_props) {
          if (k == "oxs.aten.manifest") manifest = py::str(v);
        }
        return py::make_tuple(wrap_model(std::move(mp)), manifest);
      },
      "path"_a,
      "The compiled ATen library (aten_library.onnx) and its manifest's JSON text (None if it "
      "has none).");
  m.def(
      "torch_native_overloads",
      [] {
        torch::Library lib;
        torch::add_front_natives(lib);
        torch::add_native_functions(lib);
        return lib.overloads();
      },
      "The overload names the native C++ functions take (the tracer decomposes only ops that "
      "neither they nor the library cover).");
  m.def(
      "torch_export",
      [](const py::list& inputs, const py::list& params, const py::list& nodes,
         const py::list& outputs, const py::dict& symbols, const py::list& exprs,
         const py::list& candidates, int64_t opset, bool keep_functions, bool want_explain) {
        auto t0 = std::chrono::steady_clock::now();
        torch::ExportGraph g = read_graph(inputs, params, nodes, outputs, symbols, exprs);
        torch::Library lib;
        read_candidates(candidates, lib);  // user and script functions first
        torch::add_front_natives(lib);
        torch::add_native_functions(lib);
        double handoff =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        torch::ExportResult r;
        {
          py::gil_scoped_release nogil;
          r = torch::export_graph(g, lib, {.opset = opset, .keep_functions = keep_functions});
        }
        py::dict timings("handoff"_a = handoff, "dispatch"_a = r.timings.dispatch_s,
                         "build"_a = r.timings.build_s, "cleanup"_a = r.timings.cleanup_s);
        py::object ex = want_explain ? py::object(explain(g, r.dispatch)) : py::none();
        py::list warnings;
        for (const auto& w : r.dispatch.warnings) warnings.append(w);
        return py::make_tuple(wrap_model(std::make_shared<ir::Model>(std::move(r.model))), ex,
                              timings, warnings);
      },
      "inputs"_a, "params"_a, "nodes"_a, "outputs"_a, "symbols"_a, "exprs"_a, "candidates"_a,
      "opset"_a, "keep_functions"_a, "explain"_a);
  m.def(
      "torch_native_overloads",
      [](const std::vector<std::string>& names) {
        // Which of these overloads have a native C++ function (the trace-only
        // specializer leaves those nodes to the dispatcher).
        static const torch::Library natives = [] {
          torch::Library lib;
          torch::add_front_natives(lib);
          torch::add_native_functions(lib);
          return lib;
        }();
        std::vector<std::string> out;
        for (const std::string& n : names) {
          if (natives.find(n)) out.push_back(n);
        }
        return out;
      },
      "names"_a);
}

}  // namespace oxs::python
