// The single_op harness' case, for the tools around it: which ops it
// chooses from and what became of one input. The harness entry (harness.h)
// ignores the outcome; the seed writer (single_op_seeds.cc) keeps inputs
// whose case ran.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace oxs::fuzz {

struct OpVersion {
  std::string domain;
  std::string op;
  int64_t version;
};

// Every (domain, op, since_version) of every domain the schemas know
// (ai.onnx 1-28, ai.onnx.ml 1-5, ai.onnx.preview, ai.onnx.preview.training),
// sorted by domain, op and version.
const std::vector<OpVersion>& single_op_table();

enum class CaseOutcome {
  NoCase,    // the input names no op (a mangled "#op" line, an unknown op)
  NotBuilt,  // an input or attribute could not be made (oxs::Error)
  Refused,   // eval::Session refused the model (its checks of nodes and bodies)
  Failed,    // the run ended in an oxs::Error
  Ran,       // the run returned outputs
};

struct CaseReport {
  CaseOutcome outcome = CaseOutcome::NoCase;
  OpVersion op;         // the op the input chose
  std::string message;  // the oxs::Error's text, if any
  // With `describe`: the case's input values and attributes, e.g.
  // "in: float8e4m3fn[2,3] seq(int64)[2]; attrs: to=int:22 then_branch=graph(Constant,If)".
  std::string description;
};

// Builds and runs the case `data` describes. Anything but an oxs::Error
// escapes (that is a finding).
CaseReport run_single_op_case(const uint8_t* data, size_t size, bool describe = false);

}  // namespace oxs::fuzz
