// Human-readable summaries of runtime values for `oxs run` and trace
// printers: dtype and shape, min/max/mean and NaN count over the finite
// elements, and the first few values; sequences, optionals and maps by
// their structure. Also random inputs for a declared type (for running a model without data) and
// file-safe output names.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include "oxs/eval/tensor.h"

namespace oxs::eval {

struct TensorStats {
  double min = 0, max = 0, mean = 0;
  int64_t nan_count = 0;
  int64_t finite_count = 0;
};

// Numeric and bool tensors; zeros for strings and empty tensors.
TensorStats tensor_stats(const Tensor& t);
// "[1, 2.5, nan, ...]" with at most `n` values.
std::string first_values(const Tensor& t, size_t n);
// "float[2,3] min=-1 max=4 mean=0.5 nan=0 [1, 2, ...]"; sequences and
// optionals described element by element, maps by their first entries.
std::string summarize(const Value& v, size_t n_values = 8);
// A map's first `n` entries: {1: 0.5, 7: 2, ...} (string keys quoted).
std::string map_entries(const Value& map, size_t n);

// A tensor of `type` filled with seeded random values (floats ~ N(0,1),
// integers in [0, 10), bools, strings "s<k>"). Symbolic dims are looked up
// in `dims`; unnamed unknown dims are 1. Throws oxs::Error naming `input`
// for a non-tensor type or a symbolic dim missing from `dims`.
Tensor random_tensor(const std::string& input, const ir::Type& type,
                     const std::map<std::string, int64_t>& dims, std::mt19937_64& rng);

// A value of `type`: tensors as random_tensor; a sequence of `seq_len`
// random elements (a tensor element without a declared shape is 1-D of 3);
// an optional holding a random element. Maps cannot be made up: a Usage
// error asks for the input.
Value random_value(const std::string& input, const ir::Type& type,
                   const std::map<std::string, int64_t>& dims, std::mt19937_64& rng,
                   int64_t seq_len = 2);

// `name` with every character outside [A-Za-z0-9._-] replaced by '_' (and
// never empty, "." or "..").
std::string file_safe_name(const std::string& name);

}  // namespace oxs::eval
