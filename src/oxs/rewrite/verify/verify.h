// Verification of a transformed model against the model before: both run on
// the evaluator with the same inputs (given, or seeded random ones from the
// declared types) and their outputs are compared by equality, by tolerance
// (|a-b| <= atol + rtol*|b|) or by a metric with a threshold: max-abs and
// max-rel (at most the threshold), cosine similarity and top-1 agreement
// over the last axis (at least the threshold).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "oxs/eval/tensor.h"
#include "oxs/ir/model.h"

namespace oxs::rewrite {

struct VerifySpec {
  enum class Mode { None, Equality, Tolerance, Metric };
  Mode mode = Mode::None;
  double rtol = 0, atol = 0;
  std::string metric;  // max-abs, max-rel, cosine, top1
  double threshold = 0;

  // "equality", "tolerance=RTOL,ATOL", "metric=NAME:THRESHOLD"; throws
  // oxs::Error (Usage) saying what is accepted.
  static VerifySpec parse(const std::string& text);
  std::string describe() const;
};

// The figures of one output pair.
struct OutputFigures {
  std::string output;
  bool ok = true;
  std::string problem;  // when not ok: what differs
  double max_abs = 0, max_rel = 0, cosine = 1, top1 = 1;
  std::string describe() const;  // "max-abs 0.5, max-rel 1, cosine 0.9, top-1 1"
};

// Compares outputs (`want` from the model before, `got` after).
std::vector<OutputFigures> compare_outputs(const std::vector<std::string>& names,
                                           const std::vector<eval::Value>& want,
                                           const std::vector<eval::Value>& got,
                                           const VerifySpec& spec);

struct VerifyInputs {
  std::map<std::string, eval::Value> given;
  uint64_t seed = 0;
  // Sizes of symbolic dims for random inputs (others default to 2).
  std::map<std::string, int64_t> dims;
};

// Feeds for every graph input of `m` without an initializer: the given
// values, and random ones for the rest.
std::map<std::string, eval::Value> make_feeds(const ir::Model& m, const VerifyInputs& inputs);
// Runs `m` on `feeds`; the outputs in order.
std::vector<eval::Value> run_model(const ir::Model& m,
                                   const std::map<std::string, eval::Value>& feeds);
std::vector<std::string> output_names(const ir::Model& m);

}  // namespace oxs::rewrite
