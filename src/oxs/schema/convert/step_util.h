// Helpers shared by the opset-step adapters (schema/convert/): refusing a
// node with a message that names it, reading a constant int64 input, and
// turning an int64 attribute list into a Constant input and back.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/ir/graph.h"
#include "oxs/ir/node.h"
#include "oxs/ir/tensor.h"

namespace oxs::schema::convert {

// One step of the ai.onnx opset: `older` = `newer` - 1; `up` says which way.
struct Step {
  int64_t older = 0;
  int64_t newer = 0;
  bool up = true;
  // For the node at hand: the since_version of its op's version in force at
  // `older` (0 when the op is new at `newer`), for messages.
  int64_t older_since = 0;
};

// Throws oxs::Error (Unsupported): "node 'n' (Op): why".
[[noreturn]] void refuse(const ir::Node& node, const std::string& why);

// "Op-18" for messages.
std::string versioned(const ir::Node& node, int64_t since);

// The values of an int64 (or int32) tensor feeding input `i` when it is
// constant (an initializer, or the output of a Constant node); nullopt when
// the input is absent or not constant.
std::optional<std::vector<int64_t>> constant_ints(const ir::Node& node, size_t i);

// Input `i` absent (beyond the inputs, or omitted).
bool input_absent(const ir::Node& node, size_t i);

// Makes `node`'s input `i` a new Constant node (inserted just before it)
// holding `values` as int64, of shape [n] or, with `scalar`, []; earlier
// missing inputs become omitted ones.
void set_constant_input(ir::Node& node, size_t i, const std::vector<int64_t>& values,
                        bool scalar = false);

// The same with any tensor.
void set_constant_input(ir::Node& node, size_t i, std::shared_ptr<ir::Tensor> tensor);

// The constant tensor feeding input `i` (initializer or Constant node), or
// null.
const ir::Tensor* constant_input(const ir::Node& node, size_t i);

// Drops input `i` (and any trailing omitted inputs); a Constant node that
// fed only it is removed too.
void drop_input(ir::Node& node, size_t i);

// The type of input `i`, or the empty type when it is absent.
const ir::Type& input_type(const ir::Node& node, size_t i);

// The rank of input `i` when its type says, else nullopt.
std::optional<int64_t> input_rank(const ir::Node& node, size_t i);

}  // namespace oxs::schema::convert
