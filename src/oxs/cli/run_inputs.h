// `oxs run`'s command-line inputs beyond files of one value: literal tensors
// (`--input X=[[1,2],[3,4]]`, `--input k=3`), .npz archives (every array
// named like an input, or one array for one input), and the errors for
// misnamed or repeated inputs. Command-line plumbing; the evaluator checks
// values against the declared types.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "oxs/eval/tensor.h"
#include "oxs/ir/error.h"
#include "oxs/ir/value.h"

namespace oxs::cli {

// The error for `--input NAME=...` naming no input of the model: lists the
// inputs and suggests the closest names.
Error unknown_input(const std::string& name, const std::vector<ir::Value*>& inputs);

// Adds `entry` to `given`; a name given twice is a Usage error naming `flag`.
void insert_once(std::map<std::string, std::string>& given,
                 std::pair<std::string, std::string> entry, const char* flag);

// A literal tensor for input `name` of declared `type`: a JSON number, bool,
// string or nested list ("[[1,2],[3,4]]"). The element type is the declared
// one (else float for lists with a fraction, int64 for whole numbers). Returns
// nothing when `text` is not a literal (a file name); throws a Usage error
// for a ragged list or values the element type cannot hold.
std::optional<eval::Value> parse_literal(const std::string& name, const ir::Type& type,
                                         const std::string& text);

// Every array of a numpy .npz archive (np.savez, stored, or
// np.savez_compressed, deflated; zip64 too), by name without ".npy".
std::vector<std::pair<std::string, eval::Tensor>> read_npz(const std::string& path);

// `--input FILE.npz`: feeds every array of the archive to the input of its
// name (an array naming no input, or an input already fed, is a Usage error).
void add_npz_feeds(const std::string& path, const std::vector<ir::Value*>& inputs,
                   std::map<std::string, eval::Value>& feeds);

// `--input NAME=FILE.npz`: the archive's array NAME, or its only array.
eval::Tensor npz_array_for(const std::string& name, const std::string& path);

}  // namespace oxs::cli
