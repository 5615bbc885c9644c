// Rules: what the greedy driver applies. A Rule names the op types it can
// start from (the driver's op-type index visits only those nodes) and tries
// to rewrite at one node through the Rewriter. PatternRule is the common
// kind: a Pattern, an optional check on the match, and a rewrite that
// builds the replacement values. A rule can also say why it did not apply
// at a node (explain), which `oxs opt --explain` prints.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "oxs/rewrite/core/rewriter.h"
#include "oxs/rewrite/pattern/matcher.h"
#include "oxs/rewrite/pattern/pattern.h"

namespace oxs::rewrite {

// The outcome of a check: holds, or does not with a reason.
struct Verdict {
  bool ok = true;
  std::string why;
  static Verdict yes() { return {}; }
  static Verdict no(std::string why) { return {false, std::move(why)}; }
};

class Rule {
 public:
  virtual ~Rule() = default;
  const std::string& name() const { return name_; }
  // Op types (ai.onnx unless `domain()` says otherwise) a rewrite can start
  // from; empty means every node (used by node-wide rules such as folding).
  virtual std::vector<std::string> root_ops() const = 0;
  virtual std::string root_domain() const { return ""; }
  // Higher first among the rules of the same op type.
  int benefit() const { return benefit_; }
  void set_benefit(int b) { benefit_ = b; }
  // Rewrites at `node` if the rule applies (through rw, between rw.begin()
  // and rw.end()); returns true if it changed the model. When it does not
  // apply and `why` is not null, sets it to the first reason.
  virtual bool try_apply(ir::Node& node, Rewriter& rw, std::string* why) = 0;

 protected:
  explicit Rule(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
  int benefit_ = 1;
};

// What a rewrite function gets: the match and an emitter that creates nodes
// before the root through the rewriter.
class RewriteContext {
 public:
  RewriteContext(Rewriter& rw, const Match& m) : rw_(rw), m_(m) {}
  const Match& match() const { return m_; }
  ir::Value* operator[](PVal v) const { return m_[v]; }
  ir::Node& root() const { return *m_.root(); }
  Rewriter& rewriter() { return rw_; }
  ir::Value* op(std::string op_type, std::vector<ir::Value*> inputs,
                std::vector<ir::Attr> attrs = {}, std::string domain = {}) {
    return rw_
        .create_node(root(), std::move(op_type), std::move(inputs), std::move(attrs), 1,
                     std::move(domain))
        ->output(0);
  }
  std::vector<ir::Value*> ops(std::string op_type, std::vector<ir::Value*> inputs,
                              std::vector<ir::Attr> attrs, size_t num_outputs,
                              std::string domain = {});
  ir::Value* constant(ir::Tensor t, std::string_view base = "const") {
    return rw_.constant(root(), std::move(t), base);
  }
  int64_t opset(std::string_view domain = "") const {
    return rw_.opset(*m_.root()->graph(), domain);
  }

 private:
  Rewriter& rw_;
  const Match& m_;
};

using CheckFn = std::function<Verdict(const Match&, Rewriter&)>;
// Returns one value per pattern output (a value may be one the match bound:
// x * 1 -> x). An empty result declines the rewrite (nothing may have been
// created then).
using RewriteFn = std::function<std::vector<ir::Value*>(RewriteContext&)>;

class PatternRule : public Rule {
 public:
  PatternRule(std::string name, Pattern pattern, CheckFn check, RewriteFn rewrite,
              MatchOptions options = {});
  std::vector<std::string> root_ops() const override;
  std::string root_domain() const override;
  bool try_apply(ir::Node& node, Rewriter& rw, std::string* why) override;
  const Pattern& pattern() const { return pattern_; }

 private:
  Pattern pattern_;
  CheckFn check_;
  RewriteFn rewrite_;
  MatchOptions options_;
  Match match_;
};

// A rule written as a C++ function of the node (for rules that are not a
// fixed pattern: folding, no-op removal). The function calls rw.begin() /
// rw.end() around its changes (see apply_at).
class FunctionRule : public Rule {
 public:
  using Fn = std::function<bool(ir::Node&, Rewriter&, std::string*)>;
  FunctionRule(std::string name, std::vector<std::string> ops, Fn fn)
      : Rule(std::move(name)), ops_(std::move(ops)), fn_(std::move(fn)) {}
  std::vector<std::string> root_ops() const override { return ops_; }
  bool try_apply(ir::Node& node, Rewriter& rw, std::string* why) override {
    return fn_(node, rw, why);
  }

 private:
  std::vector<std::string> ops_;
  Fn fn_;
};

// Runs `change` as one application of `rule` at `root` (false when the
// budget is spent; then nothing runs).
template <class F>
bool apply_at(Rewriter& rw, const std::string& rule, ir::Node& root, std::string* why, F&& change) {
  if (!rw.begin(rule, root)) {
    if (why) *why = "the rewrite budget is spent";
    return false;
  }
  try {
    change();
  } catch (...) {
    rw.end();
    throw;
  }
  rw.end();
  return true;
}

// Sets *why (when not null) and returns false: `return no(why, "...")`.
inline bool no(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return false;
}

// Builds a PatternRule from a function that fills the pattern:
//   make_rule("MulByOne", [](Pattern& p, OpBuilder& op) { ... return op.Mul(x, one); }, ...)
std::unique_ptr<PatternRule> make_rule(
    std::string name, const std::function<std::vector<PVal>(Pattern&, OpBuilder&)>& build,
    CheckFn check, RewriteFn rewrite, MatchOptions options = {});

}  // namespace oxs::rewrite
