// The pass framework (after onnx-passes): analyses (read the model, report),
// annotations (add information, e.g. types), transformations (change the
// model through the Rewriter), rule-set passes (a set of rules run by the
// greedy driver) and composed passes (a sequence). Each pass has a name, a
// one-line summary, pre- and post-conditions, says whether it may change the
// model, and leaves statistics. Passes do no file I/O and print nothing.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/model.h"
#include "oxs/rewrite/core/rewriter.h"
#include "oxs/rewrite/driver/greedy.h"
#include "oxs/rewrite/pattern/rule.h"

namespace oxs::rewrite {

enum class PassKind { Analysis, Annotation, Transformation, RuleSet, Composed };
const char* pass_kind_name(PassKind k);

// A condition on the model; returns "" when it holds, else what is wrong.
struct Condition {
  std::string name;
  std::function<std::string(const ir::Model&)> test;
};

struct PassStats {
  std::string pass;
  size_t nodes_before = 0;
  size_t nodes_after = 0;
  // Applications per rule (a transformation's changes count under its name).
  std::map<std::string, size_t> applications;
  size_t total_applications = 0;
  double seconds = 0;
  bool cap_reached = false;
  // Analyses: what they found, one line each.
  std::vector<std::string> notes;
};

class Pass {
 public:
  virtual ~Pass() = default;
  const std::string& name() const { return name_; }
  virtual std::string summary() const = 0;
  virtual PassKind kind() const = 0;
  bool changes_model() const { return kind() != PassKind::Analysis; }
  virtual std::vector<Condition> preconditions() const { return {}; }
  virtual std::vector<Condition> postconditions() const { return {}; }
  // Runs the pass; every change goes through `rw`. Notes go to stats.
  virtual void run(ir::Model& model, Rewriter& rw, PassStats& stats) = 0;

 protected:
  explicit Pass(std::string name) : name_(std::move(name)) {}

 private:
  std::string name_;
};

// A pass made of rules, run to a fixed point by the greedy driver.
class RuleSetPass : public Pass {
 public:
  RuleSetPass(std::string name, std::string summary, std::vector<std::unique_ptr<Rule>> rules)
      : Pass(std::move(name)), summary_(std::move(summary)), rules_(std::move(rules)) {}
  std::string summary() const override { return summary_; }
  PassKind kind() const override { return PassKind::RuleSet; }
  void run(ir::Model& model, Rewriter& rw, PassStats& stats) override;
  const std::vector<std::unique_ptr<Rule>>& rules() const { return rules_; }
  DriverOptions driver;

 private:
  std::string summary_;
  std::vector<std::unique_ptr<Rule>> rules_;
};

// A pass that runs others in order.
class ComposedPass : public Pass {
 public:
  ComposedPass(std::string name, std::string summary, std::vector<std::unique_ptr<Pass>> passes)
      : Pass(std::move(name)), summary_(std::move(summary)), passes_(std::move(passes)) {}
  std::string summary() const override { return summary_; }
  PassKind kind() const override { return PassKind::Composed; }
  void run(ir::Model& model, Rewriter& rw, PassStats& stats) override;

 private:
  std::string summary_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

// Options of a pass by name (from --passes name:key=value or the config).
using PassOptions = std::map<std::string, std::string>;

// One entry of the catalog of standard passes.
struct PassInfo {
  std::string name;
  std::string summary;
  std::function<std::unique_ptr<Pass>(const PassOptions&)> make;
};

// Every standard pass, by name.
const std::vector<PassInfo>& pass_catalog();
// A standard pass; throws oxs::Error (Usage) for an unknown name (with a
// suggestion) or an option it does not take.
std::unique_ptr<Pass> make_pass(const std::string& name, const PassOptions& options = {});
// The names of the default pipeline: cleanup, folding, CSE and fusions that
// keep the model's opset.
std::vector<std::string> default_pipeline();
// A pass from "NAME" or "NAME:KEY=VALUE:KEY=VALUE" (`--passes`, Python's
// optimize(passes=...)); `what` names the source in errors.
std::unique_ptr<Pass> make_pass_from_spec(const std::string& spec, const std::string& what);

// Total node count of a model (main graph, subgraphs, function bodies).
size_t count_nodes(const ir::Model& m);

// Throws oxs::Error (Usage) naming `pass` when `options` has a key that is
// not in `known`. Reads a number option with a default.
void check_options(const std::string& pass, const PassOptions& options,
                   const std::vector<std::string>& known);
int64_t int_option(const std::string& pass, const PassOptions& options, const std::string& key,
                   int64_t fallback);

}  // namespace oxs::rewrite
