// @script() support: a compilation unit built from Python's view of a
// function (its source lines and the values of the names it uses), compiled
// by the script room's Environment, and eager calls of its functions on the
// evaluator with every error naming the op, the node and the script line.
#include <pybind11/stl.h>

#include <map>
#include <mutex>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/python/bind/bind.h"
#include "oxs/schema/registry.h"
#include "oxs/script/environment.h"

using namespace pybind11::literals;

namespace oxs::python {

namespace {

using script::ExternalValue;

script::PyValue py_value(py::handle obj, int depth = 0) {
  if (depth > 32) throw Error(ErrorKind::Input, "a Python value nested more than 32 levels deep");
  if (obj.is_none()) return script::PyValue::none();
  if (py::isinstance<py::bool_>(obj)) return script::PyValue::of_bool(obj.cast<bool>());
  if (py::isinstance<py::int_>(obj)) return script::PyValue::of_int(obj.cast<int64_t>());
  if (py::isinstance<py::float_>(obj)) return script::PyValue::of_float(obj.cast<double>());
  if (py::isinstance<py::str>(obj)) return script::PyValue::of_str(obj.cast<std::string>());
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    std::vector<script::PyValue> items;
    for (py::handle item : obj) items.push_back(py_value(item, depth + 1));
    return script::PyValue::of_list(std::move(items), py::isinstance<py::tuple>(obj));
  }
  // numpy arrays and numpy scalars: a tensor constant.
  script::PyValue p;
  p.kind = script::PyValue::Kind::kTensor;
  p.tensor = ir_tensor_from_numpy(py::module_::import("numpy").attr("asarray")(obj));
  return p;
}

ExternalValue external(const py::tuple& t) {
  ExternalValue v;
  std::string kind = t[0].cast<std::string>();
  if (kind == "py") {
    v.kind = ExternalValue::Kind::kPy;
    v.py = py_value(t[1]);
  } else if (kind == "module") {
    v.kind = ExternalValue::Kind::kModule;
    v.path = t[1].cast<std::string>();
  } else if (kind == "member") {
    v.kind = ExternalValue::Kind::kMember;
    v.path = t[1].cast<std::string>();
    v.attr = t[2].cast<std::string>();
  } else if (kind == "opset") {
    v.kind = ExternalValue::Kind::kOpset;
    v.opset = {t[1].cast<std::string>(), t[2].cast<int64_t>()};
    v.path = t[3].cast<std::string>();
  } else if (kind == "type") {
    v.kind = ExternalValue::Kind::kTensorType;
    v.dtype = static_cast<ir::DataType>(t[1].cast<int>());
    if (!t[2].is_none()) {
      std::vector<ir::Dim> dims;
      for (py::handle d : t[2]) {
        if (d.is_none()) {
          dims.push_back(ir::Dim::unknown());
        } else if (py::isinstance<py::str>(d)) {
          dims.push_back(ir::Dim::symbolic(d.cast<std::string>()));
        } else {
          dims.push_back(ir::Dim::known(d.cast<int64_t>()));
        }
      }
      v.shape = ir::Shape(std::move(dims));
    }
    v.path = t[3].cast<std::string>();
  } else if (kind == "function") {
    v.kind = ExternalValue::Kind::kFunction;
    v.path = t[1].cast<std::string>();
  } else {
    v.kind = ExternalValue::Kind::kForeign;
    v.path = t[1].cast<std::string>();
  }
  return v;
}

struct TraceRecord {
  std::string op, domain, node;
  int depth = 0;
  std::vector<std::string> input_names, output_names;
  std::vector<eval::Value> inputs, outputs;
  std::string where;
};

// A compiled unit: the environment (for rendering and node lines), the model
// (graph and/or function library) and a session for eager calls.
class Unit {
 public:
  Unit(std::shared_ptr<script::Environment> env, script::CompileResult r)
      : env_(std::move(env)), diagnostics_(std::move(r.diagnostics)) {
    if (r.model) model_ = std::make_shared<ir::Model>(std::move(*r.model));
  }

  bool ok() const { return model_ != nullptr; }
  std::string rendered() const { return env_->render(diagnostics_); }

  py::list diagnostics() const {
    py::list out;
    for (const script::Diagnostic& d : diagnostics_) {
      script::SourceLocation at = env_->locate(d.span);
      out.append(py::dict("severity"_a = script::severity_name(d.severity), "code"_a = d.code,
                          "message"_a = d.message, "file"_a = at.file, "line"_a = at.line,
                          "column"_a = at.column, "hint"_a = d.hint, "notes"_a = d.notes,
                          "text"_a = env_->render(d)));
    }
    return out;
  }

  py::object model() const {
    if (!model_) throw Error(ErrorKind::Usage, "the unit did not compile");
    return wrap_model(model_);
  }

  const ir::Function& function(const std::string& name) const {
    if (!model_) throw Error(ErrorKind::Usage, "the unit did not compile");
    for (const auto& f : model_->functions) {
      if (f->name == name) return *f;
    }
    throw Error(ErrorKind::Usage, "no function '" + name + "' in the compiled unit");
  }

  py::dict signature(const std::string& name) const {
    const ir::Function& f = function(name);
    py::list inputs, outputs;
    for (const ir::Value* v : f.body->inputs()) inputs.append(v->name());
    for (const ir::Value* v : f.body->outputs()) outputs.append(v->name());
    py::dict types;
    for (const auto& [k, t] : attribute_types(f)) types[py::str(k)] = ir::attr_type_name(t);
    return py::dict("inputs"_a = inputs, "outputs"_a = outputs, "attributes"_a = f.attributes,
                    "attribute_types"_a = types, "domain"_a = f.domain);
  }

  // Eager call: inputs positional (None = omitted), attributes by name.
  py::tuple call(const std::string& name, const py::list& inputs, const py::dict& attrs,
                 bool trace) {
    const ir::Function& f = function(name);
    auto cached = attr_types_.find(name);
    if (cached == attr_types_.end()) cached = attr_types_.emplace(name, attribute_types(f)).first;
    const auto& types = cached->second;
    std::vector<eval::Value> in;
    for (size_t i = 0; i < py::len(inputs); ++i) {
      std::string what =
          "input '" +
          (i < f.body->inputs().size() ? f.body->inputs()[i]->name() : std::to_string(i)) + "'";
      const ir::Type& t = i < f.body->inputs().size() ? f.body->inputs()[i]->type() : ir::Type();
      in.push_back(value_from_python(inputs[i], t, what));
    }
    std::vector<ir::Attr> at;
    for (auto kv : attrs) {
      std::string k = kv.first.cast<std::string>();
      auto it = types.find(k);
      at.push_back(
          attr_from_python(k, it == types.end() ? ir::AttrType::Undefined : it->second, kv.second));
    }
    std::vector<eval::Value> out;
    std::vector<TraceRecord> records;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mu_);
      // A traced call runs every node on its own (no fused groups or
      // chains), so that the trace records each node with its values.
      std::unique_ptr<eval::Session>& session = trace ? traced_session_ : session_;
      if (!session) {
        eval::SessionOptions so;
        so.fuse = !trace;
        so.trace_enter = [this](const ir::Node& n, int) { stack_.push_back(&n); };
        so.trace = [this](const eval::TraceEvent& e) {
          if (!stack_.empty()) stack_.pop_back();
          if (!records_) return;
          TraceRecord r{e.node.op_type(), e.node.domain(), e.node.name(), e.depth, {}, {}, {}, {},
                        where(&e.node)};
          for (size_t i = 0; i < e.inputs.size(); ++i) {
            r.input_names.push_back(e.node.input(i) ? e.node.input(i)->name() : "");
            r.inputs.push_back(e.inputs[i] ? *e.inputs[i] : eval::Value());
          }
          for (size_t i = 0; i < e.outputs.size(); ++i) {
            r.output_names.push_back(e.node.output(i) ? e.node.output(i)->name() : "");
            r.outputs.push_back(e.outputs[i]);
          }
          records_->push_back(std::move(r));
        };
        session = std::make_unique<eval::Session>(*model_, std::move(so));
      }
      stack_.clear();
      records_ = trace ? &records : nullptr;
      try {
        out = session->run_function(f, in, at);
      } catch (const Error& e) {
        records_ = nullptr;
        std::string msg = e.message();
        // The innermost node that failed, and the innermost one with a script line.
        std::string at_line;
        for (auto it = stack_.rbegin(); it != stack_.rend() && at_line.empty(); ++it) {
          at_line = where(*it);
        }
        std::string node = stack_.empty() ? e.where().node
                                          : "node '" + stack_.back()->display_name() + "' (" +
                                                stack_.back()->op_type() + ")";
        std::string text = name + ": " + (node.empty() ? "" : node + ": ") + msg;
        if (!at_line.empty()) text += "\n  at " + at_line;
        throw Error(e.kind(), text);
      }
      records_ = nullptr;
    }
    py::list outs;
    for (const eval::Value& v : out) outs.append(value_to_python(v));
    py::object tr = py::none();
    if (trace) {
      py::list l;
      for (const TraceRecord& r : records) {
        py::list ins, os;
        for (const auto& v : r.inputs) ins.append(value_to_python(v));
        for (const auto& v : r.outputs) os.append(value_to_python(v));
        l.append(py::dict("op"_a = r.op, "domain"_a = r.domain, "node"_a = r.node,
                          "depth"_a = r.depth, "input_names"_a = r.input_names,
                          "output_names"_a = r.output_names, "inputs"_a = ins, "outputs"_a = os,
                          "where"_a = r.where));
      }
      tr = l;
    }
    return py::make_tuple(outs, tr);
  }

 private:
  // "file.py:12: the source line" for a node the compiler recorded.
  std::string where(const ir::Node* n) const {
    auto span = env_->node_span(n);
    if (!span) return "";
    script::SourceLocation at = env_->locate(*span);
    std::string text = at.text;
    size_t first = text.find_first_not_of(" \t");
    return at.file + ":" + std::to_string(at.line) + ": " +
           (first == std::string::npos ? "" : text.substr(first));
  }

  std::shared_ptr<script::Environment> env_;
  std::vector<script::Diagnostic> diagnostics_;
  ModelPtr model_;
  std::mutex mu_;
  std::unique_ptr<eval::Session> session_;         // fused groups and chains
  std::unique_ptr<eval::Session> traced_session_;  // every node on its own
  std::vector<const ir::Node*> stack_;
  std::vector<TraceRecord>* records_ = nullptr;
  std::map<std::string, std::map<std::string, ir::AttrType>> attr_types_;  // under the GIL
};

std::unique_ptr<Unit> compile_unit(const py::list& blocks, const std::string& entry,
                                   bool functions_only, std::optional<int64_t> opset,
                                   std::optional<py::tuple> default_opset) {
  std::map<std::string, std::shared_ptr<const script::SourceFile>> files;
  std::vector<script::FunctionBlock> fbs;
  for (py::handle h : blocks) {
    py::tuple b = h.cast<py::tuple>();
    std::string file = b[0].cast<std::string>();
    auto& sf = files[file];
    if (!sf) sf = std::make_shared<script::SourceFile>(file, b[1].cast<std::string>());
    script::FunctionBlock fb;
    fb.file = sf;
    fb.first_line = b[2].cast<uint32_t>();
    fb.last_line = b[3].cast<uint32_t>();
    for (auto kv : b[4].cast<py::dict>()) {
      fb.names.emplace(kv.first.cast<std::string>(), external(kv.second.cast<py::tuple>()));
    }
    fbs.push_back(std::move(fb));
  }
  std::optional<script::OpsetRef> dflt;
  if (default_opset)
    dflt = script::OpsetRef{(*default_opset)[0].cast<std::string>(),
                            (*default_opset)[1].cast<int64_t>()};
  auto env = std::make_shared<script::Environment>(std::move(fbs), dflt);
  script::CompileOptions options;
  options.entry = entry;
  options.functions_only = functions_only;
  options.opset = opset;
  script::CompileResult r;
  {
    // One compile at a time: other threads keep running Python meanwhile.
    static std::mutex compile_mu;
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(compile_mu);
    r = env->compile(options);
  }
  return std::make_unique<Unit>(env, std::move(r));
}

}  // namespace

void bind_script(py::module_& m) {
  py::class_<Unit>(m, "Unit", "A compiled set of script functions (internal; see oxs.script).")
      .def_property_readonly("ok", &Unit::ok)
      .def_property_readonly("rendered", &Unit::rendered)
      .def_property_readonly("diagnostics", &Unit::diagnostics)
      .def_property_readonly("model", &Unit::model)
      .def("signature", &Unit::signature)
      .def("call", &Unit::call, "name"_a, "inputs"_a, "attrs"_a, "trace"_a = false);
  m.def("opset_range", [](const std::string& domain) -> py::object {
    auto lo = schema::earliest_opset(domain);
    auto hi = schema::latest_opset(domain);
    if (!lo || !hi) return py::none();
    return py::make_tuple(*lo, *hi);
  });
  m.def("compile_unit", &compile_unit, "blocks"_a, "entry"_a, "functions_only"_a, "opset"_a,
        "default_opset"_a);
}

}  // namespace oxs::python
