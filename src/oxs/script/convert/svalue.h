// What a name or an expression denotes while a script is converted (internal
// to the converter): a tensor in the graph being built, a Python value known
// at compile time, a reference to an attribute parameter of the function,
// an opset, a module, a script function, a tensor type, ... Python values are
// folded at compile time (`2 * 3`, `math.sqrt(0.5)`, `alpha != 1` in a model
// whose alpha is known) and become constants only when a tensor is needed.
// This header knows the IR and the builder; it does not emit nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oxs/builder/var.h"
#include "oxs/ir/attr.h"
#include "oxs/ir/graph.h"  // Attr needs Graph complete
#include "oxs/ir/tensor.h"
#include "oxs/script/front/ast.h"

namespace oxs::script {

// A Python value known at compile time.
struct PyValue {
  enum class Kind : uint8_t { kNone, kBool, kInt, kFloat, kStr, kList, kTuple, kTensor };
  Kind kind = Kind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<PyValue> items;          // kList, kTuple
  std::shared_ptr<ir::Tensor> tensor;  // kTensor (onnx.helper.make_tensor)

  static PyValue none() { return {}; }
  static PyValue of_bool(bool v) {
    PyValue p;
    p.kind = Kind::kBool;
    p.b = v;
    return p;
  }
  static PyValue of_int(int64_t v) {
    PyValue p;
    p.kind = Kind::kInt;
    p.i = v;
    return p;
  }
  static PyValue of_float(double v) {
    PyValue p;
    p.kind = Kind::kFloat;
    p.f = v;
    return p;
  }
  static PyValue of_str(std::string v) {
    PyValue p;
    p.kind = Kind::kStr;
    p.s = std::move(v);
    return p;
  }
  static PyValue of_list(std::vector<PyValue> v, bool tuple = false) {
    PyValue p;
    p.kind = tuple ? Kind::kTuple : Kind::kList;
    p.items = std::move(v);
    return p;
  }

  bool is_number() const {
    return kind == Kind::kBool || kind == Kind::kInt || kind == Kind::kFloat;
  }
  bool is_sequence() const { return kind == Kind::kList || kind == Kind::kTuple; }
  double as_double() const { return kind == Kind::kFloat ? f : kind == Kind::kInt ? double(i) : b; }
  // Python's repr, shortened for messages.
  std::string repr() const;
  // "int", "float", "list", ... as Python's type names.
  const char* type_name() const;
  bool truthy() const;
};

bool py_equal(const PyValue& a, const PyValue& b);

// The element type a Python value becomes as a tensor (int -> INT64, float
// -> FLOAT, bool -> BOOL, str -> STRING; lists by their elements).
ir::DataType natural_dtype(const PyValue& v);
// The tensor of a Python value, of element type `dtype` (Undefined: its
// natural type). Nullopt (with `why`) for ragged lists, None, ...
std::optional<ir::Tensor> py_to_tensor(const PyValue& v, ir::DataType dtype, std::string* why);

// An opset as the script names it: `op`, `opset15`, `Opset("custom", 1)`.
struct OpsetRef {
  std::string domain;  // "" for ai.onnx
  int64_t version = 0;
};

// What an annotation says.
struct TypeInfo {
  enum class Kind : uint8_t {
    kTensor,    // FLOAT, FLOAT[...], TensorType, a union of tensor types, a TypeVar
    kAttr,      // int, float, str, bool, Sequence[int], ...
    kSequence,  // Sequence[FLOAT]
    kOptional,  // Optional[FLOAT]
    kTuple,     // Tuple[FLOAT, INT64] (return annotations)
    kAny,       // Any, an imported type oxs does not know
  };
  Kind kind = Kind::kAny;
  ir::DataType dtype = ir::DataType::Undefined;  // kTensor: one element type, else Undefined
  std::optional<ir::Shape> shape;                // kTensor: nullopt = unknown rank
  ir::AttrType attr =
      ir::AttrType::Undefined;  // kAttr; kTensor: a Python alternative (FLOAT | float)
  std::vector<TypeInfo> items;  // kSequence/kOptional: 1; kTuple: n
  // The IR type of a value of this type (None kind when nothing is known).
  ir::Type to_ir() const;
  std::string describe() const;
};

struct ScriptFn;  // compiler.h

struct SVal {
  enum class Kind : uint8_t {
    kPoison,    // an error was reported for this value; follow-ups stay silent
    kTensor,    // a value of the graph being built
    kPy,        // a Python value known at compile time
    kAttrRef,   // an attribute parameter of the function being compiled
    kTuple,     // several values (outputs of a multi-output op, a tuple)
    kOpset,     // op namespace
    kModule,    // a module or namespace: onnxscript, onnx, onnx.helper, TensorProto, ...
    kBuiltin,   // a callable known by name: script, graph, Opset, make_tensor, range, ...
    kFunction,  // a function of the file (decorated or not) or a nested def
    kType,      // a tensor type (FLOAT, TensorType) or a typing construct
    kForeign,   // something from a module with no ONNX meaning (numpy, ...)
  };
  Kind kind = Kind::kPoison;
  builder::Var var;
  PyValue py;
  std::string name;  // kAttrRef: parameter; kModule/kBuiltin/kForeign/kType: dotted path
  ir::AttrType attr_type = ir::AttrType::Undefined;
  bool attr_bool = false;            // kAttrRef: declared bool (an int attribute, a BOOL tensor)
  std::vector<SVal> items;           // kTuple
  OpsetRef opset;                    // kOpset
  Span origin;                       // kOpset: where it was imported
  ScriptFn* fn = nullptr;            // kFunction (module level)
  const FunctionDef* def = nullptr;  // kFunction
  std::shared_ptr<const TypeInfo> type;  // kType (null for an unsubscripted typing generic)

  static SVal poison() { return {}; }
  static SVal tensor(builder::Var v) {
    SVal s;
    s.kind = Kind::kTensor;
    s.var = v;
    return s;
  }
  static SVal of(PyValue p) {
    SVal s;
    s.kind = Kind::kPy;
    s.py = std::move(p);
    return s;
  }
  static SVal attr_ref(std::string name, ir::AttrType t) {
    SVal s;
    s.kind = Kind::kAttrRef;
    s.name = std::move(name);
    s.attr_type = t;
    return s;
  }
  static SVal tuple(std::vector<SVal> items) {
    SVal s;
    s.kind = Kind::kTuple;
    s.items = std::move(items);
    return s;
  }
  static SVal named(Kind k, std::string name) {
    SVal s;
    s.kind = k;
    s.name = std::move(name);
    return s;
  }

  bool is_poison() const { return kind == Kind::kPoison; }
  // "a tensor", "the Python value 3", "the module numpy", ... for messages.
  std::string describe() const;
};

}  // namespace oxs::script
