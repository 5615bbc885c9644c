// The torch/ room: the PyTorch exporter's C++ half (DESIGN.md). Python traces
// a model to an ATen-level FX graph and hands it over once as an ExportGraph
// (this header); the dispatcher (dispatcher.h) picks a function of the ATen
// library for every node and the interpreter (interpreter.h) builds the ONNX
// model with the builder. This room never sees Python or torch objects: only
// this plain structure, the library's candidates (library.h) and IR.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "oxs/ir/dtype.h"
#include "oxs/ir/tensor.h"
#include "oxs/ir/type.h"

namespace oxs::torch {

// One argument of an FX node, by the ATen schema's name.
struct Arg {
  enum class Kind {
    Tensor,
    None,
    TensorList,
    Int,
    Float,
    Bool,
    Ints,
    Floats,
    String,
    DType,
    Other
  };
  std::string name;
  std::string schema_type;  // "Tensor", "int[]", "Scalar", ... as the schema prints it
  Kind kind = Kind::None;
  int64_t i = 0;              // Tensor: value id; Int, Bool: value; DType: ONNX element type
  double f = 0;               // Float
  std::vector<int64_t> ints;  // Ints; TensorList: value ids (-1 = None)
  std::vector<double> floats;
  std::string s;  // String, Other (printed)
  // Int, Ints: per value, the SymExpr id of a size that varies with the
  // dynamic dims (-1 static; empty when all are static). i / ints hold the
  // example's values.
  std::vector<int64_t> syms;
  bool symbolic() const;
};

// A size expression over the dynamic dims (torch's SymInts, from a trace
// with a ShapeEnv): a symbol named by dynamic_shapes, a constant, or an
// operation on other expressions of ExportGraph::exprs (by id).
struct SymExpr {
  enum class Op { Symbol, Const, Add, Mul, FloorDiv, Mod, Max, Min };
  Op op = Op::Const;
  std::string text;   // "batch*seq": the dim_param of dims it is
  int64_t value = 0;  // Const
  int64_t hint = 0;   // the example's value
  std::vector<int64_t> args;
};

// What the trace knew about a node output: its value id (-1 when nothing
// reads it), element type and the example's sizes.
struct OutMeta {
  int64_t id = -1;
  ir::DataType dtype = ir::DataType::Undefined;
  std::vector<int64_t> dims;
  // With dynamic_shapes: per dim, the SymExpr id of a dim that varies with
  // the dynamic dims (-1 static); empty when all are static.
  std::vector<int64_t> syms;
  bool dim_varies(size_t i) const { return i < syms.size() && syms[i] >= 0; }
};

struct FxNode {
  std::string name;    // the FX node's name
  std::string target;  // "aten::add.Tensor"
  std::string module;  // "layer1.0.conv1 (Conv2d)": where the node came from
  std::vector<Arg> args;
  std::vector<OutMeta> outputs;
  // The calls of modules chosen by modules_as_functions the node is in,
  // outermost first ("layer1.0 (BasicBlock)"); a run of nodes sharing one
  // becomes a call of a model-local function.
  std::vector<std::string> scopes;
  std::string source;  // "model.py:12 in forward: ..." the model's line, if known
  const Arg* find(std::string_view arg) const;
};

struct GraphInput {
  int64_t id = -1;
  std::string name;
  ir::DataType dtype = ir::DataType::Undefined;
  std::vector<ir::Dim> dims;  // symbolic where dynamic_shapes said so
};

struct Param {
  int64_t id = -1;
  std::string name;  // "layer1.0.conv1.weight"
  std::shared_ptr<ir::Tensor> tensor;
};

struct ExportGraph {
  std::vector<GraphInput> inputs;
  std::vector<Param> params;
  std::vector<FxNode> nodes;
  std::vector<std::pair<int64_t, std::string>> outputs;  // value id, output name
  // Example size of each symbolic dim (for ops given traced sizes).
  std::map<std::string, int64_t> symbols;
  std::vector<SymExpr> exprs;
  int64_t num_values() const;
};

// "float32[1,3,224,224]"-like text of a meta, for messages.
std::string describe(const OutMeta& m);

}  // namespace oxs::torch
