// RegexFullMatch (20): Y[i] is true when X[i] matches `pattern` as a whole,
// in RE2's syntax — matched by RE2 itself (Debian's libre2), so the
// semantics are the spec's. The pattern is compiled once per node and kept
// in the session's kernel state.
#include <memory>
#include <string>

#include <re2/re2.h>

#include "oxs/eval/common/modern_kernels.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void regex_full_match_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::String) {
    ctx.fail("X must be a string tensor, got " + std::string(ir::dtype_name(x.dtype())));
  }
  // Compiled per node; a pattern from an attribute reference changes per
  // call, so only a node's own attribute is cached.
  const ir::Attr* own = ctx.node().attr("pattern");
  const bool cacheable =
      own != nullptr && own->ref_attr_name.empty() && ctx.state_slot() != nullptr;
  std::shared_ptr<RE2> re;
  if (cacheable) re = std::static_pointer_cast<RE2>(*ctx.state_slot());
  if (!re) {
    const std::string pattern = ctx.required_attr("pattern").s;
    RE2::Options options;
    options.set_log_errors(false);
    re = std::make_shared<RE2>(pattern, options);
    if (!re->ok()) ctx.fail("pattern '" + pattern + "' is not a valid RE2 regex: " + re->error());
    if (cacheable) *ctx.state_slot() = re;
  }
  Tensor y(DataType::Bool, x.dims());
  auto* out = static_cast<uint8_t*>(y.mutable_raw());
  for (size_t i = 0; i < size_t(x.numel()); ++i) {
    out[i] = RE2::FullMatch(x.strings()[i], *re) ? 1 : 0;
  }
  ctx.set_output(0, y);
}

}  // namespace

void register_regex_kernels(KernelRegistry& r) {
  r.add("", "RegexFullMatch", 20, regex_full_match_k);
}

}  // namespace oxs::eval
