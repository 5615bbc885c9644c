// "Why didn't it match": offers one node to one rule without changing the
// model (a rewrite budget of zero) and reports the first condition that
// failed with the values it saw, or that the rule applies there.
#pragma once

#include <string>

#include "oxs/ir/model.h"
#include "oxs/rewrite/pattern/rule.h"

namespace oxs::rewrite {

// The node named `name` (or, failing that, producing a value named `name`)
// anywhere in the model; null if none.
ir::Node* find_node(const ir::Model& model, const std::string& name);
// "rule R at node N: applies" or "rule R at node N: does not apply: <why>".
std::string explain(ir::Model& model, Rule& rule, ir::Node& node);
// The same for a rule of the standard passes, by name; throws oxs::Error
// (Usage) for an unknown rule or node, listing the rules.
std::string explain(ir::Model& model, const std::string& rule, const std::string& node);

}  // namespace oxs::rewrite
