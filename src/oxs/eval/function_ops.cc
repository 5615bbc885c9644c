#include "oxs/eval/function_ops.h"

#include "oxs/schema/function_body.h"
#include "oxs/schema/registry.h"

namespace oxs::eval {

namespace {

// Replaces references to attributes `call` does not set by the schema
// default, or removes them, in `g` and its subgraphs.
void bind_defaults(ir::Graph& g, std::span<const ir::Attr> call, const schema::OpSignature& sig) {
  auto has = [&](const std::string& name) {
    for (const ir::Attr& a : call) {
      if (a.name == name) return true;
    }
    return false;
  };
  g.for_each_node_recursive([&](ir::Node* n) {
    auto& attrs = n->mutable_attrs();
    for (size_t i = 0; i < attrs.size();) {
      ir::Attr& a = attrs[i];
      if (!a.is_reference() || has(a.ref_attr_name)) {
        ++i;
        continue;
      }
      const schema::AttrParam* p = sig.find_attr(a.ref_attr_name);
      if (p && p->default_value) {
        ir::Attr d = p->default_value->clone();
        d.name = a.name;
        attrs[i] = std::move(d);
        ++i;
      } else {
        attrs.erase(attrs.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    n->adopt_subgraphs();
  });
}

}  // namespace

FunctionBodyProvider schema_function_bodies() {
  return [](const ir::Node& node, int64_t opset, std::span<const ir::Type> input_types,
            std::span<const ir::Attr> attrs) -> std::shared_ptr<const ir::Function> {
    const schema::OpSignature* sig = schema::lookup(node.domain(), node.op_type(), opset);
    if (!sig) return nullptr;
    std::unique_ptr<ir::Function> body;
    if (sig->has_context_dependent_function) {
      schema::CallSite call;
      for (size_t i = 0; i < node.num_inputs(); ++i) {
        if (node.input(i) && i < input_types.size()) {
          call.input_types.emplace_back(input_types[i]);
        } else {
          call.input_types.emplace_back(std::nullopt);
        }
      }
      for (size_t i = 0; i < node.num_outputs(); ++i) {
        call.outputs_present.push_back(node.output(i) != nullptr);
      }
      call.attrs = attrs;
      body = schema::context_dependent_body(*sig, opset, call);
    }
    if (!body && sig->has_function_body) body = schema::function_body(*sig, opset);
    if (!body) return nullptr;
    bind_defaults(*body->body, attrs, *sig);
    return std::shared_ptr<const ir::Function>(std::move(body));
  };
}

}  // namespace oxs::eval
