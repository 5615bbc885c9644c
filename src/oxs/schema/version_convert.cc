#include "oxs/schema/version_convert.h"

#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <typeinfo>

#include "oxs/ir/error.h"
#include "oxs/onnx/libonnx_bridge.h"
#include "oxs/schema/conformance.h"
#include "oxs/schema/convert/step_util.h"
#include "oxs/schema/convert/steps.h"
#include "oxs/schema/ir_version.h"
#include "oxs/schema/registry.h"

namespace oxs::schema {
namespace {

namespace vc = ::onnx::version_conversion;

// The newest ai.onnx opset libonnx 1.12's converter knows.
constexpr int64_t kLibonnxLatest = 17;

// Down one opset for an op whose step up libonnx itself declares compatible
// (a CompatibleAdapter: the same meaning, the newer version taking more
// types) but for which it registers no way back: the node stays as it is
// if its element types are ones the older version accepts. libonnx 1.12
// lacks most of these (e.g. Relu 14 -> 13), so without them almost no model
// of a recent opset converts down.
class ReverseOfCompatible : public vc::Adapter {
 public:
  ReverseOfCompatible(const std::string& op, int64_t from, const ::onnx::OpSchema* older)
      : vc::Adapter(op, ::onnx::OpSetID(from), ::onnx::OpSetID(from - 1)), older_(older) {}

  ::onnx::Node* adapt(std::shared_ptr<::onnx::Graph>, ::onnx::Node* node) const override {
    check(node->inputs(), older_->inputs(), "input");
    check(node->outputs(), older_->outputs(), "output");
    return node;
  }

 private:
  template <class Values>
  void check(Values values, const std::vector<::onnx::OpSchema::FormalParameter>& formals,
             const char* what) const {
    if (formals.empty()) return;
    for (size_t i = 0; i < values.size(); ++i) {
      const int32_t elem = values[i]->elemType();
      if (elem == 0) continue;  // omitted, or of unknown type: the final check decides
      ::onnx::TypeProto tp;
      tp.mutable_tensor_type()->set_elem_type(elem);
      const auto& f = formals[std::min(i, formals.size() - 1)];
      if (!f.GetTypes().count(::onnx::Utils::DataTypeUtils::ToType(tp))) {
        throw std::runtime_error(
            name() + "-" + std::to_string(older_->since_version()) + " does not take " + what +
            " element type " +
            ::onnx::Utils::DataTypeUtils::ToDataTypeString(tp.tensor_type().elem_type()));
      }
    }
  }
  const ::onnx::OpSchema* older_;
};

// libonnx's converter plus ReverseOfCompatible where it has no way down.
class Converter : public vc::DefaultVersionConverter {
 public:
  Converter() {
    std::vector<std::unique_ptr<vc::Adapter>> extra;
    for (const auto& [op, by_initial] : adapters) {
      for (const auto& [initial, by_target] : by_initial) {
        for (const auto& [target, adapter] : by_target) {
          const int64_t from = adapter->initial_version().version();
          const int64_t to = adapter->target_version().version();
          const vc::Adapter& a = *adapter;
          if (to != from + 1 || typeid(a) != typeid(vc::CompatibleAdapter)) continue;
          if (has_adapter(op, to, from)) continue;
          const ::onnx::OpSchema* older = schema_at(op, from);
          if (older) extra.push_back(std::make_unique<ReverseOfCompatible>(op, to, older));
        }
      }
    }
    for (auto& e : extra) registerAdapter(std::move(e));
  }

 private:
  bool has_adapter(const std::string& op, int64_t from, int64_t to) const {
    auto o = adapters.find(op);
    if (o == adapters.end()) return false;
    auto i = o->second.find(::onnx::OpSetID(from).toString());
    return i != o->second.end() && i->second.count(::onnx::OpSetID(to).toString());
  }
  // The op's schema in force at `opset`, from the registry (all_schemas
  // points into a vector that libonnx's constructor has already freed).
  static const ::onnx::OpSchema* schema_at(const std::string& op, int64_t opset) {
    return ::onnx::OpSchemaRegistry::Schema(op, static_cast<int>(opset), "");
  }
};

// "…: No Adapter From Version $14 for Relu" -> "no adapter for Relu from
// its version 14"; other messages stay as they are, on one line.
std::string converter_message(std::string why) {
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  for (char& c : why) c = c == '\n' ? ' ' : c;
  const std::string marker = "No Adapter From Version $";
  if (auto at = why.find(marker); at != std::string::npos) {
    std::string rest = why.substr(at + marker.size());  // "14 for Relu"
    auto sp = rest.find(" for ");
    if (sp != std::string::npos) {
      return "no conversion of " + rest.substr(sp + 5) + " from its opset-" + rest.substr(0, sp) +
             " version in this direction";
    }
  }
  if (why.find("No initializer or constant input to node found") != std::string::npos) {
    return "libonnx's converter needs an input (axes, split, pads, ...) to be an initializer, "
           "and it is computed or a graph input";
  }
  const std::string none = "No Previous Version of ";  // "... of CastLike exists"
  if (auto at = why.find(none); at != std::string::npos) {
    std::string op = why.substr(at + none.size());
    op = op.substr(0, op.find(' '));
    return op + " has no version in the older opset (it is newer)";
  }
  if (auto at = why.find("failed: "); at != std::string::npos) return why.substr(at + 8);
  return why;
}

int64_t default_opset(const ir::Model& m) {
  for (const ir::OpsetImport& imp : m.opset_imports) {
    if (imp.domain.empty() || imp.domain == "ai.onnx") return imp.version;
  }
  return 0;
}

// libonnx's old IR keeps tensor types only: graph inputs and outputs of
// other types (sequences, optionals) get theirs back from `before`. A
// tensor whose shape the converter changed (Scan 8 -> 9 drops the batch
// axis) changes the model's interface: refused.
void keep_interface(const ir::Model& before, ir::Model& after) {
  auto restore = [](const std::vector<ir::Value*>& was, const std::vector<ir::Value*>& now,
                    const char* what) {
    if (was.size() != now.size()) return;
    for (size_t i = 0; i < was.size(); ++i) {
      const ir::Type& a = was[i]->type();
      ir::Value& b = *now[i];
      if (!a.is_tensor() && !a.is_none()) {
        b.set_type(a);
      } else if (a.is_tensor() && b.type().is_tensor() && a.shape() && b.type().shape() &&
                 !(*a.shape() == *b.type().shape())) {
        throw Error(ErrorKind::Unsupported, std::string("libonnx's converter changes the graph ") +
                                                what + " '" + was[i]->name() + "' from " +
                                                a.to_string() + " to " + b.type().to_string() +
                                                "; refusing to change the model's interface");
      }
    }
  };
  restore(before.graph->inputs(), after.graph->inputs(), "input");
  restore(before.graph->outputs(), after.graph->outputs(), "output");
}

// libonnx's converter from `from` to `to` (both <= 17).
ir::Model libonnx_convert(const ir::Model& model, int64_t from, int64_t to,
                          const std::string& model_dir) {
  if (!model.functions.empty()) {
    throw Error(ErrorKind::Unsupported,
                "the model has " + std::to_string(model.functions.size()) +
                    " model-local function(s), which libonnx's version converter (opsets " +
                    std::to_string(from) + " to " + std::to_string(to) +
                    ") drops; inline them first (e.g. compile with --inline)");
  }
  ::onnx::ModelProto proto;
  onnx::model_to_proto(model, &proto, onnx::ToProtoOptions{});
  ::onnx::ModelProto converted;
  try {
    static const Converter converter;  // builds libonnx's adapter tables once
    converted = converter.convert_version(proto, ::onnx::OpSetID(from), ::onnx::OpSetID(to));
  } catch (const std::exception& e) {
    throw Error(ErrorKind::Unsupported, converter_message(e.what()));
  }
  onnx::FromProtoContext ctx;
  ctx.file = "(converted model)";
  ctx.base_dir = model_dir;
  wire::ModelProto wire_model;
  onnx::reencode(converted, &wire_model);
  ir::Model out = onnx::model_from_proto(wire_model, ctx);
  keep_interface(model, out);
  return out;
}

// libonnx's 13 -> 12 adapters of ReduceSum, Squeeze (axes) and Split
// (split), which make an input an attribute, crash on a node without that
// input. Such a node gets it spelled out when the input's shape says it
// (ReduceSum: every axis, as without axes; Squeeze: the dims of size 1;
// Split: equal parts), else it is refused.
void spell_out_for_libonnx(ir::Model& model) {
  model.graph->for_each_node_recursive([](ir::Node* n) {
    const std::string& op = n->op_type();
    if (!n->domain().empty() || (op != "ReduceSum" && op != "Squeeze" && op != "Split") ||
        !convert::input_absent(*n, 1)) {
      return;
    }
    const ir::Attr* noop = n->attr("noop_with_empty_axes");
    const ir::Attr* axis = n->attr("axis");
    const ir::Type& t = convert::input_type(*n, 0);
    std::vector<int64_t> values;
    bool known = t.is_tensor() && t.shape().has_value() && (noop == nullptr || noop->i == 0);
    const auto rank = known ? int64_t(t.shape()->rank()) : 0;
    if (known && op == "Split") {
      int64_t a = axis != nullptr ? axis->i : 0;
      a = a < 0 ? a + rank : a;
      const auto parts = int64_t(n->num_outputs());
      known = a >= 0 && a < rank && (*t.shape())[size_t(a)].is_known() && parts > 0 &&
              (*t.shape())[size_t(a)].value() % parts == 0;
      if (known) values.assign(size_t(parts), (*t.shape())[size_t(a)].value() / parts);
    }
    for (int64_t i = 0; known && op != "Split" && i < rank; ++i) {
      const ir::Dim& d = (*t.shape())[size_t(i)];
      if (op == "ReduceSum" || (d.is_known() && d.value() == 1)) values.push_back(i);
      if (op == "Squeeze" && !d.is_known()) known = false;
    }
    if (!known || values.empty()) {
      convert::refuse(*n, "without its " + std::string(op == "Split" ? "split" : "axes") +
                              " input and an input of known shape, libonnx's " + op +
                              " 13 -> 12 adapter cannot convert it");
    }
    n->remove_attr("noop_with_empty_axes");
    convert::set_constant_input(*n, 1, values);
  });
}

// The IR version the converted model declares: raised to what its new
// opset needs going up, lowered to what it still needs going down.
void fit_ir_version(ir::Model& model, bool up) {
  const int64_t need = min_ir_version(model);
  model.ir_version = up ? std::max(model.ir_version, need) : std::min(model.ir_version, need);
}

}  // namespace

OpsetConversion convert_opset(ir::Model model, int64_t target, const std::string& model_dir) {
  const int64_t latest = latest_opset("").value_or(kLibonnxLatest);
  if (target < 1 || target > latest) {
    throw Error(ErrorKind::Usage, "--opset " + std::to_string(target) +
                                      ": oxs converts between ai.onnx opsets 1 and " +
                                      std::to_string(latest));
  }
  const int64_t from = default_opset(model);
  if (from == 0) {
    throw Error(ErrorKind::Unsupported, "the model imports no ai.onnx opset; nothing to convert");
  }
  if (from > latest) {
    throw Error(ErrorKind::Unsupported, "the model is at opset " + std::to_string(from) +
                                            "; oxs knows opsets up to " + std::to_string(latest));
  }
  OpsetConversion out;
  out.from = from;
  out.to = target;
  const bool up = target > from;
  try {
    if (target < from) convert::refuse_ops_newer_than(model, target);
    if (from > kLibonnxLatest || target > kLibonnxLatest) {
      // Through opset 17: libonnx below it, oxs's own steps above it.
      if (from < kLibonnxLatest) model = libonnx_convert(model, from, kLibonnxLatest, model_dir);
      convert::convert_steps(model, std::max(from, kLibonnxLatest),
                             std::max(target, kLibonnxLatest));
      fit_ir_version(model, up);
      if (target < kLibonnxLatest) {
        if (target < 13) spell_out_for_libonnx(model);
        model = libonnx_convert(model, kLibonnxLatest, target, model_dir);
      }
    } else if (from != target) {
      if (from >= 13 && target < 13) spell_out_for_libonnx(model);
      model = libonnx_convert(model, from, target, model_dir);
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Unsupported) throw;
    throw Error(ErrorKind::Unsupported, "cannot convert from opset " + std::to_string(from) +
                                            " to " + std::to_string(target) + ": " + e.message());
  }
  fit_ir_version(model, up);
  out.model = std::move(model);
  ConformanceOptions check;
  check.model_dir = model_dir;
  for (const ConformanceIssue& issue : check_conformance(out.model, check)) {
    if (issue.limitation) continue;
    throw Error(ErrorKind::Unsupported, "the model converted to opset " + std::to_string(target) +
                                            " is not valid (" + issue.stage + ": " + issue.message +
                                            "); it was not written");
  }
  return out;
}

}  // namespace oxs::schema
