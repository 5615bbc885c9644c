// Per-op adapters for the ai.onnx opset steps that oxs converts itself
// (17 <-> 18 <-> ... <-> 28): what to do with a node whose op changed
// meaning or form at `newer`, going up to it or down from it. Ops that only
// gained types at a step have no adapter: the step driver (steps.cc) bumps
// them going up and checks their types, attributes and inputs against the
// older version going down.
#pragma once

#include <cstdint>
#include <string_view>

#include "oxs/ir/node.h"
#include "oxs/schema/convert/step_util.h"

namespace oxs::schema::convert {

using AdaptFn = void (*)(ir::Node& node, const Step& step);

struct Adapter {
  std::string_view op;
  int64_t newer;  // the since_version the change came with
  AdaptFn up;     // null: nothing to do going up
  AdaptFn down;   // null: nothing beyond the generic check going down
};

// The adapter for `op` changed at `newer`, or null.
const Adapter* find_adapter(std::string_view op, int64_t newer);

}  // namespace oxs::schema::convert
