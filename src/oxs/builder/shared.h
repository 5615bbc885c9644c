// Internal to builder/: state shared by a builder and the builders of its
// function bodies and subgraphs (one model, one inferencer).
#pragma once

#include <memory>

#include "oxs/builder/builder.h"

namespace oxs::builder {

struct Builder::Shared {
  explicit Shared(BuilderOptions o)
      : options(std::move(o)),
        model(std::make_unique<ir::Model>()),
        inferencer(std::make_unique<infer::Inferencer>(
            *model, infer::Options{.data_propagation = true, .check_signature = options.check})) {}
  BuilderOptions options;
  std::unique_ptr<ir::Model> model;
  std::unique_ptr<infer::Inferencer> inferencer;
};

// A scalar tensor of `dtype` holding `v` (converted; float16/bfloat16 rounded).
ir::Tensor scalar_tensor(ir::DataType dtype, double v);

}  // namespace oxs::builder
