// The values of a tensor as a Python list literal, for make_tensor(...) in
// decompiled source: "[1.0, 2.5]", "[True, False]", "['a']". Float16 and
// bfloat16 print as the floats they hold; make_tensor converts them back.
// The narrow types (int4, float8, ...) print as narrow_literal.h says.
#pragma once

#include <string>

#include "oxs/ir/tensor.h"

namespace oxs::script {

std::string tensor_values(const ir::Tensor& t);

}  // namespace oxs::script
