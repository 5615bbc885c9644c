#include "oxs/rewrite/driver/explain.h"

#include <fmt/format.h>

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/rewrite/driver/greedy.h"
#include "oxs/rewrite/passes/pass.h"

namespace oxs::rewrite {

ir::Node* find_node(const ir::Model& model, const std::string& name) {
  ir::Node* by_output = nullptr;
  for (ir::Node* n : all_nodes(model)) {
    if (n->name() == name) return n;
    for (size_t i = 0; i < n->num_outputs() && !by_output; ++i) {
      if (n->output(i) && n->output(i)->name() == name) by_output = n;
    }
  }
  return by_output;
}

std::string explain(ir::Model& model, Rule& rule, ir::Node& node) {
  Rewriter rw(model);
  rw.set_budget(0);
  std::string why;
  std::string head = fmt::format("rule {} at node {}", rule.name(), ir::print_node_line(node));
  auto ops = rule.root_ops();
  bool candidate = ops.empty();
  for (const auto& op : ops) candidate = candidate || op == node.op_type();
  if (!candidate) {
    return fmt::format("{}: does not apply: the rule starts from {}, not {}", head,
                       fmt::join(ops, "/"), node.op_type());
  }
  rule.try_apply(node, rw, &why);
  if (rw.applications() == 0 && why.find("budget is spent") != std::string::npos) {
    return head + ": applies";
  }
  return head + ": does not apply: " + why;
}

std::string explain(ir::Model& model, const std::string& rule, const std::string& node) {
  ir::Node* n = find_node(model, node);
  if (!n) throw Error(ErrorKind::Usage, "the model has no node (or value) named '" + node + "'");
  std::vector<std::string> names;
  for (const PassInfo& info : pass_catalog()) {
    auto pass = info.make({});
    auto* rs = dynamic_cast<RuleSetPass*>(pass.get());
    if (!rs) continue;
    for (const auto& r : rs->rules()) {
      if (r->name() == rule) return explain(model, *r, *n);
      names.push_back(r->name());
    }
  }
  auto near = infer::suggest(rule, names);
  throw Error(ErrorKind::Usage,
              fmt::format("unknown rule '{}'{}; rules: {}", rule,
                          near.empty() ? "" : " (did you mean '" + near[0] + "'?)",
                          fmt::join(names, ", ")));
}

}  // namespace oxs::rewrite
