// Rewrite rules written in ONNX Script (`oxs opt --rules F.py`). A rule file
// holds, as in onnxscript's rewriter and onnx-passes:
//
//   from onnxscript import opset17 as op
//   from onnxscript import script
//
//   @script()
//   def pattern(op, x, y):        # what to find
//       return op.Add(x, y)
//
//   def check(op, x, y):          # optional: when to rewrite
//       return x != y
//
//   @script()
//   def rewrite(op, x, y):        # what to put instead
//       return op.Add(x, x)
//
// pattern and rewrite are compiled by our own ONNX Script compiler (a leading
// `self`, `op` or `_` parameter, onnxscript's rewriter convention, is
// accepted and ignored); the pattern's body becomes a Pattern (its inputs
// are variables, its Constants match by value, attributes must be equal),
// the rewrite's body a template instantiated at each match (its inputs are
// the pattern's variables, by name). check is a Python predicate over the
// pattern's variables, evaluated on the match: comparisons of variables
// (x != y, x is y, x is None), is_constant(x), rank(x), num_uses(x), integer
// comparisons, and/or/not. The rule is named after the file (BreakAdds.py ->
// BreakAdds). Every problem is an oxs::Error with file:line:col.
#pragma once

#include <memory>
#include <string>

#include "oxs/rewrite/passes/pass.h"

namespace oxs::rewrite {

// The rule in `text` (the contents of the file `path`).
std::unique_ptr<Rule> load_script_rule(const std::string& path, const std::string& text);
// A rule-set pass named after the file running its rule.
std::unique_ptr<Pass> make_script_rule_pass(const std::string& path, const std::string& text);

}  // namespace oxs::rewrite
