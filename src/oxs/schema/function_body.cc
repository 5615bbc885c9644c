#include "oxs/schema/function_body.h"

#include <string>
#include <unordered_map>

#include "oxs/ir/error.h"
#include "oxs/onnx/libonnx_bridge.h"
#include "oxs/schema/bodies/context_bodies.h"
#include "oxs/schema/bodies/text_bodies.h"
#include "oxs/schema/onnx_schema.h"

namespace oxs::schema {
namespace {

// libonnx's view of a call site, backed by protos converted from the IR.
class BuildContext final : public ::onnx::FunctionBodyBuildContext {
 public:
  explicit BuildContext(const CallSite& call) : call_(call) {
    for (const ir::Attr& a : call.attrs) oxs::onnx::attr_to_proto(a, &attrs_[a.name]);
    types_.resize(call.input_types.size());
    for (size_t i = 0; i < call.input_types.size(); ++i) {
      const auto& t = call.input_types[i];
      if (t && !t->is_none()) oxs::onnx::type_to_proto(*t, &types_[i]);
    }
  }

  const ::onnx::AttributeProto* getAttribute(const std::string& name) const override {
    auto it = attrs_.find(name);
    return it == attrs_.end() ? nullptr : &it->second;
  }
  bool hasInput(int i) const override {
    return i >= 0 && static_cast<size_t>(i) < call_.input_types.size() &&
           call_.input_types[i].has_value();
  }
  bool hasOutput(int i) const override {
    return i >= 0 && static_cast<size_t>(i) < call_.outputs_present.size() &&
           call_.outputs_present[i];
  }
  // Null for omitted inputs and for inputs of unknown type, as libonnx expects.
  const ::onnx::TypeProto* getInputType(int i) const override {
    if (!hasInput(i)) return nullptr;
    const ::onnx::TypeProto& t = types_[i];
    return t.value_case() == ::onnx::TypeProto::VALUE_NOT_SET ? nullptr : &t;
  }

 private:
  const CallSite& call_;
  std::unordered_map<std::string, ::onnx::AttributeProto> attrs_;
  std::vector<::onnx::TypeProto> types_;
};

void check_opset(const OpSignature& sig, int64_t opset) {
  if (opset < sig.since_version) {
    throw Error(ErrorKind::Usage, "the body of " + sig.display_name() +
                                      " was requested for opset " + std::to_string(opset) +
                                      ", which is older than the op itself");
  }
}

std::unique_ptr<ir::Function> to_ir(const OpSignature& sig, int64_t opset,
                                    ::onnx::FunctionProto proto) {
  if (proto.name().empty()) proto.set_name(sig.name);
  if (proto.opset_import_size() == 0) {
    auto* imp = proto.add_opset_import();
    imp->set_domain(sig.domain);
    imp->set_version(opset);
  }
  oxs::onnx::FromProtoContext ctx;
  ctx.file = "<function body of " + sig.display_name() + ">";
  std::unique_ptr<ir::Function> f = oxs::onnx::function_from_proto(proto, ctx);
  if (!f) throw Error(ErrorKind::Internal, "function body of " + sig.display_name() + " was lost");
  return f;
}

const ::onnx::OpSchema& schema_for(const OpSignature& sig) {
  const ::onnx::OpSchema* s = onnx_schema_of(sig);
  if (!s) {
    throw Error(ErrorKind::Usage, "no libonnx schema for " + sig.display_name());
  }
  return *s;
}

// oxs's own fixed body of a table op version, as IR; null if there is none.
std::unique_ptr<ir::Function> table_text_body(const OpSignature& sig, int64_t opset) {
  const ::onnx::FunctionProto* fn = bodies::text_body(sig.domain, sig.name, sig.since_version);
  return fn ? to_ir(sig, opset, *fn) : nullptr;
}

}  // namespace

bool body_available(const OpSignature& sig) {
  if (!sig.has_function_body && !sig.has_context_dependent_function) return false;
  if (onnx_schema_of(sig)) return true;
  return bodies::text_body(sig.domain, sig.name, sig.since_version) != nullptr ||
         (sig.has_context_dependent_function && bodies::has_table_context_builder(sig));
}

std::unique_ptr<ir::Function> function_body(const OpSignature& sig, int64_t opset) {
  check_opset(sig, opset);
  if (!sig.has_function_body) return nullptr;
  // Versions from oxs's table (opset 18+): oxs's own bodies.
  if (!onnx_schema_of(sig)) return table_text_body(sig, opset);
  const ::onnx::FunctionProto* fn = schema_for(sig).GetFunction();
  if (!fn || fn->node_size() == 0) return nullptr;
  return to_ir(sig, opset, *fn);
}

CallSite call_site_of(const ir::Node& node) {
  CallSite call;
  call.input_types.reserve(node.num_inputs());
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    const ir::Value* v = node.input(i);
    if (v) {
      call.input_types.emplace_back(v->type());
    } else {
      call.input_types.emplace_back(std::nullopt);
    }
  }
  call.outputs_present.reserve(node.num_outputs());
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    call.outputs_present.push_back(node.output(i) != nullptr);
  }
  call.attrs = node.attrs();
  return call;
}

std::unique_ptr<ir::Function> context_dependent_body(const OpSignature& sig, int64_t opset,
                                                     const CallSite& call) {
  check_opset(sig, opset);
  if (!sig.has_context_dependent_function) return nullptr;
  BuildContext ctx(call);
  if (!onnx_schema_of(sig)) {
    // A table version: built by oxs for this call site, or one fixed body
    // that serves every call site.
    ::onnx::FunctionProto proto;
    if (bodies::build_table_context_body(sig, ctx, proto) && proto.node_size() > 0) {
      return to_ir(sig, opset, std::move(proto));
    }
    return table_text_body(sig, opset);
  }
  const ::onnx::OpSchema& schema = schema_for(sig);
  ::onnx::FunctionProto proto;
  bool built = false;
  try {
    built = schema.BuildContextDependentFunction(ctx, proto);
  } catch (const std::exception& e) {
    throw Error(ErrorKind::Invalid,
                "cannot build the function body of " + sig.display_name() + ": " + e.what());
  }
  if (!built || proto.node_size() == 0) return nullptr;
  return to_ir(sig, opset, std::move(proto));
}

}  // namespace oxs::schema
