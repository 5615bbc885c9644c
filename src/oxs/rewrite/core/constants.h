// Known constant values of the IR, as rules and passes see them: an
// initializer that is not also a graph input (a graph input may be fed, so
// its initializer is only a default), or the output of a Constant node.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "oxs/ir/graph.h"
#include "oxs/ir/tensor.h"

namespace oxs::rewrite {

// The constant `v` holds, or null (also for a null `v`).
std::shared_ptr<const ir::Tensor> constant_of(const ir::Value* v);
// The tensor a Constant node produces, or null when its attribute is a
// sparse tensor or a reference to a function attribute.
std::shared_ptr<const ir::Tensor> constant_node_tensor(const ir::Node& n);
// The elements of a numeric or bool tensor as doubles; nullopt for strings,
// complex or more than `max_elements` elements.
std::optional<std::vector<double>> tensor_doubles(const ir::Tensor& t, size_t max_elements);
// The elements of an int32/int64 tensor; nullopt otherwise.
std::optional<std::vector<int64_t>> tensor_ints(const ir::Tensor& t);

}  // namespace oxs::rewrite
