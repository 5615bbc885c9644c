#include "oxs/rewrite/pattern/rule.h"

#include "oxs/ir/error.h"

namespace oxs::rewrite {

std::vector<ir::Value*> RewriteContext::ops(std::string op_type, std::vector<ir::Value*> inputs,
                                            std::vector<ir::Attr> attrs, size_t num_outputs,
                                            std::string domain) {
  return rw_
      .create_node(root(), std::move(op_type), std::move(inputs), std::move(attrs), num_outputs,
                   std::move(domain))
      ->outputs();
}

PatternRule::PatternRule(std::string name, Pattern pattern, CheckFn check, RewriteFn rewrite,
                         MatchOptions options)
    : Rule(std::move(name)),
      pattern_(std::move(pattern)),
      check_(std::move(check)),
      rewrite_(std::move(rewrite)),
      options_(options) {
  if (pattern_.root() < 0) {
    throw Error(ErrorKind::Usage, "rule " + this->name() + ": the pattern has no outputs");
  }
}

std::vector<std::string> PatternRule::root_ops() const {
  return {pattern_.root_node().op_type};
}

std::string PatternRule::root_domain() const {
  return pattern_.root_node().domain;
}

bool PatternRule::try_apply(ir::Node& node, Rewriter& rw, std::string* why) {
  Match& m = match_;  // reused: no allocation per attempt
  if (!match_pattern(pattern_, node, m, why, options_)) return false;
  if (check_) {
    Verdict v = check_(m, rw);
    if (!v.ok) {
      if (why) *why = "check failed: " + v.why;
      return false;
    }
  }
  if (!rw.begin(name(), node)) {
    if (why) *why = "matched, but the rewrite budget is spent";
    return false;
  }
  RewriteContext ctx(rw, m);
  std::vector<ir::Value*> repl;
  try {
    repl = rewrite_(ctx);
  } catch (...) {
    rw.end();
    throw;
  }
  const auto& outs = pattern_.outputs();
  if (repl.empty()) {
    rw.end();
    if (why) *why = "the rewrite declined";
    return false;
  }
  if (repl.size() != outs.size()) {
    rw.end();
    throw Error(ErrorKind::Internal, "rule " + name() + " returned " + std::to_string(repl.size()) +
                                         " values for " + std::to_string(outs.size()) +
                                         " pattern outputs");
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    ir::Value* old = m.values[size_t(outs[i])];
    if (repl[i] && repl[i] != old) rw.replace_all_uses(old, repl[i]);
  }
  // Matched nodes left without uses die (the root first, then inwards).
  rw.erase_if_dead(*m.root());
  for (ir::Node* n : m.nodes) {
    if (n && !n->is_erased()) rw.erase_if_dead(*n);
  }
  rw.end();
  return true;
}

std::unique_ptr<PatternRule> make_rule(
    std::string name, const std::function<std::vector<PVal>(Pattern&, OpBuilder&)>& build,
    CheckFn check, RewriteFn rewrite, MatchOptions options) {
  Pattern p;
  OpBuilder op(p);
  p.set_outputs(build(p, op));
  return std::make_unique<PatternRule>(std::move(name), std::move(p), std::move(check),
                                       std::move(rewrite), options);
}

}  // namespace oxs::rewrite
