// outline: un-inlining, the inverse of `inline`. Every model-local function
// becomes a pattern (its body: inputs are variables, Constants match by
// value, attributes must be equal); each place in the main graph that
// computes that body becomes a call of the function. The matched nodes'
// intermediate values must not be read elsewhere (else they stay and nothing
// is replaced). Verification (`--verify equality`) checks the calls compute
// what the nodes did.
//
// A function is used as a pattern only when that is sound and simple:
// one output (the call goes where its producer was), no attribute
// parameters, every input used by the body, no subgraphs, the ai.onnx
// version of the model (the same ops mean the same thing), a domain the
// model imports. The others are listed in the pass's notes with the reason.
// Only the main graph is searched: a function body searched for itself
// would become a call of itself.
//
// Functions can also come from a library (another model's functions, e.g.
// `oxs opt --functions LIB.onnx`): the first place that computes one adds it
// to the model (and its domain to the imports); one whose key the model
// already uses is skipped.
#include <fmt/format.h>

#include <set>

#include "oxs/ir/error.h"
#include "oxs/rewrite/passes/standard.h"
#include "oxs/rewrite/pattern/from_body.h"

namespace oxs::rewrite {
namespace {

// "" when `f` can be a pattern for calls in `m`'s main graph, else why not.
std::string unusable(const ir::Function& f, const ir::Model& m, bool from_library) {
  if (f.body->outputs().size() != 1) return "it has more than one output";
  if (!f.attributes.empty()) return "it has attribute parameters";
  if (f.body->num_nodes() == 0) return "its body is empty";
  std::set<const ir::Value*> read;
  for (const ir::Node* n : f.body->nodes()) {
    if (!n->subgraphs().empty()) return "its body has subgraphs";
    for (size_t i = 0; i < n->num_inputs(); ++i) read.insert(n->input(i));
  }
  for (const ir::Value* in : f.body->inputs()) {
    if (!read.count(in)) return fmt::format("its input '{}' is not used by the body", in->name());
  }
  const ir::Value* out = f.body->outputs()[0];
  if (!out->producer()) return "its output is one of its inputs";
  if (out->producer()->op_type() == "Constant" && out->producer()->domain().empty())
    return "its output is a constant";
  auto callee = ir::find_opset(f.opset_imports, "");
  auto caller = ir::find_opset(m.opset_imports, "");
  if (callee && callee != caller) {
    return fmt::format("its body imports ai.onnx {} and the model {}", *callee, caller.value_or(0));
  }
  if (!from_library && !ir::find_opset(m.opset_imports, f.domain)) {
    return fmt::format("the model does not import its domain '{}'", f.domain);
  }
  return "";
}

std::unique_ptr<ir::Function> copy_function(const ir::Function& f) {
  auto c = std::make_unique<ir::Function>(f.domain, f.name);
  c->overload = f.overload;
  c->doc_string = f.doc_string;
  c->opset_imports = f.opset_imports;
  c->body = f.body->clone();
  return c;
}

// `library`: the function comes from a library and is added to the model
// when first used.
std::unique_ptr<Rule> outline_rule(const ir::Function& f, bool library) {
  std::string domain = f.domain, name = f.name;
  std::vector<std::string> inputs;
  for (const ir::Value* in : f.body->inputs()) inputs.push_back(in->name());
  return std::make_unique<PatternRule>(
      fmt::format("outline.{}.{}", f.domain, f.name), pattern_from_body(*f.body), nullptr,
      [domain, name, inputs, library, &f](RewriteContext& ctx) {
        if (library)
          ctx.rewriter().ensure_function(domain, name, [&f] { return copy_function(f); });
        std::vector<ir::Value*> args;
        for (const auto& in : inputs) args.push_back(ctx.match().var(in));
        return std::vector<ir::Value*>{ctx.op(name, args, {}, domain)};
      });
}

class OutlinePass : public Pass {
 public:
  explicit OutlinePass(std::shared_ptr<const ir::Model> library)
      : Pass("outline"), library_(std::move(library)) {}
  std::string summary() const override {
    return "un-inlining: subgraphs computing a model-local function become calls of it";
  }
  PassKind kind() const override { return PassKind::Transformation; }
  void run(ir::Model& model, Rewriter& rw, PassStats& stats) override {
    std::vector<std::unique_ptr<Rule>> rules;
    auto add = [&](const ir::Function& f, bool library) {
      std::string why = unusable(f, model, library);
      if (why.empty() && library && model.find_function(f.domain, f.name)) {
        why = "the model has a function of that name";
      }
      if (why.empty()) {
        try {
          rules.push_back(outline_rule(f, library));
        } catch (const Error& e) {
          why = e.message();
        }
      }
      if (!why.empty()) {
        stats.notes.push_back(fmt::format("{}{}.{} not used as a pattern: {}",
                                          library ? "library function " : "", f.domain, f.name,
                                          why));
      }
    };
    for (const auto& f : model.functions) add(*f, false);
    if (library_) {
      for (const auto& f : library_->functions) add(*f, true);
    }
    // Larger bodies first: a function that contains another's body wins.
    std::stable_sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) {
      return static_cast<const PatternRule&>(*a).pattern().nodes().size() >
             static_cast<const PatternRule&>(*b).pattern().nodes().size();
    });
    std::vector<Rule*> list;
    for (size_t i = 0; i < rules.size(); ++i) {
      rules[i]->set_benefit(int(rules.size() - i));
      list.push_back(rules[i].get());
    }
    DriverOptions o;
    o.recurse = false;
    DriverResult r = apply_rules(model, list, rw, o);
    stats.cap_reached = r.cap_reached;
  }

 private:
  std::shared_ptr<const ir::Model> library_;
};

}  // namespace

std::unique_ptr<Pass> make_outline_pass(const PassOptions& o) {
  return make_outline_pass(o, nullptr);
}

std::unique_ptr<Pass> make_outline_pass(const PassOptions& o,
                                        std::shared_ptr<const ir::Model> library) {
  check_options("outline", o, {});
  return std::make_unique<OutlinePass>(std::move(library));
}

size_t give_functions_to_outline(std::vector<std::unique_ptr<Pass>>& passes,
                                 const std::shared_ptr<const ir::Model>& library) {
  size_t outlines = 0;
  for (auto& p : passes) {
    if (p->name() != "outline") continue;
    p = make_outline_pass({}, library);
    ++outlines;
  }
  return outlines;
}

}  // namespace oxs::rewrite
