// What a native C++ ATen function sees: the builder, the target opset, its
// node's arguments by ATen schema name (tensors as builder Vars, the rest as
// values with the schema's defaults supplied by the caller) and what the
// trace knew about its outputs (sizes, and which dims vary with the dynamic
// dims), from which reshape_shape writes views that stay dynamic.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "oxs/builder/builder.h"
#include "oxs/torch/graph.h"

namespace oxs::torch {

class Context {
 public:
  Context(builder::Builder& b, int64_t opset, const FxNode& node, std::vector<builder::Var>& values,
          std::map<std::string, int64_t>& symbols, const std::vector<SymExpr>* exprs = nullptr,
          std::map<std::pair<const builder::Builder*, int64_t>, builder::Var>* sym_cache = nullptr)
      : b(b),
        opset(opset),
        node(node),
        values_(values),
        symbols_(symbols),
        exprs_(exprs),
        sym_cache_(sym_cache) {}

  builder::Builder& b;
  const int64_t opset;
  const FxNode& node;

  // Whether the argument is given and not None.
  bool has(const std::string& name) const;
  // A tensor argument (a Python number becomes a constant of the node's
  // output type); fails when absent.
  builder::Var tensor(const std::string& name) const;
  // Var() when absent or None.
  builder::Var optional_tensor(const std::string& name) const;
  std::vector<builder::Var> tensors(const std::string& name) const;
  int64_t get_int(const std::string& name, std::optional<int64_t> dflt = std::nullopt) const;
  double get_float(const std::string& name, std::optional<double> dflt = std::nullopt) const;
  bool get_bool(const std::string& name, std::optional<bool> dflt = std::nullopt) const;
  std::vector<int64_t> get_ints(const std::string& name,
                                std::optional<std::vector<int64_t>> dflt = std::nullopt) const;
  const OutMeta& out(size_t i = 0) const;
  // Whether output i is read by anything.
  bool used(size_t i) const { return i < node.outputs.size() && node.outputs[i].id >= 0; }

  // The shape input of a Reshape of x to output 0's traced sizes: static
  // when no dim varies with the dynamic dims; else a varying dim that x has
  // at the same place with the same size becomes 0 (copy), and the one
  // varying dim left becomes -1. Fails when more than one is left.
  builder::Var reshape_shape(const builder::Var& x) const;
  // A 1-D int64 tensor holding the dynamic dim whose example size is
  // `example`, read from the graph input that has it (Shape, Gather). Fails
  // when no dynamic input dim, or more than one, has that example size.
  builder::Var input_dim(int64_t example) const;
  // The sizes of output 0 as a 1-D int64 tensor: traced sizes, and dims that
  // vary with the dynamic dims read from the graph input (input_dim).
  builder::Var output_shape() const;
  // The value of size expression `id` (ExportGraph::exprs) as a 1-D int64
  // tensor of one element, computed from the shapes of the inputs of the
  // graph or function being built (a symbol is read from the input that has
  // it as a dim); built once per builder.
  builder::Var sym(int64_t id) const;
  // Output 0's dim i as a 1-D int64 tensor of one element: a constant, or
  // the expression torch traced for it.
  builder::Var out_dim(size_t i) const;
  // A scalar constant of element type dt.
  builder::Var scalar(ir::DataType dt, double v) const;
  // A constant int64 vector.
  builder::Var ints(const std::vector<int64_t>& v) const;

  [[noreturn]] void fail(const std::string& why) const;

 private:
  const Arg& require(const std::string& name) const;
  std::vector<builder::Var>& values_;
  std::map<std::string, int64_t>& symbols_;
  const std::vector<SymExpr>* exprs_;
  std::map<std::pair<const builder::Builder*, int64_t>, builder::Var>* sym_cache_;
};

// A vector of attributes (ir::Attr moves only: no initializer lists).
template <class... A>
std::vector<ir::Attr> attr_list(A&&... a) {
  std::vector<ir::Attr> v;
  v.reserve(sizeof...(a));
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

// Normalizes a possibly negative axis for `rank`; fails through cx.
int64_t normalize_axis(const Context& cx, int64_t axis, int64_t rank);

}  // namespace oxs::torch
