// infer: an annotation pass. Runs type and shape inference (infer/) over the
// model so that rules with shape or type conditions (x*1 needs x's rank,
// fuse-gemm 2-D operands) see them. Inference that fails (an op it cannot
// infer, a contradiction in the file) leaves the model's types as they were
// and says so in the pass's notes: rules then see less, never wrong types.
#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

class InferPass : public Pass {
 public:
  InferPass() : Pass("infer") {}
  std::string summary() const override { return "type and shape inference"; }
  PassKind kind() const override { return PassKind::Annotation; }
  void run(ir::Model& model, Rewriter&, PassStats& stats) override {
    infer::Options o;
    o.unknown_ops_are_errors = false;
    try {
      infer::run(model, o);
    } catch (const Error& e) {
      stats.notes.push_back("inference stopped: " + e.message());
    }
  }
};

}  // namespace

std::unique_ptr<Pass> make_infer_pass(const PassOptions& o) {
  check_options("infer", o, {});
  return std::make_unique<InferPass>();
}

}  // namespace oxs::rewrite
