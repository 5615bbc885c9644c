// The rewriter from Python: oxs.optimize runs a pass pipeline (the default
// one, or named passes) on a copy of a model, optionally verifying every pass
// on the evaluator, and returns the optimized model with statistics per
// pass. The pipeline, passes and verification are the core's (rewrite/),
// exactly what `oxs opt` runs.
#include <pybind11/stl.h>

#include "oxs/ir/error.h"
#include "oxs/python/bind/bind.h"
#include "oxs/rewrite/core/clone.h"
#include "oxs/rewrite/passes/manager.h"
#include "oxs/rewrite/passes/standard.h"

using namespace pybind11::literals;

namespace oxs::python {

namespace {

py::dict stats_to_python(const rewrite::PassStats& s) {
  py::dict applications;
  for (const auto& [rule, n] : s.applications) applications[py::str(rule)] = n;
  py::list notes;
  for (const auto& n : s.notes) notes.append(n);
  return py::dict("pass"_a = s.pass, "nodes_before"_a = s.nodes_before,
                  "nodes_after"_a = s.nodes_after, "applications"_a = applications,
                  "total_applications"_a = s.total_applications, "seconds"_a = s.seconds,
                  "cap_reached"_a = s.cap_reached, "notes"_a = notes);
}

// Feeds for verification: {input name: value}, typed by the model's inputs.
std::map<std::string, eval::Value> given_inputs(const ir::Model& m, const py::dict& inputs) {
  std::map<std::string, eval::Value> out;
  for (auto kv : inputs) {
    std::string name = py::str(kv.first);
    const ir::Value* decl = nullptr;
    for (const ir::Value* v : m.graph->inputs()) {
      if (v->name() == name) decl = v;
    }
    if (!decl) {
      std::string known;
      for (const ir::Value* v : m.graph->inputs()) known += (known.empty() ? "" : ", ") + v->name();
      throw Error(ErrorKind::Usage,
                  "optimize: the model has no input '" + name + "' (inputs: " + known + ")");
    }
    out.emplace(name, value_from_python(kv.second, decl->type(), "input '" + name + "'"));
  }
  return out;
}

}  // namespace

void bind_rewrite(py::module_& m) {
  m.def("list_passes", [] {
    py::list out;
    for (const rewrite::PassInfo& p : rewrite::pass_catalog()) {
      out.append(py::make_tuple(p.name, p.summary));
    }
    return out;
  });
  m.def("default_pipeline", [] { return rewrite::default_pipeline(); });
  m.def(
      "optimize",
      [](py::handle model, const std::optional<std::vector<std::string>>& passes,
         const std::string& verify, const py::dict& inputs, uint64_t seed,
         const std::map<std::string, int64_t>& dims, bool bisect, bool verify_ir,
         py::handle functions) {
        ModelPtr src = model_of(model);
        std::vector<std::unique_ptr<rewrite::Pass>> list;
        for (const auto& spec : passes ? *passes : rewrite::default_pipeline()) {
          list.push_back(rewrite::make_pass_from_spec(spec, "optimize(passes=...)"));
        }
        if (!functions.is_none()) {
          // A copy: the passes run without the GIL, and Python keeps the original.
          auto library =
              std::make_shared<const ir::Model>(rewrite::clone_model(*model_of(functions)));
          if (rewrite::give_functions_to_outline(list, library) == 0) {
            throw Error(ErrorKind::Usage,
                        "optimize: functions= gives functions to the outline pass, which is not "
                        "among the passes; add it: passes=['outline', 'dce']");
          }
        }
        rewrite::PipelineOptions o;
        if (!verify.empty()) o.verify = rewrite::VerifySpec::parse(verify);
        o.inputs.given = given_inputs(*src, inputs);
        o.inputs.seed = seed;
        o.inputs.dims = dims;
        o.bisect = bisect;
        o.verify_ir_each_pass = o.verify_ir_each_pass || verify_ir;
        std::shared_ptr<ir::Model> out;
        std::vector<rewrite::PassStats> stats;
        {
          py::gil_scoped_release nogil;
          out = std::make_shared<ir::Model>(rewrite::clone_model(*src));
          stats = rewrite::run_pipeline(*out, list, o);
        }
        py::list py_stats;
        for (const auto& s : stats) py_stats.append(stats_to_python(s));
        return py::make_tuple(wrap_model(std::move(out)), py_stats);
      },
      "model"_a, "passes"_a, "verify"_a, "inputs"_a, "seed"_a, "dims"_a, "bisect"_a, "verify_ir"_a,
      "functions"_a);
}

}  // namespace oxs::python
