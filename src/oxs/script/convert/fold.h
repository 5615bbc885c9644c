// Python arithmetic on values known at compile time (internal to the
// converter): `2 * 3`, `-1`, `"a" + "b"`, `[1, 2] + [3]`, `alpha != 1` when
// alpha is known, with Python's semantics (floor division and modulo round
// toward negative infinity, `/` is true division, True == 1). Integer
// overflow and division by zero are reported, never undefined behaviour.
#pragma once

#include <optional>
#include <string>

#include "oxs/script/convert/svalue.h"
#include "oxs/script/front/ast.h"

namespace oxs::script {

// nullopt with `why` set when Python would raise (or oxs cannot fold it).
std::optional<PyValue> fold_binop(BinOpKind op, const PyValue& a, const PyValue& b,
                                  std::string* why);
std::optional<PyValue> fold_unary(UnaryOpKind op, const PyValue& a, std::string* why);
std::optional<bool> fold_compare(CmpOpKind op, const PyValue& a, const PyValue& b,
                                 std::string* why);

}  // namespace oxs::script
