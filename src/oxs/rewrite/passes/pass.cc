#include "oxs/rewrite/passes/pass.h"

#include <fmt/format.h>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {

const char* pass_kind_name(PassKind k) {
  switch (k) {
    case PassKind::Analysis:
      return "analysis";
    case PassKind::Annotation:
      return "annotation";
    case PassKind::Transformation:
      return "transformation";
    case PassKind::RuleSet:
      return "rule set";
    case PassKind::Composed:
      return "composed";
  }
  return "?";
}

void RuleSetPass::run(ir::Model& model, Rewriter& rw, PassStats& stats) {
  std::vector<Rule*> rules;
  for (const auto& r : rules_) rules.push_back(r.get());
  DriverResult r = apply_rules(model, rules, rw, driver);
  stats.cap_reached = stats.cap_reached || r.cap_reached;
  if (r.cap_reached) {
    stats.notes.push_back(fmt::format("stopped at the cap of applications ({})", r.applications));
  }
}

void ComposedPass::run(ir::Model& model, Rewriter& rw, PassStats& stats) {
  for (auto& p : passes_) p->run(model, rw, stats);
}

namespace {
size_t count_graph(const ir::Graph& g) {
  size_t n = g.num_nodes();
  for (const ir::Node* node : g.nodes()) {
    for (const ir::Attr& a : node->attrs()) {
      if (a.g) n += count_graph(*a.g);
      for (const auto& sub : a.graphs) n += count_graph(*sub);
    }
  }
  return n;
}
}  // namespace

size_t count_nodes(const ir::Model& m) {
  size_t n = count_graph(*m.graph);
  for (const auto& f : m.functions) n += count_graph(*f->body);
  return n;
}

void check_options(const std::string& pass, const PassOptions& options,
                   const std::vector<std::string>& known) {
  for (const auto& [k, v] : options) {
    bool ok = false;
    for (const auto& name : known) ok = ok || name == k;
    if (!ok) {
      throw Error(ErrorKind::Usage,
                  known.empty() ? fmt::format("pass '{}' takes no options (got '{}')", pass, k)
                                : fmt::format("pass '{}' has no option '{}' (it takes: {})", pass,
                                              k, fmt::join(known, ", ")));
    }
  }
}

int64_t int_option(const std::string& pass, const PassOptions& options, const std::string& key,
                   int64_t fallback) {
  auto it = options.find(key);
  if (it == options.end()) return fallback;
  try {
    size_t used = 0;
    int64_t v = std::stoll(it->second, &used);
    if (used == it->second.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw Error(
      ErrorKind::Usage,
      fmt::format("pass '{}': option {}={} must be a non-negative integer", pass, key, it->second));
}

const std::vector<PassInfo>& pass_catalog() {
  static const std::vector<PassInfo> catalog = {
      {"infer", "type and shape inference (so that rules see ranks and types)", make_infer_pass},
      {"dce", "remove nodes nobody reads, unused initializers and unused functions",
       make_dead_code_pass},
      {"noop", "remove Identity and no-op nodes (Dropout in inference, Cast to the same type, ...)",
       make_noop_pass},
      {"fold", "evaluate nodes whose inputs are all constant (size limit; never random ops)",
       make_fold_pass},
      {"shape-fold", "Shape/Size of static shapes and Gather of known dims to constants",
       make_shape_fold_pass},
      {"cse", "merge nodes computing the same thing from the same inputs", make_cse_pass},
      {"algebraic", "x*1, x+0, x-0, x/1, Neg(Neg(x)), Not(Not(x)) to x", make_algebraic_pass},
      {"chains", "collapse Transpose/Reshape/Cast chains", make_chain_collapse_pass},
      {"fuse-gemm", "MatMul + Add of 2-D operands to Gemm", make_fuse_gemm_pass},
      {"fuse-layernorm",
       "the decomposed LayerNormalization pattern to LayerNormalization (opset >= 17)",
       make_fuse_layernorm_pass},
      {"fuse-gelu", "GELU (erf and tanh forms) to Gelu (opset >= 20) or a local function",
       make_fuse_gelu_pass},
      {"fuse-attention",
       "scaled dot-product attention to a local function (not in the default pipeline)",
       make_fuse_attention_pass},
      {"inline", "inline calls of model-local functions (then dce drops unused ones)",
       make_inline_pass},
      {"outline", "un-inlining: subgraphs that compute a model-local function become calls of it",
       make_outline_pass},
      {"break-adds",
       "(a demonstration of a wrong pass) Add(x, y) with x != y becomes Add(x, x); "
       "verification catches it",
       make_break_adds_pass},
  };
  return catalog;
}

std::unique_ptr<Pass> make_pass(const std::string& name, const PassOptions& options) {
  for (const PassInfo& p : pass_catalog()) {
    if (p.name == name) return p.make(options);
  }
  std::vector<std::string> names;
  for (const PassInfo& p : pass_catalog()) names.push_back(p.name);
  auto near = infer::suggest(name, names);
  throw Error(ErrorKind::Usage,
              fmt::format("unknown pass '{}'{}; `oxs opt --list` shows them all", name,
                          near.empty() ? "" : " (did you mean '" + near[0] + "'?)"));
}

std::unique_ptr<Pass> make_pass_from_spec(const std::string& spec, const std::string& what) {
  if (spec.empty()) throw Error(ErrorKind::Usage, what + " has an empty pass name");
  size_t colon = spec.find(':');
  PassOptions options;
  while (colon != std::string::npos) {
    size_t next = spec.find(':', colon + 1);
    std::string kv = spec.substr(colon + 1, next == std::string::npos ? next : next - colon - 1);
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorKind::Usage, fmt::format("{}: pass option '{}' of '{}' must look like "
                                                "KEY=VALUE",
                                                what, kv, spec));
    }
    options[kv.substr(0, eq)] = kv.substr(eq + 1);
    colon = next;
  }
  return make_pass(spec.substr(0, spec.find(':')), options);
}

// The first noop and algebraic need no types for what they remove most
// (Identity, Dropout, x+0 and x*1 with a scalar constant), so they run
// before inference and inference sees the smaller graph; their rules that
// need types (Cast to the same type, Reshape to the same shape, x*c with c
// of rank > 0) get their turn after it.
std::vector<std::string> default_pipeline() {
  return {"noop",   "algebraic", "infer",     "noop",           "algebraic", "shape-fold", "fold",
          "chains", "cse",       "fuse-gemm", "fuse-layernorm", "fuse-gelu", "noop",       "dce"};
}

}  // namespace oxs::rewrite
