// The pass manager: runs passes in order, checks each pass's pre- and
// post-conditions (every transformation must leave a well-formed IR:
// ir::verify), collects statistics, and, with verification on, runs the
// model before and after each pass on the evaluator and compares. When a
// pass fails verification the manager bisects: it replays the pass on the
// model from before it with a budget of k rule applications (binary search
// over k) to find the single application that broke the outputs, and the
// error shows that node before and after.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/error.h"
#include "oxs/rewrite/passes/pass.h"
#include "oxs/rewrite/verify/verify.h"

namespace oxs::rewrite {

struct PipelineOptions {
  VerifySpec verify;
  VerifyInputs inputs;
  bool bisect = true;
  // Check the IR (ir::verify) after every pass that changed the model, so a
  // malformed model is blamed on the pass that made it. Off by default in
  // Release builds: the IR is then checked once, after the last pass (and
  // after each pass anyway when verifying outputs, before running the model).
#ifdef NDEBUG
  bool verify_ir_each_pass = false;
#else
  bool verify_ir_each_pass = true;
#endif
  // Called after each pass with its index and the model (--keep-intermediates).
  std::function<void(size_t index, const std::string& pass, const ir::Model&)> after_pass;
  // Called before each pass (progress on long runs).
  std::function<void(size_t index, size_t count, const std::string& pass)> progress;
};

// What bisection found.
struct Culprit {
  Application application;
  size_t applications_in_pass = 0;
};

// A pass broke the outputs: which pass, which output, the figures and, when
// bisection found it, the rule application at fault.
class VerificationError : public Error {
 public:
  VerificationError(std::string message, std::string pass, OutputFigures figures,
                    std::optional<Culprit> culprit)
      : Error(ErrorKind::Invalid, std::move(message)),
        pass_(std::move(pass)),
        figures_(std::move(figures)),
        culprit_(std::move(culprit)) {}
  const std::string& pass() const { return pass_; }
  const OutputFigures& figures() const { return figures_; }
  const std::optional<Culprit>& culprit() const { return culprit_; }

 private:
  std::string pass_;
  OutputFigures figures_;
  std::optional<Culprit> culprit_;
};

// Runs `passes` on `model`; statistics per pass. Throws VerificationError,
// or oxs::Error naming the pass whose condition failed.
std::vector<PassStats> run_pipeline(ir::Model& model,
                                    const std::vector<std::unique_ptr<Pass>>& passes,
                                    const PipelineOptions& options = {});

}  // namespace oxs::rewrite
