// OpsetBase::make, including the output count of variadic-output ops when the
// caller left it to us.
#include "oxs/builder/opset_base.h"

#include "oxs/ir/error.h"

namespace oxs::builder {

OpsetBase::OpsetBase(Builder& b, std::string domain, int64_t version)
    : b_(&b), domain_(std::move(domain)), version_(version) {
  b.use_opset(domain_, version_);
}

namespace {

size_t body_outputs(const std::vector<ir::Attr>& attrs, const char* name) {
  for (const auto& a : attrs) {
    if (a.name == name && a.g) return a.g->outputs().size();
  }
  return 0;
}

size_t auto_outputs(const char* op, const std::vector<Var>& inputs,
                    const std::vector<ir::Attr>& attrs) {
  std::string o = op;
  if (o == "If") return body_outputs(attrs, "then_branch");
  if (o == "Scan") return body_outputs(attrs, "body");
  if (o == "Loop") {
    size_t n = body_outputs(attrs, "body");
    return n > 0 ? n - 1 : 0;
  }
  if (o == "Split") {
    for (const auto& a : attrs) {
      if (a.name == "split" && !a.ints.empty()) return a.ints.size();
    }
    if (inputs.size() > 1 && inputs[1]) {
      if (auto kv = inputs[1].known_value()) return kv->size();
    }
  }
  return 0;
}

}  // namespace

std::vector<Var> OpsetBase::make(const char* op, std::vector<Var> inputs,
                                 std::vector<ir::Attr> attrs, size_t num_outputs) const {
  if (num_outputs == 0) {
    num_outputs = auto_outputs(op, inputs, attrs);
    if (num_outputs == 0) {
      throw Error(ErrorKind::Usage, std::string(op) +
                                        ": cannot tell how many outputs to create; pass "
                                        "{.num_outputs = n} in its attributes");
    }
  }
  return b_->make_node(op, std::move(inputs), std::move(attrs),
                       {.domain = domain_, .num_outputs = num_outputs});
}

}  // namespace oxs::builder
