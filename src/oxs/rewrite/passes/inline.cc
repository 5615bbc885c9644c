// inline: every call of a model-local function becomes the function's body,
// in place (formal inputs bound to the call's inputs, attribute references
// bound to the call's attributes), through the rewriter, so calls made by an
// inlined body are inlined in turn (the driver's cap stops recursion).
// Not inlined, and `--explain` says why: bodies with subgraphs (their
// outer-scope references would need remapping), and functions importing
// ai.onnx at another version than the caller's graph. `dce` then drops the
// functions nobody calls.
#include <fmt/format.h>

#include <unordered_map>

#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

bool inline_call(ir::Node& call, Rewriter& rw, std::string* why) {
  const ir::Function* f = rw.model().find_function(call.domain(), call.op_type());
  if (!f) return no(why, "not a call of a model-local function");
  for (const ir::Node* n : f->body->nodes()) {
    if (!n->subgraphs().empty()) return no(why, "the body has subgraphs");
  }
  auto callee = ir::find_opset(f->opset_imports, "");
  int64_t caller = rw.opset(*call.graph());
  if (callee && *callee != caller) {
    return no(why, fmt::format("the body imports ai.onnx {} and the caller {}", *callee, caller));
  }
  if (call.num_inputs() > f->body->inputs().size() ||
      call.num_outputs() > f->body->outputs().size()) {
    return no(why, "the call has more inputs or outputs than the function");
  }
  return apply_at(rw, "inline", call, why, [&] {
    std::unordered_map<const ir::Value*, ir::Value*> map;
    for (size_t i = 0; i < f->body->inputs().size(); ++i) {
      map[f->body->inputs()[i]] = i < call.num_inputs() ? call.input(i) : nullptr;
    }
    for (const ir::Node* n : f->body->nodes()) {
      std::vector<ir::Value*> ins;
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        ins.push_back(n->input(i) ? map.at(n->input(i)) : nullptr);
      }
      std::vector<ir::Attr> attrs;
      for (const ir::Attr& a : n->attrs()) {
        if (!a.is_reference()) {
          attrs.push_back(a.clone());
          continue;
        }
        // A reference takes the caller's value; an unset one is dropped
        // (the op's default applies, as ONNX says).
        if (const ir::Attr* given = call.attr(a.ref_attr_name)) {
          ir::Attr bound = given->clone();
          bound.name = a.name;
          attrs.push_back(std::move(bound));
        }
      }
      ir::Node* m =
          rw.create_node(call, n->op_type(), ins, std::move(attrs), n->num_outputs(), n->domain());
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        if (n->output(i)) map[n->output(i)] = m->output(i);
      }
    }
    for (size_t i = 0; i < call.num_outputs(); ++i) {
      if (call.output(i)) rw.replace_all_uses(call.output(i), map.at(f->body->outputs()[i]));
    }
    rw.erase_if_dead(call);
  });
}

}  // namespace

std::unique_ptr<Pass> make_inline_pass(const PassOptions& o) {
  check_options("inline", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(
      std::make_unique<FunctionRule>("inline", std::vector<std::string>{}, inline_call));
  return std::make_unique<RuleSetPass>("inline", "function inlining", std::move(rules));
}

}  // namespace oxs::rewrite
