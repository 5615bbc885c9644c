#include "oxs/rewrite/passes/manager.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "oxs/ir/verifier.h"
#include "oxs/rewrite/core/clone.h"
#include "oxs/rewrite/core/op_index.h"

namespace oxs::rewrite {

namespace {

void check_conditions(const Pass& pass, const std::vector<Condition>& conds, const ir::Model& m,
                      const char* which) {
  for (const Condition& c : conds) {
    std::string r = c.test(m);
    if (!r.empty()) {
      throw Error(ErrorKind::Invalid, fmt::format("{}-condition '{}' of pass '{}' failed: {}",
                                                  which, c.name, pass.name(), r));
    }
  }
}

// `who`: "pass 'x'", or the passes since the last check.
void check_well_formed(const std::string& who, const ir::Model& m) {
  auto issues = ir::verify(m);
  if (!issues.empty()) {
    throw Error(ErrorKind::Internal,
                fmt::format("post-condition 'well-formed IR' of {} failed: {}: {}", who,
                            issues[0].where, issues[0].message));
  }
}

// Runs `pass` on a copy of `before` with a budget of `k` applications.
ir::Model replay(Pass& pass, const ir::Model& before, size_t k, bool record,
                 std::vector<Application>* log) {
  ir::Model m = clone_model(before);
  Rewriter rw(m);
  rw.set_budget(k);
  rw.set_recording(record);
  PassStats ignored;
  pass.run(m, rw, ignored);
  if (log) *log = rw.log();
  rw.collect_garbage();
  return m;
}

const OutputFigures* first_failure(const std::vector<OutputFigures>& figs) {
  for (const auto& f : figs) {
    if (!f.ok) return &f;
  }
  return nullptr;
}

}  // namespace

std::vector<PassStats> run_pipeline(ir::Model& model,
                                    const std::vector<std::unique_ptr<Pass>>& passes,
                                    const PipelineOptions& options) {
  std::vector<PassStats> all;
  bool verifying = options.verify.mode != VerifySpec::Mode::None;
  std::map<std::string, eval::Value> feeds;
  std::vector<eval::Value> reference;
  std::vector<std::string> names = output_names(model);
  if (verifying) {
    feeds = make_feeds(model, options.inputs);
    reference = run_model(model, feeds);
  }
  // One walk indexes the nodes by op type; every pass's Rewriter keeps the
  // index, so rule-set passes visit only nodes of their op types.
  OpIndex index(model);
  size_t nodes = index.initial_total();
  // Passes that changed the model since the IR was last checked.
  std::vector<std::string> unchecked;
  for (size_t i = 0; i < passes.size(); ++i) {
    Pass& pass = *passes[i];
    if (options.progress) options.progress(i, passes.size(), pass.name());
    check_conditions(pass, pass.preconditions(), model, "pre");
    std::optional<ir::Model> before;
    if (verifying && pass.changes_model()) before = clone_model(model);
    PassStats stats;
    stats.pass = pass.name();
    stats.nodes_before = nodes;
    auto t0 = std::chrono::steady_clock::now();
    Rewriter rw(model);
    rw.set_op_index(&index);
    pass.run(model, rw, stats);
    rw.collect_garbage();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& [rule, n] : rw.applications_per_rule()) stats.applications[rule] += n;
    stats.total_applications = rw.applications();
    // Every change went through rw, so its counts are exact (no walk).
    nodes = nodes + rw.nodes_created() - rw.nodes_erased();
    stats.nodes_after = nodes;
    if (rw.applications() > 0) {
      if (options.verify_ir_each_pass || before) {
        check_well_formed(fmt::format("pass '{}'", pass.name()), model);
        unchecked.clear();
      } else {
        unchecked.push_back(pass.name());
      }
    }
    check_conditions(pass, pass.postconditions(), model, "post");
    if (before && rw.applications() > 0) {
      std::vector<eval::Value> got = run_model(model, feeds);
      auto figs = compare_outputs(names, reference, got, options.verify);
      if (const OutputFigures* bad = first_failure(figs)) {
        std::string msg = fmt::format(
            "verification ({}) failed after pass '{}': output '{}': {} ({})",
            options.verify.describe(), pass.name(), bad->output, bad->problem, bad->describe());
        std::optional<Culprit> culprit;
        if (options.bisect) {
          // Smallest k whose replay fails; replay(0) is the model before.
          size_t lo = 1, hi = rw.applications();
          while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            ir::Model m = replay(pass, *before, mid, false, nullptr);
            bool fails = first_failure(compare_outputs(names, reference, run_model(m, feeds),
                                                       options.verify)) != nullptr;
            if (fails)
              hi = mid;
            else
              lo = mid + 1;
          }
          std::vector<Application> log;
          replay(pass, *before, lo, true, &log);
          if (!log.empty()) {
            culprit = Culprit{log.back(), rw.applications()};
            const Application& a = log.back();
            msg += fmt::format(
                "\nbisection: application {} of {} in this pass broke it: rule '{}' at {}\n"
                "  before: {}\n  after:  {}",
                a.index, rw.applications(), a.rule, a.at, a.before,
                a.after.empty() ? std::string("(node removed)\n") : a.after);
            while (!msg.empty() && msg.back() == '\n') msg.pop_back();
          }
        }
        throw VerificationError(msg, pass.name(), *bad, culprit);
      }
      reference = std::move(got);
    }
    if (options.after_pass) options.after_pass(i, pass.name(), model);
    all.push_back(std::move(stats));
  }
  if (!unchecked.empty()) {
    check_well_formed(fmt::format("the passes {} (check after each pass to find which one: "
                                  "--verify-ir)",
                                  fmt::join(unchecked, ", ")),
                      model);
  }
  return all;
}

}  // namespace oxs::rewrite
