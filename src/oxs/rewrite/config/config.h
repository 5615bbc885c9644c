// The `oxs opt -c config.yaml` file (after onnx-passes' configuration): the
// passes with their options, rule files, verification and its input data.
//
//   passes:                       # in order
//     - infer
//     - fold: {max-elements: 4096}
//     - rules: rules/BreakAdds.py # an ONNX Script rule file
//   verify: tolerance=1e-5,1e-6   # equality | tolerance=R,A | metric=NAME:T
//   inputs: {x: data/x.npy}       # reference inputs (.npy); others are random
//   reference: data/ref.npz       # or: every array of a .npz (or every
//                                 # <input>.npy of a directory) named like an input
//   seed: 0
//   dims: {N: 4}                  # sizes of symbolic dims for random inputs
//   bisect: true
//
// Parsing checks every key, pass name and option, and says where a problem
// is (file:line:col). Paths are returned as written; the caller resolves
// them (relative to the config file's directory) and reads them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oxs/rewrite/passes/pass.h"

namespace oxs::rewrite {

struct ConfigPass {
  std::string name;  // a standard pass, or "" for a rule file
  PassOptions options;
  std::string rules_file;  // for `- rules: FILE`
  int line = 0;
};

struct OptConfig {
  std::vector<ConfigPass> passes;
  std::string verify;  // "" when absent
  std::map<std::string, std::string> inputs;
  std::string reference;  // a .npz file or a directory of .npy ("" when absent)
  std::optional<uint64_t> seed;
  std::map<std::string, int64_t> dims;
  std::optional<bool> bisect;
};

// Parses the YAML `text` of the file `path`; throws oxs::Error (Input)
// with file:line:col for anything it does not accept.
OptConfig parse_config(const std::string& path, const std::string& text);

}  // namespace oxs::rewrite
